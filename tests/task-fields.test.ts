// Black-box tests of a task's priority and labels (TaskCreate/TaskUpdate/TaskGet/TaskList, claim-next, task files),
// comments on tasks (people and agents, TaskGet, live, the notes a session takes at its start) and full-text search.
import { agentTools, type AgentTasksClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, countRows, keyClient, refused, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

let lists = 0;
const freshList = () => `fields-${++lists}`;
const taskRows = () => countRows(server, 'Task');
const changeRows = () => countRows(server, 'TaskChange');

describe('priority and labels', () => {
  it('are optional on TaskCreate and TaskUpdate, shown by TaskGet and TaskList, and recorded in the history', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const plain = await s.client.tasks.create({ listName, subject: 'No priority' });
    expect(plain.priority).toBeUndefined();
    expect(plain.labels).toEqual([]);
    const urgent = await s.client.tasks.create({ listName, subject: 'Fix the outage', priority: 'P0', labels: ['ops', ' db ', 'ops'] });
    expect(urgent).toMatchObject({ priority: 'P0', labels: ['ops', 'db'] });
    expect(await s.client.tasks.get({ listName, id: urgent.id })).toMatchObject({ priority: 'P0', labels: ['ops', 'db'] });

    const changed = await s.client.tasks.update({ listName, id: urgent.id, priority: 'P2', labels: ['db'] });
    expect(changed).toMatchObject({ priority: 'P2', labels: ['db'], version: 2 });
    const cleared = await s.client.tasks.update({ listName, id: urgent.id, priority: null, labels: [] });
    expect(cleared.priority).toBeUndefined();
    expect(cleared.labels).toEqual([]);
    const { changes } = await s.client.tasks.history({ listName, id: urgent.id });
    expect(changes.map((c) => c.changes)).toEqual([
      expect.objectContaining({ priority: { from: null, to: 'P0' }, labels: { from: null, to: ['ops', 'db'] } }),
      { priority: { from: 'P0', to: 'P2' }, labels: { from: ['ops', 'db'], to: ['db'] } },
      { priority: { from: 'P2', to: null }, labels: { from: ['db'], to: [] } },
    ]);

    await s.client.tasks.update({ listName, id: urgent.id, priority: 'P1', labels: ['ops'] });
    const listed = await s.client.tasks.list({ listName });
    expect(listed.tasks.map((t) => [t.subject, t.priority, t.labels])).toEqual([
      ['No priority', undefined, undefined],
      ['Fix the outage', 'P1', ['ops']],
    ]);
  });

  it('filter TaskList (tRPC and the tool): one priority or several, one label', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    await s.client.tasks.create({ listName, subject: 'P0 ui', priority: 'P0', labels: ['ui'] });
    await s.client.tasks.create({ listName, subject: 'P1 api', priority: 'P1', labels: ['api', 'ui%'] });
    await s.client.tasks.create({ listName, subject: 'P3 ui', priority: 'P3', labels: ['ui'] });
    await s.client.tasks.create({ listName, subject: 'none' });
    const subjects = async (filter: object) => (await s.client.tasks.list({ listName, ...filter })).tasks.map((t) => t.subject);
    expect(await subjects({ priority: 'P1' })).toEqual(['P1 api']);
    expect(await subjects({ priority: ['P0', 'P3'] })).toEqual(['P0 ui', 'P3 ui']);
    expect(await subjects({ label: 'ui' })).toEqual(['P0 ui', 'P3 ui']);
    expect(await subjects({ label: 'ui%' })).toEqual(['P1 api']);
    expect(await subjects({ label: 'ui', priority: ['P3'] })).toEqual(['P3 ui']);

    const tools = Object.fromEntries(agentTools(s.client).map((t) => [t.name, t]));
    const text = await tools.TaskList?.handler({ listName, priority: ['P0', 'P1'] });
    expect(text).toMatch(/^#\d+ +\[pending\] P0 P0 ui \[ui\] +blockedBy: \[\]\n#\d+ +\[pending\] P1 P1 api \[api, ui%\] +blockedBy: \[\]$/);
    expect(await tools.TaskCreate?.handler({ listName, subject: 'From the tool', priority: 'P2', labels: ['tool'] })).toMatch(
      /^Created T-\S+ \(#5\) \[pending\] From the tool/,
    );
    expect(await subjects({ label: 'tool' })).toEqual(['From the tool']);
  });

  it('claim-next takes the most urgent ready task, then the oldest; a task without a priority comes last', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const none = await s.client.tasks.create({ listName, subject: 'No priority, oldest' });
    const lowOld = await s.client.tasks.create({ listName, subject: 'P3, older', priority: 'P3' });
    const blocker = await s.client.tasks.create({ listName, subject: 'P4 blocker', priority: 'P4' });
    await s.client.tasks.create({ listName, subject: 'P0 but blocked', priority: 'P0', blockedBy: [blocker.id] });
    const lowNew = await s.client.tasks.create({ listName, subject: 'P3, newer', priority: 'P3' });
    const high = await s.client.tasks.create({ listName, subject: 'P1', priority: 'P1' });
    const order = [];
    for (let i = 0; i < 5; i++) order.push((await s.client.tasks.claim({ listName })).task?.id);
    expect(order).toEqual([high.id, lowOld.id, lowNew.id, blocker.id, none.id]);
  });

  it('refuses a bad priority, too many labels and a long or empty label with exact texts, recording nothing', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const task = await s.client.tasks.create({ listName, subject: 'Target' });
    const [tasksBefore, changesBefore] = [await taskRows(), await changeRows()];
    const cases: [() => Promise<unknown>, string][] = [
      [
        () => s.client.tasks.create({ listName, subject: 'Bad', priority: 'P5' as never }),
        'Error: invalid task: `priority` must be one of P0, P1, P2, P3, P4 (got "P5").',
      ],
      [
        () => s.client.tasks.update({ listName, id: task.id, priority: 'high' as never }),
        'Error: invalid task: `priority` must be one of P0, P1, P2, P3, P4 (got "high").',
      ],
      [
        () => s.client.tasks.create({ listName, subject: 'Bad', labels: Array.from({ length: 11 }, (_, i) => `l${i}`) }),
        'Error: invalid task: `labels` may hold at most 10 labels (got 11).',
      ],
      [
        () => s.client.tasks.update({ listName, id: task.id, labels: ['x'.repeat(33)] }),
        `Error: invalid task: a label must be at most 32 characters (got 33: "${'x'.repeat(33)}"). At \`labels[0]\`.`,
      ],
      [
        () => s.client.tasks.update({ listName, id: task.id, labels: ['  '] }),
        'Error: invalid task: a label must not be empty. At `labels[0]`.',
      ],
      [
        () => s.client.tasks.list({ listName, priority: ['P9'] as never }),
        'Error: invalid input: `priority` must be one of P0, P1, P2, P3, P4, or a list of them (got an array of 1 item).',
      ],
    ];
    for (const [call, text] of cases) expect((await refused(call())).message).toBe(text);
    expect([await taskRows(), await changeRows()]).toEqual([tasksBefore, changesBefore]);
    expect(await s.client.tasks.get({ listName, id: task.id })).toMatchObject({ version: 1, labels: [] });
  });

  it('travel through the oh-my-opencode and Claude Code task files in metadata, and are read back on import', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    await s.client.tasks.create({ listName, subject: 'Tagged', priority: 'P1', labels: ['ui', 'api'], metadata: { keep: 1 } });
    await s.client.tasks.create({ listName, subject: 'Plain' });
    for (const format of ['sisyphus', 'claude'] as const) {
      const { files } = await s.client.tasks.export({ listName, format });
      const tagged = JSON.parse(files.find((f) => f.content.includes('Tagged'))?.content ?? '{}');
      // The tools' own task shapes have no such fields: the file carries them in metadata only.
      expect(tagged.priority).toBeUndefined();
      expect(tagged.labels).toBeUndefined();
      expect(tagged.metadata).toEqual({ keep: 1, priority: 'P1', labels: ['ui', 'api'] });
      const plain = JSON.parse(files.find((f) => f.content.includes('Plain'))?.content ?? '{}');
      expect(plain.metadata).toBeUndefined();

      const into = freshList();
      await s.client.tasks.import({ listName: into, format, files });
      const listed = await s.client.tasks.list({ listName: into });
      const back = await s.client.tasks.get({ listName: into, id: listed.tasks[0]?.id ?? '' });
      expect(back).toMatchObject({ subject: 'Tagged', priority: 'P1', labels: ['ui', 'api'], metadata: { keep: 1 } });
      expect((await s.client.tasks.export({ listName: into, format })).files.map((f) => f.content)).toEqual(
        format === 'claude' ? files.map((f) => f.content) : expect.any(Array),
      );
    }
  });
});

