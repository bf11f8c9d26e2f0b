// Black-box tests of a checklist run's notifications (seed 002): admin-managed webhook channels, the refusal to start
// without one, the exact "Checklist ready" / "All tasks done" messages and their run-page link, and delivery through
// the durable outbox (retries with backoff, a receiver that is down at first, a server restart), against a real server
// child process and real node:http receivers on 127.0.0.1.
import { type AgentTasksClient, createClient, openSessionClient } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, countRows, newWorkspace as workspace, refused } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { type ReceivedHook, type WebhookReceiver, startReceiver, waitFor } from './support/webhook-receiver.ts';
import { guardMs } from './support/time-guard.ts';

/** Short delivery timings: first retry after 100 ms, doubling up to 400 ms; the outbox is polled every 50 ms. */
const FAST_DELIVERY = { AGENT_TASKS_RETRY_BASE_MS: '100', AGENT_TASKS_RETRY_MAX_MS: '400', AGENT_TASKS_OUTBOX_POLL_MS: '50' };

const NO_CHANNEL =
  'Error: Todo List notifies when the checklist is ready and when all tasks are done, but this workspace has no notification channel. Ask an admin to add one, or prepare the start again with skipNotificationCheck: true.';

interface Payload {
  kind: 'checklist_ready' | 'all_tasks_done';
  flow: string;
  title: string;
  heading: string;
  run: { id: string; name: string | null; url: string };
  checklist: { position: number; mark: string; action: string }[];
  moves: { task: number; from: number; to: number; because: string }[];
  text: string;
  idempotencyKey: string;
}

let server: RunningServer;
const receivers: WebhookReceiver[] = [];
const extraServers: RunningServer[] = [];

beforeAll(async () => {
  server = await startServer({ env: FAST_DELIVERY });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.down()));
  await Promise.all(extraServers.map((s) => s.stop()));
  await server?.stop();
});

async function receiver(options: { down?: boolean } = {}) {
  const r = await startReceiver(options);
  receivers.push(r);
  return r;
}

const checklist = (...actions: string[]) => actions.map((action) => ({ action, expected_result: `${action}: verified` }));

async function startRun(s: AgentTasksClient, options: { parent?: string; skip?: boolean } = {}) {
  const { startAttemptId } = await s.runs.prepare({
    parentExecutionId: options.parent ?? 'none',
    ...(options.skip ? { skipNotificationCheck: true } : {}),
  });
  return s.runs.execute({ startAttemptId });
}

async function intake(s: AgentTasksClient, runId: string, name: string, actions: string[]) {
  await s.runs.name({ runId, name });
  return s.runs.intake({ runId, tasks: checklist(...actions), progress_checklist_outcome: `${actions.length} ordered tasks are ready` });
}

/** Acknowledges tasks `from`..`to` in turn. */
async function steps(s: AgentTasksClient, runId: string, from: number, to: number) {
  let view = await s.runs.get({ runId });
  for (let task = from; task <= to; task++) {
    view = await s.runs.step({
      runId,
      attemptId: view.attemptId ?? '',
      task,
      evidence: `Task ${task} checked.`,
      progress_execution_outcome: `Task ${task} is done`,
    });
  }
  return view;
}

const payloadOf = (hook: ReceivedHook) => hook.body as Payload;

/** The requests `r` received for one run (and kind), in arrival order. */
const hooksFor = (r: WebhookReceiver, runId: string, kind?: Payload['kind']) =>
  r.received.filter((h) => payloadOf(h)?.run?.id === runId && (kind === undefined || payloadOf(h).kind === kind));
const acceptedFor = (r: WebhookReceiver, runId: string, kind?: Payload['kind']) =>
  hooksFor(r, runId, kind).filter((h) => h.status >= 200 && h.status < 300);

/** Waits until the receiver accepted the run's message of this kind, and returns it. */
const accepted = (r: WebhookReceiver, runId: string, kind: Payload['kind']) =>
  waitFor(`${kind} of ${runId} accepted by ${r.url}`, () => acceptedFor(r, runId, kind)[0]);

/** Waits until the outbox reports every message of the run delivered (and at least `count` of them). */
const allDelivered = (s: AgentTasksClient, runId: string, count: number) =>
  waitFor(`${count} delivered notifications of ${runId}`, async () => {
    const { notifications } = await s.runs.notifications({ runId });
    return notifications.length >= count && notifications.every((n) => n.delivered) ? notifications : null;
  });

