// The limits the workers share, the primary's bank and the workers' accounts wired by an in-memory message queue (as
// node:cluster's IPC delivers, in order per direction): credit lent and used without messages, asked back when another
// worker needs it, refused only once every worker answered (or a silent one's time ran out), granted to a request in line
// once freed, shared fairly under load, withdrawn when a request leaves the line, returned by a worker that goes; counts
// taken and refused at their caps; and under random load, never more held than the limit.
import { describe, expect, it } from 'vitest';
import { clusterCounts, clusterPools } from '../src/cluster/limit-account.ts';
import { createLimitBank } from '../src/cluster/limit-bank.ts';
import type { PrimaryLink, ToPrimary, ToWorker } from '../src/cluster/messages.ts';
import type { RequestPools } from '../src/http/request-pipeline.ts';

/** A primary and `workers` workers; `expected` workers are each lent their part at start (none by default here). */
function cluster(limits: { admission?: number; bytes?: number }, workers: number, expected = Number.POSITIVE_INFINITY) {
  const queue: (() => void)[] = [];
  const handlers = new Map<number, ((message: ToWorker) => void)[]>();
  const sent: { to: 'primary' | number; message: ToPrimary | ToWorker }[] = [];
  const bank = createLimitBank(
    { admission: limits.admission ?? 4, unauthenticated: 1, bytes: limits.bytes ?? 100, unauthenticatedBodies: 1 },
    (id, message) => {
      sent.push({ to: id, message });
      queue.push(() => {
        for (const handler of handlers.get(id) ?? []) handler(message);
      });
    },
    expected,
  );
  /** Workers that stopped answering (their messages to the primary are lost). */
  const silent = new Set<number>();
  const make = (id: number) => {
    handlers.set(id, []);
    const link: PrimaryLink = {
      id,
      send(message) {
        if (silent.has(id)) return;
        sent.push({ to: 'primary', message });
        queue.push(() => bank.receive(id, message));
      },
      onMessage: (handler) => handlers.get(id)?.push(handler),
    };
    return { id, pools: clusterPools(link), counts: clusterCounts(link) };
  };
  const members = Array.from({ length: workers }, (_, i) => make(i + 1));
  /** Delivers every message (and what they cause) in order. */
  async function settle() {
    for (let rounds = 0; rounds < 10_000; rounds++) {
      await new Promise((resolve) => setImmediate(resolve));
      const next = queue.shift();
      if (!next && queue.length === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        if (queue.length === 0) return;
        continue;
      }
      next?.();
    }
    throw new Error('messages never settled');
  }
  return { bank, members, settle, sent, silent, remove: (id: number) => bank.remove(id) };
}

const pool = (member: { pools: RequestPools }, name: keyof RequestPools) => member.pools[name];

