// The primary's hub for live events across workers: an announcement waits only for the workers that hear it (said
// `live:hello`), so a worker still loading (forked later, or a replacement) cannot hold a subscription up; and it learns
// of every topic already listened on once it says hello.
import { expect, it } from 'vitest';
import { createHub } from '../src/cluster/hub.ts';
import type { ToWorker } from '../src/cluster/messages.ts';

it('a subscription is ready once the hearing workers know; a worker that loads meanwhile is told when it says hello', () => {
  const hub = createHub();
  const inbox = new Map<number, ToWorker[]>([
    [1, []],
    [2, []],
  ]);
  for (const id of [1, 2]) hub.add(id, (message) => inbox.get(id)?.push(message));
  hub.receive(1, { at: 'live:hello' });
  // Worker 2 is still loading: it says nothing, and hears nothing of what is sent meanwhile.
  hub.receive(1, { at: 'live:sub', topic: 'todo:ses_1', ack: 7 });
  const asked = inbox.get(1)?.find((m) => m.at === 'live:interest');
  expect(asked).toMatchObject({ topic: 'todo:ses_1', workers: [] });
  expect(inbox.get(2)).toEqual([]);
  hub.receive(1, { at: 'live:interest-ack', ack: (asked as { ack: number }).ack });
  expect(inbox.get(1)).toContainEqual({ at: 'live:subscribed', ack: 7 });
  hub.receive(2, { at: 'live:hello' });
  expect(inbox.get(2)).toEqual([{ at: 'live:interest', topic: 'todo:ses_1', workers: [1], ack: 0 }]);
});