async function comments(client: AgentTasksClient, listName: string, id: string) {
  return (await client.tasks.get({ listName, id })).comments;
}

describe('comments', () => {
  it("people and agents comment; TaskGet lists the newest five with the count; authors are the key's name or the agent", async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const task = await s.client.tasks.create({ listName, subject: 'Discuss me' });
    const person = adminClient(server);
    const first = await person.tasks.comment({ listName, id: task.ref as string, body: '  Please keep the old API.  ' });
    expect(first).toMatchObject({ taskId: task.id, body: 'Please keep the old API.', by: 'person', author: 'first admin key' });
    const reply = await s.client.tasks.comment({ listName, id: task.id, body: 'Keeping it.' });
    expect(reply).toMatchObject({ by: 'agent', author: s.session.agentName ?? s.session.id });
    for (let i = 1; i <= 5; i++) await person.tasks.comment({ listName, id: task.id, body: `Note ${i}` });
    const shown = await comments(s.client, listName, task.id);
    expect(shown.count).toBe(7);
    expect(shown.newest.map((c) => c.body)).toEqual(['Note 5', 'Note 4', 'Note 3', 'Note 2', 'Note 1']);
    expect((await person.tasks.comments({ listName, id: task.id })).newest).toHaveLength(7);
    // A comment is not a change of the task: its version stays.
    expect((await s.client.tasks.get({ listName, id: task.id })).version).toBe(1);
  });

  it('refuses a viewer, an empty or long body, a missing or deleted task with exact texts, recording nothing', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const task = await s.client.tasks.create({ listName, subject: 'Commented' });
    const gone = await s.client.tasks.create({ listName, subject: 'Gone' });
    await s.client.tasks.update({ listName, id: gone.id, status: 'deleted' });
    const viewer = await keyClient(server, 'viewer');
    const before = await countRows(server, 'TaskComment');
    const cases: [() => Promise<unknown>, string][] = [
      [
        () => viewer.tasks.comment({ listName, id: task.id, body: 'Hi' }),
        'Error: forbidden: viewer keys are read-only (this key is viewer).',
      ],
      [() => s.client.tasks.comment({ listName, id: task.id, body: '   ' }), 'Error: invalid comment: `body` must not be empty.'],
      [
        () => s.client.tasks.comment({ listName, id: task.id, body: 'x'.repeat(4001) }),
        'Error: invalid comment: `body` must be at most 4000 characters (got 4001).',
      ],
      [() => s.client.tasks.comment({ listName, id: '#99', body: 'Hi' }), `Error: task #99 not found in list "${listName}".`],
      [() => s.client.tasks.comment({ listName, id: gone.id, body: 'Hi' }), `Error: task ${gone.id} is deleted; it can no longer change.`],
      [
        () => s.client.tasks.comment({ listName: 'no-such-list', id: task.id, body: 'Hi' }),
        'Error: task list "no-such-list" does not exist.',
      ],
    ];
    for (const [call, text] of cases) expect((await refused(call())).message).toBe(text);
    expect(await countRows(server, 'TaskComment')).toBe(before);
  });

  it('reach a live feed of the list as they are made', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const task = await s.client.tasks.create({ listName, subject: 'Watched' });
    await adminClient(server).tasks.comment({ listName, id: task.id, body: 'Before the feed' });
    const seen: string[] = [];
    // From the start: the recorded comment comes first, read after the feed listens (onStarted is the connection, not
    // the server listening), so the comment made on seeing it can only reach the feed live.
    const done = new Promise<void>((resolve, reject) => {
      const sub = s.client.tasks.watchComments(
        { listName, from: 'start' },
        {
          onData: (event) => {
            seen.push(`${event.data.author}: ${event.data.body}`);
            if (seen.length === 1) void adminClient(server).tasks.comment({ listName, id: task.id, body: 'Live one' }).catch(reject);
            else {
              sub.unsubscribe();
              resolve();
            }
          },
          onError: reject,
        },
      );
    });
    await done;
    expect(seen).toEqual(['first admin key: Before the feed', 'first admin key: Live one']);
  });

  it("a session takes people's unread comments once as 'Notes from people', then they are read for it", async () => {
    const s = await sessionClient(server);
    const other = await sessionClient(server);
    const listName = freshList();
    const task = await s.client.tasks.create({ listName, subject: 'Ship it' });
    await s.client.tasks.comment({ listName, id: task.id, body: 'An agent note is no note from people' });
    await adminClient(server).tasks.comment({ listName, id: task.ref as string, body: 'Use the staging database' });
    const taken = await s.client.tasks.takeNotes({ listName });
    expect(taken.text).toBe(`Notes from people:\n- ${task.ref} Ship it — first admin key: Use the staging database`);
    expect((await s.client.tasks.takeNotes({ listName })).notes).toEqual([]);
    // Read for that session only.
    expect((await other.client.tasks.takeNotes({ listName })).notes.map((n) => n.body)).toEqual(['Use the staging database']);
    await adminClient(server).tasks.comment({ listName, id: task.id, body: 'And run the migrations' });
    expect((await s.client.tasks.takeNotes({ listName })).text).toBe(
      `Notes from people:\n- ${task.ref} Ship it — first admin key: And run the migrations`,
    );
    expect(await adminClient(server).tasks.takeNotes({ listName })).toEqual({ notes: [], text: '' });
  });
});