function expectWellFormedPost(hook: ReceivedHook) {
  expect(hook.method).toBe('POST');
  expect(hook.path).toBe('/hook');
  expect(hook.headers['content-type']).toMatch(/^application\/json/);
  expect(hook.headers['idempotency-key']).toBe(payloadOf(hook).idempotencyKey);
  expect(payloadOf(hook).idempotencyKey).toEqual(expect.any(String));
  expect(payloadOf(hook).idempotencyKey.length).toBeGreaterThan(0);
}

describe('notification channels (admin-managed)', () => {
  it('an admin creates, lists and deletes channels; each workspace sees only its own', async () => {
    const w = await workspace(server, 'channels-admin');
    const other = await workspace(server, 'channels-other');
    expect(await w.admin.channels.list()).toEqual({ channels: [] });

    const first = await w.admin.channels.create({ name: 'Team hook', url: 'http://127.0.0.1:9/team' });
    // A channel created without a kind is a webhook (today's JSON).
    expect(first).toEqual({
      id: expect.any(String),
      name: 'Team hook',
      kind: 'webhook',
      url: 'http://127.0.0.1:9/team',
      createdAt: expect.any(String),
    });
    expect(Number.isNaN(Date.parse(first.createdAt))).toBe(false);
    const second = await w.admin.channels.create({ name: 'Ops hook', url: 'http://127.0.0.1:9/ops?x=1' });
    expect((await w.admin.channels.list()).channels).toEqual([first, second]);
    expect(await countRows(server, 'NotificationChannel', '"workspaceId" = ?', w.id)).toBe(2);

    // Another workspace neither sees nor deletes them.
    expect(await other.admin.channels.list()).toEqual({ channels: [] });
    const foreign = await refused(other.admin.channels.delete({ id: first.id }));
    expect(foreign).toMatchObject({ code: 'NOT_FOUND', message: `Error: notification channel ${first.id} not found.` });

    expect(await w.admin.channels.delete({ id: first.id })).toEqual({ channels: [second] });
    expect((await w.admin.channels.list()).channels).toEqual([second]);
    const again = await refused(w.admin.channels.delete({ id: first.id }));
    expect(again).toMatchObject({ code: 'NOT_FOUND', message: `Error: notification channel ${first.id} not found.` });
    expect(await countRows(server, 'NotificationChannel', '"workspaceId" = ?', w.id)).toBe(1);
  });

  it('agent keys, sessions and viewers are refused with FORBIDDEN, and nothing is recorded', async () => {
    const w = await workspace(server, 'channels-forbidden');
    const kept = await w.admin.channels.create({ name: 'Kept', url: 'http://127.0.0.1:9/kept' });
    const before = await countRows(server, 'NotificationChannel');
    const agentText = 'Error: forbidden: this call needs an admin key (this key is agent).';
    const viewerText = 'Error: forbidden: viewer keys are read-only (this key is viewer).';
    for (const [who, client, text] of [
      ['agent key', w.agent, agentText],
      ['session', w.session, agentText],
      ['viewer key', w.viewer, viewerText],
    ] as const) {
      const create = await refused(client.channels.create({ name: `By ${who}`, url: 'http://127.0.0.1:9/nope' }));
      expect(create, who).toMatchObject({ code: 'FORBIDDEN', message: text, httpStatus: 403 });
      const list = await refused(client.channels.list());
      expect(list, who).toMatchObject({ code: 'FORBIDDEN', message: text });
      const del = await refused(client.channels.delete({ id: kept.id }));
      expect(del, who).toMatchObject({ code: 'FORBIDDEN', message: text });
    }
    expect(await countRows(server, 'NotificationChannel')).toBe(before);
    expect((await w.admin.channels.list()).channels).toEqual([kept]);
  });

  it('a URL that is not an http(s) URL is refused with its exact text, and nothing is recorded', async () => {
    const w = await workspace(server, 'channels-bad-url');
    const before = await countRows(server, 'NotificationChannel');
    for (const url of ['not a url', 'ftp://127.0.0.1/hook', 'javascript:alert(1)', '']) {
      const refusal = await refused(w.admin.channels.create({ name: 'Bad', url }));
      expect(refusal, url).toMatchObject({ code: 'INVALID_INPUT', message: 'Error: invalid input: `url` must be an http(s) URL.' });
    }
    const long = await refused(w.admin.channels.create({ name: 'Long', url: `http://127.0.0.1/${'a'.repeat(2000)}` }));
    expect(long).toMatchObject({ code: 'INVALID_INPUT', message: 'Error: invalid input: `url` must be at most 2000 characters.' });
    expect(await countRows(server, 'NotificationChannel')).toBe(before);
    expect(await w.admin.channels.list()).toEqual({ channels: [] });
  });
});

