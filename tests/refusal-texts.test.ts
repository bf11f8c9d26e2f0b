// Black-box tests of what a model reads when it is refused (issue 12): the item's place in a list, an unknown list
// with the nearest names, threadID set from the session, a missing subject, a wrong-typed value told from a missing one,
// and a lost claim race told apart from "no ready task". Each refusal records nothing.
import { createClient, openSessionClient, taskTools } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, countRows, keyClient, refused, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

describe('refusals name the item and the fix', () => {
  it('an over-limit or empty field inside a list names its position', async () => {
    const s = await sessionClient(server);
    const todos = Array.from({ length: 4 }, (_, i) => ({ content: i === 3 ? 'x'.repeat(1001) : `Step ${i}`, status: 'pending' as const }));
    expect((await refused(s.client.todos.write({ todos }))).message).toBe(
      'Error: invalid todo: `todos[3].content` must be at most 1000 characters (got 1001).',
    );
    todos[3] = { content: '   ', status: 'pending' };
    expect((await refused(s.client.todos.write({ todos }))).message).toBe(
      'Error: invalid todo: `content` must be a non-empty string. At `todos[3].content`.',
    );
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', s.session.id)).toBe(0);
  });

  it('an unknown listName says the list does not exist and lists the nearest names', async () => {
    const { adminKey } = await adminClient(server).workspaces.create({ name: 'lists' });
    const agent = await createClient({ url: server.url, token: adminKey }).keys.create({ name: 'a', role: 'agent' });
    const { client } = await openSessionClient(createClient({ url: server.url, token: agent.token }));
    // The default list, never named, is just empty before its first task.
    expect(await client.tasks.list()).toEqual({ listName: 'default', tasks: [] });
    const none = await refused(client.tasks.list({ listName: 'sprint-1' }));
    expect(none.message).toBe('Error: task list "sprint-1" does not exist; this workspace has no task lists yet (TaskCreate starts one).');
    const task = await client.tasks.create({ listName: 'default', subject: 'A' });
    await client.tasks.create({ listName: 'deploy', subject: 'B' });
    await client.tasks.create({ listName: 'release-notes', subject: 'C' });
    const text = 'Error: task list "defualt" does not exist; the nearest names are "default", "deploy", "release-notes".';
    const before = { tasks: await countRows(server, 'Task'), changes: await countRows(server, 'TaskChange') };
    expect((await refused(client.tasks.list({ listName: 'defualt' }))).message).toBe(text);
    expect((await refused(client.tasks.get({ listName: 'defualt', id: task.id }))).message).toBe(text);
    expect((await refused(client.tasks.update({ listName: 'defualt', id: task.id, status: 'completed' }))).message).toBe(text);
    expect((await refused(client.tasks.claim({ listName: 'defualt' }))).message).toBe(text);
    expect((await refused(client.tasks.plan({ listName: 'defualt' }))).message).toBe(text);
    expect(
      await taskTools(client)
        .find((t) => t.name === 'TaskList')
        ?.handler({ listName: 'defualt' }),
    ).toBe(text);
    expect({ tasks: await countRows(server, 'Task'), changes: await countRows(server, 'TaskChange') }).toEqual(before);
  });

  it('threadID (however spelled) says it is set from the session; a missing subject says it is required', async () => {
    const s = await sessionClient(server);
    const before = await countRows(server, 'Task');
    expect((await refused(s.client.tasks.create({ subject: 'A', threadID: 'ses_other' } as never))).message).toBe(
      'Error: invalid input: `threadID` is set from the session that creates the task; leave it out.',
    );
    const task = await s.client.tasks.create({ subject: 'A' });
    expect((await refused(s.client.tasks.update({ id: task.id, threadID: 'ses_other' } as never))).message).toBe(
      'Error: invalid input: `threadID` is set from the session that creates the task; leave it out.',
    );
    expect((await refused(s.client.tasks.create({} as never))).message).toBe(
      'Error: invalid task: `subject` is required: a short imperative line naming the task, such as "Run tests".',
    );
    // Spelled as other tools spell it, it is told the same, through the tool a model calls too.
    const update = taskTools(s.client).find((t) => t.name === 'TaskUpdate');
    for (const key of ['threadId', 'thread_id']) {
      const text = `Error: invalid input: \`${key}\`: a task's \`threadID\` is set from the session that creates it; leave it out.`;
      expect((await refused(s.client.tasks.create({ subject: 'B', [key]: 'ses_other' }))).message).toBe(text);
      expect(await update?.handler({ id: task.id, [key]: 'ses_other' })).toBe(text);
    }
    expect(await countRows(server, 'Task')).toBe(before + 1);
  });

  it('a value of the wrong type is told from a missing one and quoted, over tRPC and through the tool', async () => {
    const s = await sessionClient(server);
    const list = taskTools(s.client).find((t) => t.name === 'TaskList');
    const cases: [Record<string, unknown>, string][] = [
      [
        { status: true },
        'Error: invalid input: `status` must be one of pending, in_progress, completed, deleted, or a list of them (got true).',
      ],
      [{ readyOnly: 'yes' }, 'Error: invalid input: `readyOnly` must be true or false (got "yes").'],
      [{ includeCompleted: 1 }, 'Error: invalid input: `includeCompleted` must be true or false (got 1).'],
      [{ limit: 'ten' }, 'Error: invalid input: `limit` must be a number (got "ten").'],
    ];
    for (const [input, text] of cases) {
      expect((await refused(s.client.tasks.list(input as never))).message).toBe(text);
      expect(await list?.handler(input)).toBe(text);
    }
  });

  it('a lost claim race reads differently from "no ready task"', async () => {
    const ana = await sessionClient(server);
    const bob = await openSessionClient(await keyClient(server, 'agent'), { agentName: 'bob' });
    const listName = 'race';
    const ready = await ana.client.tasks.create({ listName, subject: 'The only ready task' });
    await ana.client.tasks.create({ listName, subject: 'Waits for it', blockedBy: [ready.id] });
    expect((await ana.client.tasks.claim({ listName })).task?.id).toBe(ready.id);
    const lost = await bob.client.tasks.claim({ listName });
    expect(lost).toEqual({ task: null, lostRace: { id: ready.id, ref: '#1', owner: ana.session.agentName } });
    const claim = taskTools(bob.client).find((t) => t.name === 'TaskClaim');
    expect(await claim?.handler({ listName })).toBe(
      `Lost the race: ${ana.session.agentName} claimed #1 (${ready.id}) first, moments ago; no other task is ready now.`,
    );

    // Nothing was ever ready: the plain answer, and no race named.
    const blocked = 'all-blocked';
    const a = await ana.client.tasks.create({ listName: blocked, subject: 'A' });
    await ana.client.tasks.update({ listName: blocked, id: a.id, status: 'in_progress' });
    await ana.client.tasks.create({ listName: blocked, subject: 'B', blockedBy: [a.id] });
    expect(await bob.client.tasks.claim({ listName: blocked })).toEqual({ task: null, lostRace: null });
    expect(await claim?.handler({ listName: blocked })).toBe('No ready task to claim.');
  });
});
