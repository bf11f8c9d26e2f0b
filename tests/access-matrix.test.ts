// Standing access matrix: every procedure of the router called by every kind of caller — no key, admin, agent,
// viewer and member keys, the session owning the resources, its subagent, another session of the workspace, a second workspace's
// admin and session, a revoked key and a session it opened — with inputs aimed at the owner's resources, against the
// one table of expected answers beside this file (access-matrix.table.ts). A refusal is a 4xx with an `Error:` text
// and no internals, and records nothing. `RECORD_MATRIX=1` rewrites the table from what the server answers (review the
// diff: it is the specification).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { procedureKinds } from '../apps/server/src/routers/procedure-kinds.ts';
import { ACTORS, type Actor, expected, formatGrid } from './access-matrix.table.ts';
import { adminClient, nameAndIntake } from './support/fixtures.ts';
import { rowCounts } from './support/database.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
const tokens = {} as Record<Actor, string>;
/** Ids of the resources the calls aim at (all the owner's, in the first workspace). */
const f = {
  owner: '',
  taskId: '',
  runId: '',
  intakeRunId: '',
  startAttemptId: '',
  keyId: '',
  channelId: '',
  doomedChannelId: '',
  messageId: '',
};

beforeAll(async () => {
  // The brake on failed authentications is tested elsewhere; here revoked keys fail on purpose many times.
  server = await startServer({
    env: { AGENT_TASKS_AUTH_FAILURES_PER_ADDRESS: '100000', AGENT_TASKS_AUTH_FAILURES_PER_KEY_PREFIX: '100000' },
  });
  const admin = adminClient(server);
  const key = async (role: 'agent' | 'viewer' | 'member') => (await admin.keys.create({ name: `matrix ${role}`, role })).token;
  const agent = await key('agent');
  const owner = await openSessionClient(createClient({ url: server.url, token: agent }), { title: 'owner' });
  const child = await openSessionClient(owner.client, { title: 'subagent' });
  const peer = await openSessionClient(createClient({ url: server.url, token: await key('agent') }), { title: 'peer' });
  const doomed = await admin.keys.create({ name: 'to be revoked', role: 'agent' });
  const doomedSession = await openSessionClient(createClient({ url: server.url, token: doomed.token }), { title: 'of a revoked key' });
  await admin.keys.revoke({ id: doomed.key.id });
  const other = await admin.workspaces.create({ name: 'second workspace' });
  const otherAdmin = createClient({ url: server.url, token: other.adminKey });
  const otherSession = await openSessionClient(
    createClient({ url: server.url, token: (await otherAdmin.keys.create({ name: 'a', role: 'agent' })).token }),
  );
  Object.assign(tokens, {
    anonymous: '',
    admin: server.adminKey,
    agentKey: agent,
    viewerKey: await key('viewer'),
    memberKey: await key('member'),
    owner: owner.token,
    subagent: child.token,
    peer: peer.token,
    otherAdmin: other.adminKey,
    otherSession: otherSession.token,
    revokedKey: doomed.token,
    revokedSession: doomedSession.token,
  } satisfies Record<Actor, string>);

  const s = owner.client;
  f.owner = owner.session.id;
  await s.todos.write({ todos: [{ content: 'Owner item', status: 'pending' }] });
  f.taskId = (await s.tasks.create({ listName: 'matrix', subject: 'Owner task' })).id;
  f.channelId = (await admin.channels.create({ name: 'matrix', url: 'http://127.0.0.1:9/matrix' })).id;
  const run = await s.runs.execute({ startAttemptId: (await s.runs.prepare({ parentExecutionId: 'none' })).startAttemptId });
  const tasks = [1, 2, 3, 4].map((n) => ({ action: `Step ${n}`, expected_result: `Step ${n} done` }));
  await nameAndIntake(s, { runId: run.id, name: 'Matrix run', progress_checklist_outcome: 'Four steps', tasks });
  f.runId = run.id;
  f.intakeRunId = (
    await s.runs.execute({
      startAttemptId: (await s.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true })).startAttemptId,
    })
  ).id;
  f.startAttemptId = (await s.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true })).startAttemptId;
  f.keyId = (await admin.keys.create({ name: 'revoke target', role: 'viewer' })).key.id;
  f.messageId = (await admin.trpc.dashboard.outbox.query({})).messages[0]?.id ?? '';
  // The channel the matrix deletes is not the one the run's notification and the test message go to.
  f.doomedChannelId = (await admin.channels.create({ name: 'to delete', url: 'http://127.0.0.1:9/doomed' })).id;
});
afterAll(() => server.stop());

const checklist = [{ action: 'Only', expected_result: 'Done' }];
/** The current step attempt of the owner's running run, read as an admin right before a call that needs it. */
const attemptOf = async (runId: string) => (await adminClient(server).runs.get({ runId })).attemptId ?? 'none';