describe('credit lent by the primary', () => {
  it('is asked for once and then used without a message, kept for the next request', async () => {
    const { members, settle, sent } = cluster({ bytes: 100 }, 2);
    const bytes = pool(members[0]!, 'bytes');
    expect(bytes.take(10)).toBe(false);
    const taken = bytes.takeShared?.(10);
    await settle();
    expect(await taken).toBe(true);
    bytes.give(10);
    const before = sent.length;
    expect(bytes.take(10)).toBe(true);
    bytes.give(10);
    await settle();
    expect(sent.length).toBe(before);
  });

  it('past what is free, every worker is asked back; a want that cannot wait is refused only once all answered', async () => {
    const { bank, members, settle } = cluster({ bytes: 100 }, 3);
    const [one, two, three] = members.map((m) => pool(m, 'bytes'));
    const first = one!.takeShared!(60);
    await settle();
    expect(await first).toBe(true);
    // Lent with what was free besides (a body's next bytes need no message): all 100 with worker 1, 60 in use.
    expect(bank.free('bytes')).toBe(0);
    one!.give(60);
    const second = two!.takeShared!(30);
    await settle();
    expect(await second).toBe(true);
    const third = three!.takeShared!(70);
    await settle();
    expect(await third).toBe(true);
    // Now 30 + 70 are in use: nothing is left anywhere, and 1 more is refused after a round.
    const refused = one!.takeShared!(1);
    await settle();
    expect(await refused).toBe(false);
    expect(bank.free('bytes')).toBe(0);
    two!.give(30);
    await settle();
    const after = one!.takeShared!(30);
    await settle();
    expect(await after).toBe(true);
    expect(three!.take(1)).toBe(false);
  });

  it('a worker that stops answering holds up a round only until its time runs out', async () => {
    const { members, settle, silent } = cluster({ bytes: 100 }, 2);
    const [one, two] = members.map((m) => pool(m, 'bytes'));
    const all = one!.takeShared!(100);
    await settle();
    expect(await all).toBe(true);
    silent.add(1);
    const started = performance.now();
    let answer: boolean | undefined;
    void two!.takeShared!(10).then((ok) => (answer = ok));
    await settle();
    expect(answer).toBeUndefined();
    // Worker 1 never answers the round: after its deadline (1 s), what cannot wait is refused.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await settle();
    expect(answer).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('a request in line is granted a unit once one is freed elsewhere; the workers are told when nobody waits', async () => {
    const { members, settle, sent } = cluster({ admission: 2 }, 2);
    const [one, two] = members.map((m) => pool(m, 'admission'));
    const got: string[] = [];
    one!.want!(() => got.push('one 1'));
    one!.want!(() => got.push('one 2'));
    await settle();
    expect(one!.take(1) && one!.take(1)).toBe(true);
    let ready = false;
    // Taken in `ready`, as admission's line does: a unit not taken then goes back while others wait.
    two!.want!(() => (ready = two!.take(1)));
    await settle();
    expect(ready).toBe(false);
    expect(two!.take(1)).toBe(false);
    one!.give(1);
    await settle();
    expect(ready).toBe(true);
    expect(sent.some((s) => s.message.at === 'credit:calm')).toBe(true);
    // Worker 1 kept its other unit in use; nothing more is free.
    expect(one!.take(1)).toBe(false);
    expect(got).toEqual(['one 1', 'one 2']);
  });

  it('under load on both workers, the one holding every unit gives back past its fair part: the other is served', async () => {
    const { members, settle } = cluster({ admission: 4 }, 2);
    const [one, two] = members.map((m) => pool(m, 'admission'));
    // Worker 1 takes all four, and has more in its own line.
    for (let i = 0; i < 4; i++) one!.want!(() => one!.take(1));
    await settle();
    expect(one!.take(1)).toBe(false);
    let twoServed = 0;
    let oneServed = 0;
    for (let i = 0; i < 4; i++) one!.want!(() => one!.take(1) && (oneServed += 1));
    for (let i = 0; i < 4; i++) two!.want!(() => two!.take(1) && (twoServed += 1));
    await settle();
    // Worker 1 finishes requests one by one; its own line would take each freed unit, but past its share (2) they go back.
    for (let i = 0; i < 4; i++) {
      one!.give(1);
      if (one!.take(1)) oneServed += 1;
      await settle();
    }
    expect(twoServed).toBe(2);
    expect(oneServed).toBe(2);
  });

  it('a unit lent to a request in line stays while it waits, even when it cannot take it at once', async () => {
    const { members, settle } = cluster({ admission: 2 }, 2);
    const [one, two] = members.map((m) => pool(m, 'admission'));
    one!.want!(() => one!.take(1));
    one!.want!(() => one!.take(1));
    await settle();
    // Worker 2's request waits; when its unit comes, this turn's starts are used up (it takes it at the next turn).
    const leave = two!.want!(() => undefined);
    await settle();
    one!.give(1);
    await settle();
    await new Promise((resolve) => setImmediate(resolve));
    expect(two!.take(1)).toBe(true);
    leave();
  });

  it('a request that leaves the line withdraws its want: nothing is lent for it', async () => {
    const { bank, members, settle } = cluster({ admission: 1 }, 2);
    const [one, two] = members.map((m) => pool(m, 'admission'));
    one!.want!(() => one!.take(1));
    await settle();
    let ready = false;
    const cancel = two!.want!(() => (ready = true));
    await settle();
    cancel();
    await settle();
    one!.give(1);
    await settle();
    expect(ready).toBe(false);
    // The unit went back to the primary (someone waited when it was freed) or stayed with worker 1: never to worker 2.
    expect(two!.take(1)).toBe(false);
    expect((bank.free('admission') ?? 0) + (one!.take(1) ? 1 : 0)).toBe(1);
  });

  it('a worker that goes gives back its credit and its counts', async () => {
    const { bank, members, settle, remove } = cluster({ bytes: 100 }, 2);
    const taken = pool(members[0]!, 'bytes').takeShared!(100);
    const counted = members[0]!.counts.take(['k'], [1]);
    await settle();
    expect(await taken).toBe(true);
    expect(await counted).toBeNull();
    expect(bank.free('bytes')).toBe(0);
    remove(1);
    expect(bank.free('bytes')).toBe(100);
    expect(bank.count('k')).toBe(0);
    const other = pool(members[1]!, 'bytes').takeShared!(100);
    await settle();
    expect(await other).toBe(true);
  });
});

describe('a worker that starts', () => {
  it('is lent its part of each pool at once: its first requests need no message, and no more than the limit is lent', async () => {
    const { bank, members, settle, sent } = cluster({ admission: 5, bytes: 100 }, 2, 2);
    await settle();
    const [one, two] = members.map((m) => pool(m, 'admission'));
    const before = sent.length;
    expect(one!.take(3)).toBe(true);
    expect(two!.take(2)).toBe(true);
    expect(two!.take(1)).toBe(false);
    expect(sent.length).toBe(before);
    expect(bank.free('admission')).toBe(0);
    expect(bank.free('bytes')).toBe(0);
  });
});

describe('counts kept by the primary', () => {
  it('refuse past the first cap they would pass, adding nothing; a count given back makes room', async () => {
    const { bank, members, settle } = cluster({}, 2);
    const [one, two] = members.map((m) => m.counts);
    const keys = ['key', 'workspace', 'all'];
    const caps = [2, 5, 10];
    for (const counts of [one!, two!]) {
      const answer = counts.take(keys, caps);
      await settle();
      expect(await answer).toBeNull();
    }
    const refused = one!.take(keys, caps);
    await settle();
    expect(await refused).toEqual({ refused: 0, count: 2 });
    expect(bank.count('workspace')).toBe(2);
    two!.give(keys);
    await settle();
    const again = one!.take(keys, caps);
    await settle();
    expect(await again).toBeNull();
    // A worker gives back only what it holds.
    two!.give(keys);
    await settle();
    expect(bank.count('key')).toBe(2);
  });
});

describe('under random load', () => {
  it('never holds more than the limit across workers, and every request in line is served once units are freed', async () => {
    const limit = 5;
    const { members, settle } = cluster({ admission: limit }, 3);
    const held = members.map(() => 0);
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    let waiting = 0;
    let served = 0;
    // Each worker's own line, as admission keeps it: the head takes a unit whenever one may be here, then leaves.
    const lines = members.map(() => [] as (() => void)[]);
    const drain = (i: number) => {
      const slots = pool(members[i]!, 'admission');
      while (lines[i]!.length > 0 && slots.take(1)) {
        held[i]! += 1;
        served += 1;
        lines[i]!.shift()?.();
      }
    };
    const release = (i: number) => {
      held[i]! -= 1;
      pool(members[i]!, 'admission').give(1);
      drain(i);
    };
    for (let step = 0; step < 400; step++) {
      const i = Math.floor(random() * members.length);
      const slots = pool(members[i]!, 'admission');
      if (random() < 0.55) {
        if (lines[i]!.length === 0 && slots.take(1)) held[i]! += 1;
        else {
          waiting += 1;
          lines[i]!.push(slots.want!(() => drain(i)));
        }
      } else if (held[i]! > 0) release(i);
      if (random() < 0.3) await settle();
      expect(held.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(limit);
    }
    // Everyone lets go: every request still in line gets its unit in the end (and lets go of it too).
    for (let round = 0; round < 50 && served < waiting; round++) {
      for (const i of members.keys()) while (held[i]! > 0) release(i);
      await settle();
    }
    expect(waiting).toBeGreaterThan(0);
    expect(served).toBe(waiting);
    expect(held.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(limit);
  });
});
