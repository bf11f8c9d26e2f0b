// Unit tests of the write lock's turns between workers: the primary's side (cluster/hub.ts) grants them first come
// first served and tells the holder when someone waits; a worker (cluster/write-lock.ts) keeps its turn while nobody
// waits and hands it over when its transaction ends; a dead worker's turn and place in line go with it.
import { describe, expect, it } from 'vitest';
import { createHub } from '../src/cluster/hub.ts';
import type { PrimaryLink, ToPrimary, ToWorker } from '../src/cluster/messages.ts';
import { clusterWriteLock } from '../src/cluster/write-lock.ts';

/** A hub with workers whose messages are recorded; `from(id, message)` is a message from worker `id`. */
function hubWith(ids: number[]) {
  const hub = createHub();
  const inbox = new Map<number, ToWorker[]>(ids.map((id) => [id, []]));
  for (const id of ids) hub.add(id, (message) => inbox.get(id)?.push(message));
  const lockMessages = (id: number) => (inbox.get(id) ?? []).filter((m) => m.at.startsWith('lock:'));
  return { hub, lockMessages, from: (id: number, message: ToPrimary) => hub.receive(id, message) };
}

describe('the primary grants write turns', () => {
  it('first come first served; the holder hears once that someone waits; a release passes the turn on', () => {
    const { from, lockMessages } = hubWith([1, 2, 3]);
    from(1, { at: 'lock:want', ticket: 1 });
    expect(lockMessages(1)).toEqual([{ at: 'lock:granted', ticket: 1 }]);
    from(3, { at: 'lock:want', ticket: 7 });
    from(2, { at: 'lock:want', ticket: 4 });
    expect(lockMessages(1)).toEqual([{ at: 'lock:granted', ticket: 1 }, { at: 'lock:wanted' }]);
    from(1, { at: 'lock:release' });
    expect(lockMessages(3)).toEqual([{ at: 'lock:granted', ticket: 7 }, { at: 'lock:wanted' }]);
    expect(lockMessages(2)).toEqual([]);
    from(3, { at: 'lock:release' });
    expect(lockMessages(2)).toEqual([{ at: 'lock:granted', ticket: 4 }]);
  });

  it('a cancelled request loses its place; a dead holder’s turn goes to the next in line', () => {
    const { hub, from, lockMessages } = hubWith([1, 2, 3]);
    from(1, { at: 'lock:want', ticket: 1 });
    from(2, { at: 'lock:want', ticket: 2 });
    from(3, { at: 'lock:want', ticket: 3 });
    from(2, { at: 'lock:cancel', ticket: 2 });
    hub.remove(1);
    expect(lockMessages(2)).toEqual([]);
    expect(lockMessages(3)).toEqual([{ at: 'lock:granted', ticket: 3 }]);
  });
});

/** A worker's link whose messages to the primary are recorded and answered by hand. */
function link() {
  const sent: ToPrimary[] = [];
  let handler: (message: ToWorker) => void = () => {};
  const end: PrimaryLink = { id: 1, send: (message) => sent.push(message), onMessage: (h) => (handler = h) };
  return { end, sent, deliver: (message: ToWorker) => handler(message) };
}

describe('a worker’s write turns', () => {
  it('asks once, then keeps the turn for later transactions while nobody else waits', async () => {
    const { end, sent, deliver } = link();
    const gate = clusterWriteLock(end);
    const first = gate.acquire(1_000);
    expect(sent).toEqual([{ at: 'lock:want', ticket: 1 }]);
    deliver({ at: 'lock:granted', ticket: 1 });
    expect(await first).toBe(true);
    gate.release();
    expect(await gate.acquire(1_000)).toBe(true);
    gate.release();
    expect(sent).toEqual([{ at: 'lock:want', ticket: 1 }]);
  });

  it('told that another worker waits, hands the turn over when its transaction ends', async () => {
    const { end, sent, deliver } = link();
    const gate = clusterWriteLock(end);
    const granted = gate.acquire(1_000);
    deliver({ at: 'lock:granted', ticket: 1 });
    await granted;
    deliver({ at: 'lock:wanted' });
    expect(sent.filter((m) => m.at === 'lock:release')).toEqual([]); // still in its transaction
    gate.release();
    expect(sent.at(-1)).toEqual({ at: 'lock:release' });
    // The next transaction asks again.
    void gate.acquire(1_000);
    expect(sent.at(-1)).toEqual({ at: 'lock:want', ticket: 2 });
  });

  it('gives up past the timeout (the caller answers busy) and hands back a turn that comes too late', async () => {
    const { end, sent, deliver } = link();
    const gate = clusterWriteLock(end);
    expect(await gate.acquire(20)).toBe(false);
    expect(sent).toEqual([
      { at: 'lock:want', ticket: 1 },
      { at: 'lock:cancel', ticket: 1 },
    ]);
    deliver({ at: 'lock:granted', ticket: 1 });
    expect(sent.at(-1)).toEqual({ at: 'lock:release' });
  });
});