/** Each procedure's input, aimed at the owner's resources (read when the call is made). */
const inputs: Record<string, () => unknown> = {
  'auth.streamTicket': () => undefined,
  'workspaces.whoami': () => undefined,
  'workspaces.create': () => ({ name: 'made by the matrix' }),
  'workspaces.settings': () => undefined,
  'workspaces.updateSettings': () => ({ oneActiveRule: true }),
  'keys.create': () => ({ name: 'made by the matrix', role: 'viewer' }),
  'keys.list': () => undefined,
  'keys.revoke': () => ({ id: f.keyId }),
  'sessions.open': () => ({ title: 'opened by the matrix' }),
  'sessions.list': () => undefined,
  'sessions.get': () => ({ sessionId: f.owner }),
  'sessions.startTurn': () => undefined,
  'sessions.endTurn': () => undefined,
  'todos.write': () => ({ todos: [{ content: 'Matrix', status: 'pending' }] }),
  'todos.mirror': () => ({ todos: [{ content: 'Mirrored', status: 'pending', activeForm: 'Mirroring' }] }),
  'todos.get': () => ({ sessionId: f.owner }),
  'todos.history': () => ({ sessionId: f.owner }),
  'todos.card': () => ({ sessionId: f.owner }),
  'todos.watch': () => ({ sessionId: f.owner, from: 'start' }),
  'tasks.create': () => ({ listName: 'matrix', subject: 'Matrix task' }),
  'tasks.get': () => ({ listName: 'matrix', id: f.taskId }),
  'tasks.list': () => ({ listName: 'matrix' }),
  'tasks.update': () => ({ listName: 'matrix', id: f.taskId, description: 'Updated by the matrix' }),
  'tasks.mirror': () => ({ listName: 'matrix', id: f.taskId, description: 'Mirrored by the matrix' }),
  'tasks.claim': () => ({ listName: 'matrix' }),
  'tasks.plan': () => ({ listName: 'matrix' }),
  'tasks.history': () => ({ listName: 'matrix', id: f.taskId }),
  'tasks.import': () => ({
    listName: 'matrix-import',
    format: 'claude',
    files: [
      {
        name: '1.json',
        content: JSON.stringify({ id: '1', subject: 'Imported', description: '', status: 'pending', blocks: [], blockedBy: [] }),
      },
    ],
  }),
  'tasks.export': () => ({ listName: 'matrix', format: 'sisyphus' }),
  'tasks.watch': () => ({ listName: 'matrix', from: 'start' }),
  'runs.prepare': () => ({ parentExecutionId: 'none', skipNotificationCheck: true }),
  'runs.execute': () => ({ startAttemptId: f.startAttemptId }),
  'runs.name': () => ({ runId: f.intakeRunId, name: 'Named by the matrix' }),
  'runs.intake': () => ({ runId: f.intakeRunId, tasks: checklist, progress_checklist_outcome: 'One step' }),
  'runs.step': async () => ({
    runId: f.runId,
    attemptId: await attemptOf(f.runId),
    evidence: 'Checked',
    progress_execution_outcome: 'Done',
  }),
  'runs.teleport': async () => ({ runId: f.runId, attemptId: await attemptOf(f.runId), teleportTo: 'teleport-revise-tasks' }),
  'runs.revise': async () => ({
    runId: f.runId,
    attemptId: await attemptOf(f.runId),
    tasks: [1, 2, 3, 4].map((n) => ({ action: `Step ${n}`, expected_result: `Step ${n} done` })),
    resume_from_task: 2,
    progress_checklist_outcome: 'Same steps',
    progress_execution_outcome: 'Step 1 done',
  }),
  'runs.reportBlocker': () => ({ runId: f.runId, blocker: null }),
  'runs.get': () => ({ runId: f.runId }),
  'runs.list': () => ({}),
  'runs.card': () => ({ runId: f.runId }),
  'runs.history': () => ({ runId: f.runId }),
  'runs.notifications': () => ({ runId: f.runId }),
  'runs.revokeLink': () => ({ runId: f.runId }),
  'runs.restoreLink': () => ({ runId: f.runId }),
  'runs.watch': () => ({ runId: f.runId, from: 'start' }),
  'channels.create': () => ({ name: 'matrix made', url: 'http://127.0.0.1:9/made' }),
  'channels.list': () => undefined,
  'channels.delete': () => ({ id: f.doomedChannelId }),
  'channels.sendTest': () => ({ id: f.channelId }),
  'channels.retryDelivery': () => ({ id: f.messageId }),
  'dashboard.sessionTree': () => undefined,
  'dashboard.watchSessions': () => ({}),
  'dashboard.taskLists': () => undefined,
  'dashboard.taskGraph': () => ({ listName: 'matrix' }),
  'dashboard.outbox': () => ({}),
  'dashboard.watchRunLink': () => ({ runId: f.runId }),
};