describe('a run start needs a notification channel', () => {
  it('prepare is refused without a channel, naming skipNotificationCheck: true, and records nothing', async () => {
    const w = await workspace(server, 'no-channel');
    const refusal = await refused(w.session.runs.prepare({ parentExecutionId: 'none' }));
    expect(refusal).toMatchObject({ code: 'NO_CHANNEL', message: NO_CHANNEL });
    const explicit = await refused(w.session.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: false }));
    expect(explicit).toMatchObject({ code: 'NO_CHANNEL', message: NO_CHANNEL });
    expect(await countRows(server, 'RunStart', '"workspaceId" = ?', w.id)).toBe(0);
    expect(await countRows(server, 'Run', '"workspaceId" = ?', w.id)).toBe(0);
    expect(await countRows(server, 'OutboxMessage', '"workspaceId" = ?', w.id)).toBe(0);

    // Once an admin adds a channel, prepare works; after the last channel is deleted it is refused again.
    const channel = await w.admin.channels.create({ name: 'Hook', url: 'http://127.0.0.1:9/hook' });
    expect((await w.session.runs.prepare({ parentExecutionId: 'none' })).startAttemptId).toEqual(expect.any(String));
    expect(await countRows(server, 'RunStart', '"workspaceId" = ?', w.id)).toBe(1);
    await w.admin.channels.delete({ id: channel.id });
    expect(await refused(w.session.runs.prepare({ parentExecutionId: 'none' }))).toMatchObject({ code: 'NO_CHANNEL', message: NO_CHANNEL });
    expect(await countRows(server, 'RunStart', '"workspaceId" = ?', w.id)).toBe(1);
  });

  it('with skipNotificationCheck: true the run starts and completes, and no notification is queued', async () => {
    const w = await workspace(server, 'skip-check');
    const run = await startRun(w.session, { skip: true });
    expect(run).toMatchObject({ status: 'intake', parentRunId: null });
    await intake(w.session, run.id, 'Quiet run', ['Only task']);
    const done = await steps(w.session, run.id, 1, 1);
    expect(done).toMatchObject({ status: 'completed', output: {} });
    expect(await w.session.runs.notifications({ runId: run.id })).toEqual({ notifications: [] });
    expect(await countRows(server, 'OutboxMessage', '"workspaceId" = ?', w.id)).toBe(0);

    // A child of that run is refused the same way without the flag, and starts with it (still queuing nothing).
    const child = await refused(w.session.runs.prepare({ parentExecutionId: run.id }));
    expect(child).toMatchObject({ code: 'NO_CHANNEL', message: NO_CHANNEL });
    expect(await countRows(server, 'RunStart', '"workspaceId" = ?', w.id)).toBe(1);
    const quietChild = await startRun(w.session, { parent: run.id, skip: true });
    expect(quietChild.parentRunId).toBe(run.id);
    await intake(w.session, quietChild.id, 'Quiet child', ['Child task']);
    await steps(w.session, quietChild.id, 1, 1);
    expect(await countRows(server, 'OutboxMessage', '"workspaceId" = ?', w.id)).toBe(0);
  });
});

