// The primary's side of the workers' messages: who listens on which topic, relaying live events to just those
// workers, telling every worker of a revocation, the turns at SQLite's write lock (first come first served), and
// where the writer worker takes the others' writes (they connect to it themselves). Knows workers only by id and a
// send function.
import type { ToPrimary, ToWorker } from './messages.ts';

interface Pending {
  left: Set<number>;
  done: () => void;
}

export function createHub() {
  /** The worker that runs the writes, where it takes them and its secret, once it said it is ready. */
  let writer: { id: number; address: string; secret: string } | null = null;
  const workers = new Map<number, (message: ToWorker) => void>();
  /** The workers that hear live-event messages (said `live:hello`): a worker still loading would never answer. */
  const hearing = new Set<number>();
  /** topic → workers listening on it. */
  const interest = new Map<string, Set<number>>();
  /** Interest updates awaiting the receivers' acknowledgement, by ack id. */
  const pending = new Map<number, Pending>();
  let nextAck = 1;
  /** The write lock's turns: who holds it, and who waits (worker id and its ticket), in order. */
  let holder: number | null = null;
  const queue: { id: number; ticket: number }[] = [];

  function grantNext() {
    while (holder === null && queue.length > 0) {
      const next = queue.shift() as { id: number; ticket: number };
      if (!workers.has(next.id)) continue;
      holder = next.id;
      send(next.id, { at: 'lock:granted', ticket: next.ticket });
    }
    // The holder keeps its turn until told that someone waits.
    if (holder !== null && queue.length > 0) send(holder, { at: 'lock:wanted' });
  }

  const send = (id: number, message: ToWorker) => workers.get(id)?.(message);

  /** Tells every worker which other workers listen on `topic`; `done` once all have taken it in. */
  function announce(topic: string, done: () => void) {
    const listening = [...(interest.get(topic) ?? [])];
    const ack = nextAck++;
    const left = new Set(hearing);
    if (left.size === 0) return done();
    pending.set(ack, { left, done });
    for (const id of left) send(id, { at: 'live:interest', topic, workers: listening.filter((w) => w !== id), ack });
  }

  function acknowledged(ack: number, from: number) {
    const waiting = pending.get(ack);
    if (!waiting) return;
    waiting.left.delete(from);
    if (waiting.left.size === 0) {
      pending.delete(ack);
      waiting.done();
    }
  }

  return {
    add(id: number, sendTo: (message: ToWorker) => void) {
      workers.set(id, sendTo);
      // A new worker learns where the writer is (it asks again once it listens: this may come while it loads).
      if (writer) sendTo({ at: 'write:writer', writer: { address: writer.address, secret: writer.secret } });
    },
    remove(id: number) {
      workers.delete(id);
      hearing.delete(id);
      // A dead worker's SQLite lock went with its process; its turn and its place in line go too.
      for (let i = queue.length - 1; i >= 0; i--) if (queue[i]?.id === id) queue.splice(i, 1);
      if (holder === id) holder = null;
      grantNext();
      if (writer?.id === id) {
        // Its connections closed with it: the calls on them are answered unavailable by the workers that made them.
        writer = null;
        for (const sendTo of workers.values()) sendTo({ at: 'write:writer', writer: null });
      }
      for (const ack of [...pending.keys()]) acknowledged(ack, id);
      for (const [topic, ids] of interest) {
        if (!ids.delete(id)) continue;
        if (ids.size === 0) interest.delete(topic);
        announce(topic, () => {});
      }
    },
    receive(from: number, message: ToPrimary) {
      switch (message.at) {
        case 'live:hello':
          // It hears live-event messages now: it learns of every topic already listened on, and is asked from now on.
          hearing.add(from);
          for (const [topic, ids] of interest) send(from, { at: 'live:interest', topic, workers: [...ids], ack: 0 });
          return;
        case 'live:sub': {
          const ids = interest.get(message.topic) ?? new Set<number>();
          ids.add(from);
          interest.set(message.topic, ids);
          // The listener is ready once every other worker forwards this topic's events to it.
          announce(message.topic, () => send(from, { at: 'live:subscribed', ack: message.ack }));
          return;
        }
        case 'live:unsub': {
          const ids = interest.get(message.topic);
          if (!ids?.delete(from)) return;
          if (ids.size === 0) interest.delete(message.topic);
          announce(message.topic, () => {});
          return;
        }
        case 'live:event':
          for (const id of message.to) if (id !== from) send(id, { at: 'live:event', event: message.event });
          return;
        case 'live:interest-ack':
          acknowledged(message.ack, from);
          return;
        case 'lock:want':
          queue.push({ id: from, ticket: message.ticket });
          if (holder === null) grantNext();
          else if (queue.length === 1) send(holder, { at: 'lock:wanted' });
          return;
        case 'lock:cancel': {
          const at = queue.findIndex((w) => w.id === from && w.ticket === message.ticket);
          if (at >= 0) queue.splice(at, 1);
          return;
        }
        case 'lock:release':
          if (holder === from) holder = null;
          grantNext();
          return;
        case 'write:where':
          if (writer) send(from, { at: 'write:writer', writer: { address: writer.address, secret: writer.secret } });
          return;
        case 'write:ready':
          writer = { id: from, address: message.address, secret: message.secret };
          for (const [id, sendTo] of workers) {
            if (id !== from) sendTo({ at: 'write:writer', writer: { address: message.address, secret: message.secret } });
          }
          return;
        case 'auth:revoked':
          for (const id of workers.keys())
            if (id !== from) send(id, { at: 'auth:forget', ...(message.tokenHashes ? { tokenHashes: message.tokenHashes } : {}) });
          return;
      }
    },
  };
}