describe('full-text search', () => {
  it('finds tasks by subject, description and comments, ranked and highlighted, kept up to date by every write', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const inSubject = await s.client.tasks.create({ listName, subject: 'Migrate the billing database', description: 'Postgres 16' });
    const inDescription = await s.client.tasks.create({ listName, subject: 'Weekly chores', description: 'Vacuum the billing tables' });
    const inComment = await s.client.tasks.create({ listName, subject: 'Refactor the router' });
    await adminClient(server).tasks.comment({ listName, id: inComment.id, body: 'This touches billing too' });
    const deleted = await s.client.tasks.create({ listName, subject: 'Billing draft' });
    await s.client.tasks.update({ listName, id: deleted.id, status: 'deleted' });

    const { hits } = await s.client.tasks.search({ listName, query: 'billing' });
    expect(hits.map((h) => h.id)).toEqual([inSubject.id, inDescription.id, inComment.id]);
    expect(hits[0]).toMatchObject({ ref: inSubject.ref, subject: 'Migrate the billing database', status: 'pending' });
    expect(hits[0]?.snippet).toContain('[billing]');
    expect(hits[2]?.snippet).toContain('[billing]');
    expect(hits[0]!.rank).toBeGreaterThan(hits[2]!.rank);

    // Prefixes, several words (all must match), punctuation taken as plain text.
    expect((await s.client.tasks.search({ listName, query: 'bill* "datab' })).hits.map((h) => h.id)).toEqual([inSubject.id]);
    expect((await s.client.tasks.search({ listName, query: 'AND OR NOT (' })).hits).toEqual([]);
    // An edit is searchable at once; what it replaced is not.
    await s.client.tasks.update({ listName, id: inDescription.id, description: 'Rotate the logs' });
    expect((await s.client.tasks.search({ listName, query: 'vacuum' })).hits).toEqual([]);
    expect((await s.client.tasks.search({ listName, query: 'rotate' })).hits.map((h) => h.id)).toEqual([inDescription.id]);
    // Other lists are not searched.
    expect((await s.client.tasks.search({ listName: freshList(), query: 'billing' })).hits).toEqual([]);

    // TaskList's query: the matching tasks, best first, with the other filters.
    expect((await s.client.tasks.list({ listName, query: 'billing' })).tasks.map((t) => t.id)).toEqual([inSubject.id, inComment.id]);
    const tools = Object.fromEntries(agentTools(s.client).map((t) => [t.name, t]));
    expect(await tools.TaskList?.handler({ listName, query: 'router' })).toMatch(/^#3 +\[pending\] Refactor the router +blockedBy: \[\]$/);
  });

  it('finds imported tasks, and refuses an empty or long query with exact texts', async () => {
    const s = await sessionClient(server);
    const listName = freshList();
    const files = [1, 2, 3].map((n) => ({
      name: `${n}.json`,
      content: JSON.stringify({
        id: String(n),
        subject: `Imported kumquat ${n}`,
        description: '',
        status: 'pending',
        blocks: [],
        blockedBy: [],
      }),
    }));
    await s.client.tasks.import({ listName, format: 'claude', files });
    expect((await s.client.tasks.search({ listName, query: 'kumquat' })).hits).toHaveLength(3);
    expect((await refused(s.client.tasks.search({ listName, query: '  ' }))).message).toBe(
      'Error: invalid input: `query` must not be empty.',
    );
    expect((await refused(s.client.tasks.search({ listName, query: 'x'.repeat(201) }))).message).toBe(
      'Error: invalid input: `query` must be at most 200 characters.',
    );
  });
});