describe('the two notifications', () => {
  it('"Checklist ready" and "All tasks done": exact text, marks, heading and a link that answers the run view', async () => {
    const w = await workspace(server, 'messages');
    const hook = await receiver();
    const channel = await w.admin.channels.create({ name: 'Team hook', url: hook.url });
    const run = await startRun(w.session);
    expect(await w.session.runs.notifications({ runId: run.id })).toEqual({ notifications: [] });
    const link = `${server.url}/runs/${run.id}`;
    const heading = 'Todo List · Ship the release notes';
    const actions = ['Draft the notes', 'Review the notes', 'Publish the notes'];
    /** The post is well formed and carries the heading, the title, the checklist with these marks and the link; its text too, line by line. */
    const expectPosted = (post: ReceivedHook, kind: Payload['kind'], title: string, marks: string[]) => {
      expectWellFormedPost(post);
      const checklist = actions.map((action, i) => ({ position: i + 1, mark: marks[i], action }));
      expect(payloadOf(post)).toMatchObject({
        kind,
        flow: 'Todo List',
        title,
        heading,
        run: { id: run.id, name: 'Ship the release notes', url: link },
        checklist,
      });
      // As Moira writes it: the heading linked to the run page, the title, the progress line, then the checklist.
      const done = marks.filter((m) => m === '✓').length;
      expect(payloadOf(post).text).toBe(
        [`[${heading}](${link})`, title, `📝 ${done}/3`, ...checklist.map((c) => `${c.mark} ${c.position}. ${c.action}`)].join('\n'),
      );
      expect(payloadOf(post).text.startsWith(`[Todo List · Ship the release notes](${link})\n`)).toBe(true);
    };

    await intake(w.session, run.id, 'Ship the release notes', actions);
    const ready = await accepted(hook, run.id, 'checklist_ready');
    expectPosted(ready, 'checklist_ready', 'Checklist ready', ['▶', '○', '○']);

    // Nothing more until the last task is acknowledged.
    await steps(w.session, run.id, 1, 2);
    expect((await w.session.runs.notifications({ runId: run.id })).notifications.map((n) => n.kind)).toEqual(['checklist_ready']);
    const completed = await steps(w.session, run.id, 3, 3);
    expect(completed.status).toBe('completed');

    const done = await accepted(hook, run.id, 'all_tasks_done');
    expectPosted(done, 'all_tasks_done', 'All tasks done', ['✓', '✓', '✓']);
    expect(payloadOf(done).idempotencyKey).not.toBe(payloadOf(ready).idempotencyKey);

    expect(await allDelivered(w.session, run.id, 2)).toEqual([
      { kind: 'checklist_ready', channelId: channel.id, attempts: 1, delivered: true, lastError: null },
      { kind: 'all_tasks_done', channelId: channel.id, attempts: 1, delivered: true, lastError: null },
    ]);
    expect(hooksFor(hook, run.id)).toHaveLength(2);

    // The link, fetched over HTTP without any key, answers the run's view as JSON.
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await page.json()).toEqual(await w.session.runs.get({ runId: run.id }));
    expect((await fetch(`${server.url}/runs/run_does_not_exist`)).status).toBe(404);
  });

  it('"Checklist ready" shows the checklist in its executed order, ▶ on the task work starts with, and each move', async () => {
    const w = await workspace(server, 'ordered');
    const hook = await receiver();
    await w.admin.channels.create({ name: 'Hook', url: hook.url });
    const run = await startRun(w.session);
    await w.session.runs.name({ runId: run.id, name: 'Migrate safely' });
    const view = await w.session.runs.intake({
      runId: run.id,
      tasks: checklist('Run the migration', 'Back up the database', 'Check the row counts'),
      needs: [{ task: 1, needs: [2] }],
      progress_checklist_outcome: 'Three tasks, backup first',
    });
    expect(view.tasks.map((t) => t.action)).toEqual(['Back up the database', 'Run the migration', 'Check the row counts']);
    const ready = await accepted(hook, run.id, 'checklist_ready');
    expect(payloadOf(ready).text).toBe(
      [
        `[Todo List · Migrate safely](${server.url}/runs/${run.id})`,
        'Checklist ready',
        '📝 0/3',
        '▶ 1. Back up the database',
        '○ 2. Run the migration',
        '○ 3. Check the row counts',
        'Order changed from the written list:',
        '- written task 1 moved to position 2: task 1 needs the result of task 2 (Back up the database)',
      ].join('\n'),
    );
    expect(payloadOf(ready)).toMatchObject({ moves: view.moves });
  });

  it('"All tasks done" after a revision lists the revised checklist (and the revised name)', async () => {
    const w = await workspace(server, 'revised');
    const hook = await receiver();
    await w.admin.channels.create({ name: 'Hook', url: hook.url });
    const link = (id: string) => `${server.url}/runs/${id}`;

    // A revision that replaces the remaining tasks, then work through the revised list.
    const run = await startRun(w.session);
    await intake(w.session, run.id, 'Fix the config', ['Inspect the config', 'Restart the service', 'Close the ticket']);
    await steps(w.session, run.id, 1, 1);
    await w.session.runs.teleport({ runId: run.id, teleportTo: 'teleport-revise-tasks' });
    await w.session.runs.name({ runId: run.id, name: 'Repair the config' });
    await w.session.runs.revise({
      runId: run.id,
      tasks: checklist('Inspect the config', 'Repair the config', 'Restart the service', 'Close the ticket'),
      resume_from_task: 2,
      progress_checklist_outcome: 'The corrected list keeps the first task and adds a repair',
      progress_execution_outcome: 'The first task remains verified',
    });
    expect((await steps(w.session, run.id, 2, 4)).status).toBe('completed');
    const done = await accepted(hook, run.id, 'all_tasks_done');
    expect(payloadOf(done).text).toBe(
      [
        `[Todo List · Repair the config](${link(run.id)})`,
        'All tasks done',
        '📝 4/4',
        '✓ 1. Inspect the config',
        '✓ 2. Repair the config',
        '✓ 3. Restart the service',
        '✓ 4. Close the ticket',
      ].join('\n'),
    );
    expect(payloadOf(done)).toMatchObject({ heading: 'Todo List · Repair the config', run: { name: 'Repair the config' } });
    // The revision itself sent nothing new: the earlier "Checklist ready" (original list) is the only other message.
    await allDelivered(w.session, run.id, 2);
    expect((await w.session.runs.notifications({ runId: run.id })).notifications.map((n) => n.kind)).toEqual([
      'checklist_ready',
      'all_tasks_done',
    ]);
    expect(payloadOf(acceptedFor(hook, run.id, 'checklist_ready')[0] as ReceivedHook).text).toBe(
      [
        `[Todo List · Fix the config](${link(run.id)})`,
        'Checklist ready',
        '📝 0/3',
        '▶ 1. Inspect the config',
        '○ 2. Restart the service',
        '○ 3. Close the ticket',
      ].join('\n'),
    );

    // A revision that drops the whole unfinished tail completes the run: "All tasks done" lists only what remains.
    const cut = await startRun(w.session);
    await intake(w.session, cut.id, 'Trim the backlog', ['Sort the backlog', 'Archive stale items', 'Email the team']);
    await steps(w.session, cut.id, 1, 1);
    const revised = await w.session.runs.revise({
      runId: cut.id,
      tasks: checklist('Sort the backlog'),
      resume_from_task: 2,
      progress_checklist_outcome: 'Only the sorting was needed',
      progress_execution_outcome: 'The backlog is sorted',
    });
    expect(revised.status).toBe('completed');
    const cutDone = await accepted(hook, cut.id, 'all_tasks_done');
    expect(payloadOf(cutDone).text).toBe(
      [`[Todo List · Trim the backlog](${link(cut.id)})`, 'All tasks done', '📝 1/1', '✓ 1. Sort the backlog'].join('\n'),
    );
    expect(payloadOf(cutDone).checklist).toEqual([{ position: 1, mark: '✓', action: 'Sort the backlog' }]);
  });

  it('a child run (parentExecutionId = the parent run id) notifies like a top-level run', async () => {
    const w = await workspace(server, 'child');
    const hook = await receiver();
    const channel = await w.admin.channels.create({ name: 'Hook', url: hook.url });
    const parent = await startRun(w.session);
    await intake(w.session, parent.id, 'Release 2.0', ['Run the child checklist', 'Tag the release']);

    const child = await startRun(w.session, { parent: parent.id });
    expect(child.parentRunId).toBe(parent.id);
    await intake(w.session, child.id, 'Verify requirements', ['Check requirement A', 'Check requirement B']);
    const ready = await accepted(hook, child.id, 'checklist_ready');
    expectWellFormedPost(ready);
    const link = `${server.url}/runs/${child.id}`;
    expect(payloadOf(ready).text).toBe(
      [
        `[Todo List · Verify requirements](${link})`,
        'Checklist ready',
        '📝 0/2',
        '▶ 1. Check requirement A',
        '○ 2. Check requirement B',
      ].join('\n'),
    );
    expect(payloadOf(ready).run).toEqual({ id: child.id, name: 'Verify requirements', url: link });

    await steps(w.session, child.id, 1, 2);
    const done = await accepted(hook, child.id, 'all_tasks_done');
    expect(payloadOf(done).text).toBe(
      [
        `[Todo List · Verify requirements](${link})`,
        'All tasks done',
        '📝 2/2',
        '✓ 1. Check requirement A',
        '✓ 2. Check requirement B',
      ].join('\n'),
    );
    expect(await allDelivered(w.session, child.id, 2)).toEqual([
      { kind: 'checklist_ready', channelId: channel.id, attempts: 1, delivered: true, lastError: null },
      { kind: 'all_tasks_done', channelId: channel.id, attempts: 1, delivered: true, lastError: null },
    ]);
    const page = await fetch(link);
    expect(((await page.json()) as { parentRunId: string }).parentRunId).toBe(parent.id);

    // The parent's own notifications are separate: its "Checklist ready" only, so far.
    await accepted(hook, parent.id, 'checklist_ready');
    expect(hooksFor(hook, parent.id).map((h) => payloadOf(h).kind)).toEqual(['checklist_ready']);
  });

  it('with two channels, each channel receives each message once, under its own idempotency key', async () => {
    const w = await workspace(server, 'two-channels');
    const [a, b] = [await receiver(), await receiver()];
    const channelA = await w.admin.channels.create({ name: 'A', url: a.url });
    const channelB = await w.admin.channels.create({ name: 'B', url: b.url });
    const run = await startRun(w.session);
    await intake(w.session, run.id, 'Two audiences', ['First', 'Second']);
    await steps(w.session, run.id, 1, 2);

    const notifications = await allDelivered(w.session, run.id, 4);
    expect(notifications).toHaveLength(4);
    expect(notifications.map((n) => `${n.kind}@${n.channelId}`).sort()).toEqual(
      [
        `checklist_ready@${channelA.id}`,
        `checklist_ready@${channelB.id}`,
        `all_tasks_done@${channelA.id}`,
        `all_tasks_done@${channelB.id}`,
      ].sort(),
    );
    for (const r of [a, b]) {
      expect(acceptedFor(r, run.id, 'checklist_ready')).toHaveLength(1);
      expect(acceptedFor(r, run.id, 'all_tasks_done')).toHaveLength(1);
      for (const h of hooksFor(r, run.id)) expectWellFormedPost(h);
    }
    for (const kind of ['checklist_ready', 'all_tasks_done'] as const) {
      const [ha, hb] = [acceptedFor(a, run.id, kind)[0] as ReceivedHook, acceptedFor(b, run.id, kind)[0] as ReceivedHook];
      expect(payloadOf(ha).text).toBe(payloadOf(hb).text);
      expect(payloadOf(ha).idempotencyKey).not.toBe(payloadOf(hb).idempotencyKey);
    }
    const keys = [a, b].flatMap((r) => hooksFor(r, run.id).map((h) => payloadOf(h).idempotencyKey));
    expect(new Set(keys).size).toBe(4);
  });
});

