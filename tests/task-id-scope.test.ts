// Black-box tests of task ids scoped to their list (defect 11): the same sisyphus ids imported into two workspaces
// both succeed and each workspace reads and changes only its own tasks; a taken id is refused only in its own list.
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentTasksClient, adminClient, countRows, refused, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

const rows = async () => ({
  tasks: await countRows(server, 'Task'),
  edges: await countRows(server, 'TaskEdge'),
  changes: await countRows(server, 'TaskChange'),
});

/** An agent session in a workspace of its own. */
async function otherWorkspaceSession(name: string): Promise<AgentTasksClient> {
  const { adminKey } = await adminClient(server).workspaces.create({ name });
  const { token } = await createClient({ url: server.url, token: adminKey }).keys.create({ name: 'agent', role: 'agent' });
  return (await openSessionClient(createClient({ url: server.url, token }), { title: name })).client;
}

const sisyphusFile = (id: string, subject: string, fields: Record<string, unknown> = {}) => ({
  name: `${id}.json`,
  content: JSON.stringify({ id, subject, description: '', status: 'pending', blocks: [], blockedBy: [], ...fields }),
});

/** T-1 ← T-2 (T-2 waits on T-1), and T-3 alone; subjects name the workspace. */
const filesOf = (ids: string[], who: string) => [
  sisyphusFile(ids[0]!, `${who} first`),
  sisyphusFile(ids[1]!, `${who} second`, { blockedBy: [ids[0]] }),
  sisyphusFile(ids[2]!, `${who} third`),
];

let run = 0;
const freshIds = () => {
  const tag = `${++run}-${Math.random().toString(36).slice(2, 8)}`;
  return [`T-one-${tag}`, `T-two-${tag}`, `T-three-${tag}`];
};

describe('task ids are scoped to their list', () => {
  it('the same sisyphus ids import into two workspaces; each reads, changes and links only its own tasks', async () => {
    const a = (await sessionClient(server, 'workspace A')).client;
    const b = await otherWorkspaceSession('workspace B');
    const [one, two, three] = freshIds() as [string, string, string];
    const listName = 'shared-name';

    const first = await a.tasks.import({ listName, format: 'sisyphus', files: filesOf([one, two, three], 'A') });
    // Before the fix: "Error: invalid import: task … already exists." — an oracle on the other workspace's ids.
    const second = await b.tasks.import({ listName, format: 'sisyphus', files: filesOf([one, two, three], 'B') });
    expect(first).toEqual({ listName, imported: 3, ids: { [one]: one, [two]: two, [three]: three } });
    expect(second).toEqual(first);
    expect(await countRows(server, 'Task', '"id" = ?', one)).toBe(2);

    // Each sees only its own: TaskGet, TaskList.
    expect(await a.tasks.get({ listName, id: one })).toMatchObject({ id: one, subject: 'A first', blocks: [two], version: 1 });
    expect(await b.tasks.get({ listName, id: one })).toMatchObject({ id: one, subject: 'B first', blocks: [two], version: 1 });
    const listOf = async (c: AgentTasksClient) => (await c.tasks.list({ listName })).tasks.map((t) => [t.id, t.subject, t.blockedBy]);
    expect(await listOf(a)).toEqual([
      [one, 'A first', []],
      [two, 'A second', [one]],
      [three, 'A third', []],
    ]);
    expect(await listOf(b)).toEqual([
      [one, 'B first', []],
      [two, 'B second', [one]],
      [three, 'B third', []],
    ]);

    // TaskUpdate in B: fields, status and edges change there only.
    await b.tasks.update({ listName, id: one, subject: 'B first, renamed', status: 'completed' });
    await b.tasks.update({ listName, id: three, addBlockedBy: [two] });
    await b.tasks.update({ listName, id: two, removeBlockedBy: [one] });
    expect(await b.tasks.get({ listName, id: one })).toMatchObject({
      subject: 'B first, renamed',
      status: 'completed',
      blocks: [],
      version: 3,
    });
    expect(await b.tasks.get({ listName, id: three })).toMatchObject({ blockedBy: [two], version: 2 });
    expect(await a.tasks.get({ listName, id: one })).toMatchObject({ subject: 'A first', status: 'pending', blocks: [two], version: 1 });
    expect(await a.tasks.get({ listName, id: two })).toMatchObject({ blockedBy: [one], blocks: [], version: 1 });
    expect(await a.tasks.get({ listName, id: three })).toMatchObject({ blockedBy: [], version: 1 });

    // A cycle check walks A's own edges: in B, two → three exists, so three → two would close a cycle; in A it does not.
    await a.tasks.update({ listName, id: two, addBlockedBy: [three] });
    expect(await a.tasks.get({ listName, id: two })).toMatchObject({ blockedBy: [one, three] });
    const cycle = await refused(b.tasks.update({ listName, id: two, addBlockedBy: [three] }));
    expect(cycle.message).toBe(`Error: invalid dependency: it would close a cycle ${two} → ${three} → ${two}.`);

    // Readiness and claims: in A, the second still waits on the first (B's completed one does not count); in B it is ready.
    expect((await a.tasks.list({ listName, readyOnly: true })).tasks.map((t) => t.id)).toEqual([one, three]);
    expect((await b.tasks.list({ listName, readyOnly: true })).tasks.map((t) => t.id)).toEqual([two]);
    expect((await a.tasks.claim({ listName, owner: 'agent-a' })).task).toMatchObject({ id: one, subject: 'A first', owner: 'agent-a' });
    const untouched = await b.tasks.get({ listName, id: one });
    expect(untouched).toMatchObject({ subject: 'B first, renamed', status: 'completed', version: 3 });
    expect(untouched.owner).toBeUndefined();

    // History and the plan are per workspace too.
    expect((await a.tasks.history({ listName, id: one })).changes.map((c) => c.kind)).toEqual(['imported', 'claimed']);
    expect((await b.tasks.history({ listName, id: one })).changes.map((c) => c.kind)).toEqual(['imported', 'updated', 'updated']);
    expect((await b.tasks.plan({ listName })).waves).toEqual([[two], [three]]);
  });

  it('an id taken in the same list is refused with the exact text, nothing recorded; another list of the workspace takes it', async () => {
    const { client } = await sessionClient(server, 'same list');
    const [one, two, three] = freshIds() as [string, string, string];
    const listName = 'duplicates';
    await client.tasks.import({ listName, format: 'sisyphus', files: filesOf([one, two, three], 'first') });

    const before = await rows();
    const fresh = `T-fresh-${run}`;
    const taken = await refused(
      client.tasks.import({ listName, format: 'sisyphus', files: [sisyphusFile(fresh, 'new'), sisyphusFile(two, 'again')] }),
    );
    expect(taken.message).toBe(`Error: invalid import: task ${two} already exists.`);
    expect(taken.code).toBe('INVALID_IMPORT');
    expect(await rows()).toEqual(before);
    expect((await refused(client.tasks.get({ listName, id: fresh }))).message).toBe(
      `Error: task ${fresh} not found in list "${listName}".`,
    );

    const elsewhere = await client.tasks.import({
      listName: 'another-list',
      format: 'sisyphus',
      files: filesOf([one, two, three], 'second'),
    });
    expect(elsewhere.imported).toBe(3);
    expect(await client.tasks.get({ listName: 'another-list', id: two })).toMatchObject({ subject: 'second second', blockedBy: [one] });
    expect(await client.tasks.get({ listName, id: two })).toMatchObject({ subject: 'first second', blockedBy: [one] });
  });
});
