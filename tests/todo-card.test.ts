// Black-box tests of the rendered "Update to-do list" card (seed 000): todos.card answers the card as text for models
// and terminals (Pending / In progress / Completed groups, what changed) and the same data for the dashboard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyClient, refused, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

describe('todos.card', () => {
  it('renders the latest update in the three groups with what it changed; any revision on request; a viewer reads it too', async () => {
    const s = await sessionClient(server);
    await s.client.todos.write({
      todos: [
        { content: 'Plan the work', status: 'in_progress' },
        { content: 'Old step', status: 'pending' },
      ],
    });
    await s.client.todos.write({
      todos: [
        { content: 'Plan the work', status: 'completed' },
        { content: 'Reproduce the bug', status: 'in_progress' },
        { content: 'Write the fix', status: 'pending' },
      ],
    });
    const card = await s.client.todos.card();
    expect(card.text).toBe(
      [
        'Update to-do list · revision 2',
        'Pending (1)',
        '  ○ Write the fix',
        'In progress (1)',
        '  ▶ Reproduce the bug',
        'Completed (1)',
        '  ✓ Plan the work',
        'What changed: added "Reproduce the bug"; added "Write the fix"; "Plan the work" in_progress → completed; removed "Old step"',
      ].join('\n'),
    );
    expect(card).toMatchObject({
      sessionId: s.session.id,
      revision: 2,
      groups: { pending: ['Write the fix'], inProgress: ['Reproduce the bug'], completed: ['Plan the work'] },
      changes: { added: ['Reproduce the bug', 'Write the fix'], removed: ['Old step'] },
    });

    const first = await s.client.todos.card({ revision: 1 });
    expect(first.text).toBe(
      [
        'Update to-do list · revision 1',
        'Pending (1)',
        '  ○ Old step',
        'In progress (1)',
        '  ▶ Plan the work',
        'Completed (0)',
        '  none',
        'What changed: added "Plan the work"; added "Old step"',
      ].join('\n'),
    );
    const viewer = await keyClient(server, 'viewer');
    expect((await viewer.todos.card({ sessionId: s.session.id })).text).toBe(card.text);
  });

  it('says plainly when there is no card', async () => {
    const s = await sessionClient(server);
    expect((await refused(s.client.todos.card())).message).toBe(
      `Error: session ${s.session.id} has recorded no to-do list yet; there is no card.`,
    );
    await s.client.todos.write({ todos: [{ content: 'One', status: 'pending' }] });
    expect((await refused(s.client.todos.card({ revision: 5 }))).message).toBe(
      `Error: session ${s.session.id} has no update at revision 5 (its latest is 1).`,
    );
    expect((await refused(s.client.todos.card({ revision: 0 }))).message).toBe(
      'Error: invalid input: `revision` must be a whole number from 1.',
    );
  });
});