describe('delivery through the durable outbox', () => {
  it('a receiver answering 500 is retried with backoff; once it accepts, the message is delivered once, under the same key', async () => {
    const w = await workspace(server, 'retry-500');
    const hook = await receiver();
    let failing = true;
    hook.respond = () => (failing ? 500 : 200);
    const channel = await w.admin.channels.create({ name: 'Flaky', url: hook.url });
    const run = await startRun(w.session);
    await intake(w.session, run.id, 'Flaky receiver', ['One', 'Two']);

    // Three refused attempts, spaced by the growing backoff (100 ms, then 200 ms), not by the 50 ms poll.
    await waitFor('three refused attempts', () => hooksFor(hook, run.id, 'checklist_ready').length >= 3);
    const pending = await waitFor('the failures recorded', async () => {
      const [n] = (await w.admin.runs.notifications({ runId: run.id })).notifications;
      return n && n.attempts >= 2 ? n : null;
    });
    expect(pending).toMatchObject({ kind: 'checklist_ready', channelId: channel.id, delivered: false, lastError: 'HTTP 500' });
    // Why a delivery failed is for admins: the run's own session reads the attempts, not the error.
    expect((await w.session.runs.notifications({ runId: run.id })).notifications[0]).toMatchObject({ delivered: false, lastError: null });
    failing = false;

    const ok = await accepted(hook, run.id, 'checklist_ready');
    const all = hooksFor(hook, run.id, 'checklist_ready');
    const failures = all.filter((h) => h.status === 500);
    expect(failures.length).toBeGreaterThanOrEqual(3);
    expect(all.at(-1)).toBe(ok);
    const [t0, t1, t2] = failures.map((h) => h.at) as [number, number, number];
    expect(t1 - t0).toBeGreaterThanOrEqual(95);
    expect(t2 - t1).toBeGreaterThanOrEqual(195);

    // The idempotency key (header and payload) and the body are the same on every attempt.
    const key = payloadOf(ok).idempotencyKey;
    for (const h of all) {
      expectWellFormedPost(h);
      expect(h.headers['idempotency-key']).toBe(key);
      expect(h.raw).toBe(ok.raw);
    }

    const [delivered] = await allDelivered(w.session, run.id, 1);
    expect(delivered).toMatchObject({ kind: 'checklist_ready', channelId: channel.id, delivered: true });
    expect(delivered?.attempts).toBe(all.length); // every try counts, the accepted one included
    // Accepted means done: no further attempt for that message.
    const seen = all.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hooksFor(hook, run.id, 'checklist_ready')).toHaveLength(seen);
    expect(acceptedFor(hook, run.id, 'checklist_ready')).toHaveLength(1);

    // The next message goes through on its first attempt.
    await steps(w.session, run.id, 1, 2);
    await accepted(hook, run.id, 'all_tasks_done');
    const notifications = await allDelivered(w.session, run.id, 2);
    expect(notifications[1]).toEqual({ kind: 'all_tasks_done', channelId: channel.id, attempts: 1, delivered: true, lastError: null });
    expect(hooksFor(hook, run.id, 'all_tasks_done')).toHaveLength(1);
  });

  it('a receiver that is down at first (port closed) gets the message once it comes up', async () => {
    const w = await workspace(server, 'down-first');
    const hook = await receiver({ down: true });
    const channel = await w.admin.channels.create({ name: 'Sleepy', url: hook.url });
    const run = await startRun(w.session);
    await intake(w.session, run.id, 'Receiver comes up late', ['Only task']);

    const pending = await waitFor('two failed attempts', async () => {
      const [n] = (await w.admin.runs.notifications({ runId: run.id })).notifications;
      return n && n.attempts >= 2 ? n : null;
    });
    expect(pending).toMatchObject({ kind: 'checklist_ready', channelId: channel.id, delivered: false, lastError: 'connection refused' });
    expect(hook.received).toHaveLength(0);

    await hook.up();
    const ready = await accepted(hook, run.id, 'checklist_ready');
    expectWellFormedPost(ready);
    expect(payloadOf(ready).text).toBe(
      [`[Todo List · Receiver comes up late](${server.url}/runs/${run.id})`, 'Checklist ready', '📝 0/1', '▶ 1. Only task'].join('\n'),
    );
    const [delivered] = await allDelivered(w.session, run.id, 1);
    expect(delivered).toMatchObject({ kind: 'checklist_ready', delivered: true });
    expect(delivered?.attempts).toBeGreaterThanOrEqual(2);
    expect(hooksFor(hook, run.id)).toHaveLength(1);
  });

  it("a channel's queue drains at the receiver's pace, not one message per poll", async () => {
    // Polls 3 s apart: once the receiver is up, four queued messages of one channel go out back to back.
    const slowPoll = await startServer({ env: { ...FAST_DELIVERY, AGENT_TASKS_OUTBOX_POLL_MS: '3000' } });
    extraServers.push(slowPoll);
    const hook = await receiver({ down: true });
    const admin = adminClient(slowPoll);
    await admin.channels.create({ name: 'Queue', url: hook.url });
    const agent = createClient({ url: slowPoll.url, token: (await admin.keys.create({ name: 'agent', role: 'agent' })).token });
    const { client } = await openSessionClient(agent, { title: 'queue' });
    const runIds: string[] = [];
    for (let i = 1; i <= 4; i++) {
      const run = await startRun(client);
      await intake(client, run.id, `Queued ${i}`, ['Only task']);
      runIds.push(run.id);
    }
    await waitFor(
      'a failed attempt',
      async () => {
        const [n] = (await client.runs.notifications({ runId: runIds[0]! })).notifications;
        return n && n.attempts >= 1 && !n.delivered;
      },
      10_000,
    );
    await hook.up();
    const arrivals = await waitFor(
      'all four accepted',
      () => {
        const got = runIds.map((id) => acceptedFor(hook, id, 'checklist_ready')[0]);
        return got.every(Boolean) ? (got as ReceivedHook[]) : null;
      },
      20_000,
    );
    // In order, the channel's one lane at a time.
    const inArrival = [...arrivals].sort((x, y) => x.at - y.at);
    expect(inArrival.map((h) => payloadOf(h).run.name)).toEqual(['Queued 1', 'Queued 2', 'Queued 3', 'Queued 4']);
    const times = arrivals.map((h) => h.at);
    expect(Math.max(...times) - Math.min(...times)).toBeLessThan(guardMs(2_000));
  });

  it('an undelivered message survives a server restart and is delivered after it; links use the configured base URL', async () => {
    const publicUrl = 'http://dashboard.example.test/agent-tasks/';
    const restartable = await startServer({ env: { ...FAST_DELIVERY, AGENT_TASKS_PUBLIC_URL: publicUrl } });
    extraServers.push(restartable);
    const hook = await receiver({ down: true });
    const admin = adminClient(restartable);
    const channel = await admin.channels.create({ name: 'Across restarts', url: hook.url });
    const agent = createClient({ url: restartable.url, token: (await admin.keys.create({ name: 'agent', role: 'agent' })).token });
    const opened = await openSessionClient(agent, { title: 'restart' });
    const run = await startRun(opened.client);
    await intake(opened.client, run.id, 'Survive a restart', ['Before the restart', 'After the restart']);
    await waitFor('a failed attempt before the restart', async () => {
      const [n] = (await opened.client.runs.notifications({ runId: run.id })).notifications;
      return n && n.attempts >= 1 && !n.delivered;
    });

    // Stop the server, bring the receiver up, start the server again on the same database file.
    await restartable.stop();
    expect(await countRows(restartable, 'OutboxMessage', '"runId" = ? AND "deliveredAt" IS NULL', run.id)).toBe(1);
    await hook.up();
    await restartable.restart();
    const again = createClient({ url: restartable.url, token: opened.token });

    const link = `http://dashboard.example.test/agent-tasks/runs/${run.id}`;
    const ready = await accepted(hook, run.id, 'checklist_ready');
    expectWellFormedPost(ready);
    expect(payloadOf(ready).text).toBe(
      [`[Todo List · Survive a restart](${link})`, 'Checklist ready', '📝 0/2', '▶ 1. Before the restart', '○ 2. After the restart'].join(
        '\n',
      ),
    );
    expect(payloadOf(ready).run.url).toBe(link);
    const [delivered] = await allDelivered(again, run.id, 1);
    expect(delivered).toMatchObject({ kind: 'checklist_ready', channelId: channel.id, delivered: true });
    expect(delivered?.attempts).toBeGreaterThanOrEqual(1); // the failures before the restart were kept
    expect(hooksFor(hook, run.id)).toHaveLength(1);

    // Work continues after the restart; "All tasks done" goes out too, with the same configured link.
    await steps(again, run.id, 1, 2);
    const done = await accepted(hook, run.id, 'all_tasks_done');
    expect(payloadOf(done).text).toBe(
      [`[Todo List · Survive a restart](${link})`, 'All tasks done', '📝 2/2', '✓ 1. Before the restart', '✓ 2. After the restart'].join(
        '\n',
      ),
    );
    // The configured base is only the link's prefix: the server itself still answers the run page.
    expect(await (await fetch(`${restartable.url}/runs/${run.id}`)).json()).toEqual(await again.runs.get({ runId: run.id }));
  });
});

describe('deleting a channel', () => {
  it("drops the channel's undelivered messages, so nothing keeps retrying a removed URL", async () => {
    const w = await workspace(server, 'drop pending');
    const hook = await receiver({ down: true });
    const channel = await w.admin.channels.create({ name: 'down hook', url: hook.url });
    const run = await startRun(w.session);
    await intake(w.session, run.id, 'Drop pending', ['One']);
    await waitFor('a failed attempt', async () => {
      const [n] = (await w.session.runs.notifications({ runId: run.id })).notifications;
      return n && n.attempts >= 1 && !n.delivered ? n : null;
    });
    await w.admin.channels.delete({ id: channel.id });
    expect((await w.session.runs.notifications({ runId: run.id })).notifications).toEqual([]);
    expect(await countRows(server, 'OutboxMessage', '"channelId" = ?', channel.id)).toBe(0);
  });
});