const procedures = Object.entries(procedureKinds()).map(([path, type]) => ({ path, type }));

/** One call as `token`; answers 'ok' or the refusal's app code (or HTTP status), with its text. */
async function call(procedure: { path: string; type: string }, token: string, input: unknown) {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const query = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), 5_000);
  try {
    const res =
      procedure.type === 'mutation'
        ? await fetch(`${server.url}/trpc/${procedure.path}`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: input === undefined ? undefined : JSON.stringify(input),
            signal: ac.signal,
          })
        : await fetch(`${server.url}/trpc/${procedure.path}${query}`, {
            headers: { ...headers, accept: procedure.type === 'subscription' ? 'text/event-stream' : 'application/json' },
            signal: ac.signal,
          });
    if (procedure.type !== 'subscription') {
      const text = await res.text();
      const body = JSON.parse(text) as { error?: { message: string; data: { appCode: string | null; httpStatus: number } } };
      if (!body.error) return { answer: 'ok', status: res.status, text, message: null };
      return { answer: body.error.data.appCode ?? `HTTP ${res.status}`, status: res.status, text, message: body.error.message };
    }
    const reader = res.body!.getReader();
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { answer: 'ended', status: res.status, text, message: null };
      text += new TextDecoder().decode(value);
      const error = /event: serialized-error\ndata: (.*)\n/.exec(text);
      if (error) {
        const e = JSON.parse(error[1]!) as { message: string; data: { appCode: string | null; httpStatus: number } };
        return { answer: e.data.appCode ?? `HTTP ${e.data.httpStatus}`, status: e.data.httpStatus, text, message: e.message };
      }
      // Connected with no refusal: the stream is open (a ping or data follows, or nothing yet).
      if (/event: connected/.test(text)) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        const more = await Promise.race([reader.read(), new Promise<null>((resolve) => setTimeout(() => resolve(null), 150))]);
        if (more && !more.done) text += new TextDecoder().decode(more.value);
        const late = /event: serialized-error\ndata: (.*)\n/.exec(text);
        if (!late) return { answer: 'ok', status: 200, text, message: null };
        const e = JSON.parse(late[1]!) as { message: string; data: { appCode: string | null; httpStatus: number } };
        return { answer: e.data.appCode ?? `HTTP ${e.data.httpStatus}`, status: e.data.httpStatus, text, message: e.message };
      }
    }
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
}

describe('the access matrix', () => {
  it(`every procedure × ${ACTORS.length} callers answers as the table says; refusals are clean and record nothing`, async () => {
    expect(procedures.map((p) => p.path).sort()).toEqual(Object.keys(inputs).sort());
    const recording = process.env.RECORD_MATRIX === '1';
    const actual: Record<string, Record<string, string>> = {};
    const mismatches: string[] = [];
    for (const procedure of procedures) {
      actual[procedure.path] = {};
      const table = expected[procedure.path];
      // Refusals first (they change nothing), then the callers allowed: a write that succeeds cannot spoil a refusal.
      const order = [...ACTORS].sort((a, b) => Number(table?.[a] === 'ok') - Number(table?.[b] === 'ok'));
      for (const actor of order) {
        const before = await rowCounts(server);
        const result = await call(procedure, tokens[actor], await inputs[procedure.path]?.());
        actual[procedure.path]![actor] = result.answer;
        if (!recording && table?.[actor] !== result.answer) {
          mismatches.push(`${procedure.path} as ${actor}: expected ${table?.[actor]}, got ${result.answer} (${result.message ?? ''})`);
        }
        if (result.answer !== 'ok' && result.answer !== 'ended') {
          expect(result.status, `${procedure.path} as ${actor}`).toBeGreaterThanOrEqual(400);
          expect(result.status, `${procedure.path} as ${actor}`).toBeLessThan(500);
          expect(result.message, `${procedure.path} as ${actor}`).toMatch(/^Error: /);
          expect(result.text).not.toMatch(/stack|\.ts\b|\.js:\d|node_modules|\bat \w+ \(|prisma|sqlite|SELECT/i);
          expect(await rowCounts(server), `${procedure.path} as ${actor} recorded something`).toEqual(before);
        }
      }
    }
    if (recording) {
      const file = path.join(import.meta.dirname, 'access-matrix.table.ts');
      const head = readFileSync(file, 'utf8').split('export const grid')[0];
      writeFileSync(file, `${head}export const grid = \`\n${formatGrid(actual)}\n\`;\n\nexport const expected = parseGrid(grid);\n`);
    }
    expect(mismatches).toEqual([]);
  }, 300_000);
});
