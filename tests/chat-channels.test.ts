// Black-box tests of chat channels: a channel's kind (webhook, slack, discord, teams), each kind's "Checklist ready" and
// "All tasks done" delivered through the durable outbox to a local receiver standing in for that service (which
// refuses what the service would refuse), long checklists cut with "… and N more", and the admin's test message.
import type { AgentTasksClient } from '@agent-tasks/sdk';
import { notificationFor, notificationPayload } from '@agent-tasks/core';
import type { ChannelKind } from '@agent-tasks/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatKind, linkOf, visibleLines } from './support/chat-payload-rules.ts';
import { acknowledge, countRows, nameAndIntake, newWorkspace, refused } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { type WebhookReceiver, startReceiver, waitFor } from './support/webhook-receiver.ts';

const FAST_DELIVERY = { AGENT_TASKS_RETRY_BASE_MS: '100', AGENT_TASKS_RETRY_MAX_MS: '400', AGENT_TASKS_OUTBOX_POLL_MS: '50' };
const CHAT_KINDS: ChatKind[] = ['slack', 'discord', 'teams'];
const MARK_LINE = /^([▶○✓]) (\d+)\. (.*)$/;

let server: RunningServer;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  server = await startServer({ env: FAST_DELIVERY });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.down()));
  await server?.stop();
});

async function receiver(kind?: ChatKind) {
  const r = await startReceiver(kind ? { kind } : {});
  receivers.push(r);
  return r;
}

/** A fresh workspace: its admin, a viewer and an agent session. */
const workspace = (name: string) => newWorkspace(server, name);

/** One channel of every kind, each to its own receiver. */
async function everyKind(admin: AgentTasksClient) {
  const out = {} as Record<ChannelKind, { receiver: WebhookReceiver; id: string }>;
  for (const kind of ['webhook', ...CHAT_KINDS] as ChannelKind[]) {
    const r = await receiver(kind === 'webhook' ? undefined : kind);
    const channel = await admin.channels.create({ name: `${kind} channel`, url: r.url, kind });
    expect(channel.kind).toBe(kind);
    out[kind] = { receiver: r, id: channel.id };
  }
  return out;
}

/** Starts a run, takes the checklist (task 1 written to need the next two: the order changes), walks it to the end. */
async function walkRun(s: AgentTasksClient, name: string, actions: string[]) {
  const { startAttemptId } = await s.runs.prepare({ parentExecutionId: 'none' });
  const run = await s.runs.execute({ startAttemptId });
  await nameAndIntake(s, {
    runId: run.id,
    name,
    tasks: actions.map((action) => ({ action, expected_result: `${action.slice(0, 40)}: verified` })),
    progress_checklist_outcome: `${actions.length} ordered tasks are ready`,
    needs: [{ task: 1, needs: [2, 3] }],
  });
  for (let task = 1; task <= actions.length; task++) {
    await acknowledge(s, run.id, { task, evidence: `Task ${task} checked.`, progress_execution_outcome: `Task ${task} is done` });
  }
  return run;
}

/** The checklist a reader sees in a chat payload: marked lines, then the "… and N more" line if any. */
function checklistOf(kind: ChatKind, body: unknown) {
  const lines = visibleLines(kind, body);
  const marked = lines.map((l) => MARK_LINE.exec(l)).filter((m): m is RegExpExecArray => m !== null);
  const more = lines.map((l) => /^… and (\d+) more$/.exec(l)).find((m) => m !== null);
  return {
    lines,
    marks: marked.map((m) => m[1]),
    positions: marked.map((m) => Number(m[2])),
    actions: marked.map((m) => m[3]),
    more: more ? Number(more[1]) : 0,
  };
}

const delivered = (s: AgentTasksClient, runId: string, count: number) =>
  waitFor(`${count} delivered notifications of ${runId}`, async () => {
    const { notifications } = await s.runs.notifications({ runId });
    return notifications.length === count && notifications.every((n) => n.delivered) ? notifications : null;
  });

describe('channel kinds', () => {
  it('an admin creates channels of each kind (webhook by default); an unknown kind is refused and nothing recorded', async () => {
    const w = await workspace('kinds');
    const plain = await w.admin.channels.create({ name: 'Plain', url: 'http://127.0.0.1:9/plain' });
    const slack = await w.admin.channels.create({ name: 'Team chat', url: 'http://127.0.0.1:9/services/T0/B0/x', kind: 'slack' });
    expect(plain).toMatchObject({ kind: 'webhook' });
    expect(slack).toMatchObject({ name: 'Team chat', kind: 'slack' });
    expect((await w.admin.channels.list()).channels.map((c) => c.kind)).toEqual(['webhook', 'slack']);

    const before = await countRows(server, 'NotificationChannel');
    for (const [kind, shown] of [
      ['telegram', '"telegram"'],
      ['Slack', '"Slack"'],
      [7, '7'],
    ] as const) {
      const refusal = await refused(w.admin.channels.create({ name: 'Bad', url: 'https://chat.example/x', kind } as never));
      expect(refusal).toMatchObject({
        code: 'INVALID_INPUT',
        message: `Error: invalid input: \`kind\` must be one of webhook, slack, discord, teams (got ${shown}).`,
      });
    }
    expect(await countRows(server, 'NotificationChannel')).toBe(before);
  });
});

describe('notifications in each kind', () => {
  it('a short checklist: each service gets "Checklist ready" then "All tasks done" in its own shape, with heading, marks and link', async () => {
    const w = await workspace('short');
    const channels = await everyKind(w.admin);
    const run = await walkRun(w.session, 'Ship the release notes', ['Publish the notes', 'Draft the notes', 'Review the notes']);
    const link = `${server.url}/runs/${run.id}`;
    await delivered(w.session, run.id, 8);

    // The webhook kind is today's JSON, unchanged.
    const [ready, done] = channels.webhook.receiver.accepted();
    expect(ready?.body).toMatchObject({ kind: 'checklist_ready', title: 'Checklist ready', heading: 'Todo List · Ship the release notes' });
    expect(done?.body).toMatchObject({ kind: 'all_tasks_done', title: 'All tasks done', run: { url: link } });

    for (const kind of CHAT_KINDS) {
      const got = channels[kind].receiver.received;
      expect(got.map((h) => [h.status, h.problems])).toEqual([
        [200, []],
        [200, []],
      ]);
      const [first, second] = got as [(typeof got)[0], (typeof got)[0]];
      // Each delivery carries its own idempotency key, per run, kind and channel.
      expect(first.headers['idempotency-key']).toBe(`${run.id}:checklist_ready:${channels[kind].id}`);
      expect(second.headers['idempotency-key']).toBe(`${run.id}:all_tasks_done:${channels[kind].id}`);
      for (const [hook, title, marks] of [
        [first, 'Checklist ready', ['▶', '○', '○']],
        [second, 'All tasks done', ['✓', '✓', '✓']],
      ] as const) {
        const lines = visibleLines(kind, hook.body);
        // The heading linked to the run page, in the kind's own link markup.
        const heading = 'Todo List · Ship the release notes';
        const linked = { slack: `*<${link}|${heading}>*`, discord: heading, teams: `[${heading}](${link})` }[kind];
        expect(lines, kind).toContain(linked);
        if (kind === 'discord') {
          expect(String((hook.body as { content: unknown }).content).startsWith(`[${heading}](${link})\n`), kind).toBe(true);
        }
        // The progress line, right above the checklist.
        const progress = lines.indexOf(`📝 ${title === 'All tasks done' ? 3 : 0}/3`);
        expect(progress, kind).toBeGreaterThanOrEqual(0);
        expect(lines[progress + 1], kind).toMatch(/^[▶✓] 1\. /);
        expect(
          lines.some((l) => l.includes(title)),
          `${kind}: ${title}`,
        ).toBe(true);
        const checklist = checklistOf(kind, hook.body);
        // The executed order: drafting and reviewing come before publishing, which needs them.
        expect(checklist, kind).toMatchObject({
          marks,
          positions: [1, 2, 3],
          actions: ['Draft the notes', 'Review the notes', 'Publish the notes'],
          more: 0,
        });
        expect(linkOf(kind, hook.body), kind).toBe(link);
      }
      // Before work starts, the reader sees where the order differs from the written list.
      expect(visibleLines(kind, first.body), kind).toContain('Order changed from the written list:');
      expect(visibleLines(kind, second.body), kind).not.toContain('Order changed from the written list:');
    }
    expect(channels.slack.receiver.received[0]?.body).toMatchObject({ text: 'Checklist ready: Todo List · Ship the release notes' });
    expect(channels.discord.receiver.received[0]?.body).toMatchObject({
      allowed_mentions: { parse: [] },
      embeds: [{ url: link, footer: { text: 'Checklist ready' } }],
    });
  });

  it('a checklist of 100 long tasks fits every service: cut with "… and N more", delivered, never refused', async () => {
    const w = await workspace('long');
    const channels = await everyKind(w.admin);
    const actions = Array.from({ length: 100 }, (_, i) =>
      `Task ${i + 1}: ${'migrate one more table, check its rows and indexes, '.repeat(18)}`.slice(0, 1000),
    );
    const run = await walkRun(w.session, `Migrate ${'the whole warehouse schema '.repeat(7)}`.trim(), actions);
    await delivered(w.session, run.id, 8);

    for (const kind of CHAT_KINDS) {
      const got = channels[kind].receiver.received;
      expect(
        got.map((h) => [h.status, h.problems]),
        kind,
      ).toEqual([
        [200, []],
        [200, []],
      ]);
      for (const hook of got) {
        const checklist = checklistOf(kind, hook.body);
        expect(checklist.more, kind).toBeGreaterThan(0);
        expect(checklist.positions.length + checklist.more, kind).toBe(100);
        expect(checklist.positions, kind).toEqual(checklist.positions.map((_, i) => i + 1));
        expect(linkOf(kind, hook.body), kind).toBe(`${server.url}/runs/${run.id}`);
      }
    }
    // Our own webhook JSON carries every task.
    expect((channels.webhook.receiver.accepted()[0]?.body as { checklist: unknown[] }).checklist).toHaveLength(100);
  });

  it("a 300-task checklist (beyond a run's 100 tasks, rendered directly) is accepted by every service stand-in", async () => {
    const tasks = Array.from({ length: 300 }, (_, i) => ({ action: `Check shard ${i + 1} of the orders index`, expected_result: 'ok' }));
    const run = { id: 'run_300', name: 'Reindex all shards', tasks, moves: [] };
    for (const kind of CHAT_KINDS) {
      const r = await receiver(kind);
      for (const which of ['checklist_ready', 'all_tasks_done'] as const) {
        const body = notificationPayload(kind, notificationFor(which, run, server.url), `run_300:${which}`);
        const response = await fetch(r.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(response.status, `${kind} ${which}: ${r.received.at(-1)?.problems.join('; ')}`).toBe(200);
        const checklist = checklistOf(kind, body);
        expect(checklist.positions.length + checklist.more, kind).toBe(300);
        expect(checklist.more, kind).toBeGreaterThan(0);
        expect(checklist.marks[0], kind).toBe(which === 'checklist_ready' ? '▶' : '✓');
      }
    }
  });

  it('the stand-ins refuse what the services refuse (so an accepted payload means within limits)', async () => {
    const section = (text: string) => ({ type: 'section', text: { type: 'plain_text', text } });
    const card = (text: string) => ({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          content: { type: 'AdaptiveCard', version: '1.4', body: [{ type: 'TextBlock', text }] },
        },
      ],
    });
    const cases: [ChatKind, unknown, string][] = [
      ['slack', { text: 'x', blocks: Array.from({ length: 51 }, () => section('a')) }, '51 blocks (at most 50)'],
      ['slack', { text: 'x', blocks: [section('a'.repeat(3001))] }, 'section 0 text is 3001 characters (1–3000)'],
      [
        'slack',
        { text: 'x', blocks: [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }] },
        'header 0 text is 151 characters (1–150)',
      ],
      ['discord', { content: 'c'.repeat(2001) }, 'content is 2001 characters (at most 2000)'],
      ['discord', { embeds: [{ title: 't', description: 'd'.repeat(4097) }] }, 'embed 0 description is 4097 characters (at most 4096)'],
      [
        'discord',
        { embeds: [{ description: 'd'.repeat(4000) }, { description: 'd'.repeat(2001) }] },
        'embeds hold 6001 characters (at most 6000)',
      ],
      ['teams', card('x'.repeat(29 * 1024)), `message is ${JSON.stringify(card('x'.repeat(29 * 1024))).length} bytes (at most 28 KB)`],
      ['teams', { type: 'message', attachments: [{ contentType: 'application/json', content: {} }] }, 'not an Adaptive Card attachment'],
    ];
    for (const [kind, body, problem] of cases) {
      const r = await receiver(kind);
      const response = await fetch(r.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(response.status, problem).toBe(400);
      expect(r.received[0]?.problems, problem).toContain(problem);
    }
  });

  it('a chat service that fails at first gets the same message again, with the same key, until it accepts it', async () => {
    const w = await workspace('retries');
    const r = await receiver('discord');
    r.respond = (hook, index) => (index < 2 ? 503 : hook.problems.length ? 400 : 200);
    const channel = await w.admin.channels.create({ name: 'Flaky Discord', url: r.url, kind: 'discord' });
    const { startAttemptId } = await w.session.runs.prepare({ parentExecutionId: 'none' });
    const run = await w.session.runs.execute({ startAttemptId });
    await nameAndIntake(w.session, {
      runId: run.id,
      name: 'One task',
      tasks: [{ action: 'Do it', expected_result: 'Done' }],
      progress_checklist_outcome: 'One task',
    });
    const [notification] = await delivered(w.session, run.id, 1);
    expect(notification).toMatchObject({ kind: 'checklist_ready', channelId: channel.id, attempts: 3, delivered: true, lastError: null });
    expect(r.received.map((h) => h.status)).toEqual([503, 503, 200]);
    expect(new Set(r.received.map((h) => h.headers['idempotency-key']))).toEqual(new Set([`${run.id}:checklist_ready:${channel.id}`]));
    expect(new Set(r.received.map((h) => h.raw)).size).toBe(1);
  });
});

describe('channels.sendTest', () => {
  it("an admin sends a test message in the channel's kind and reads whether it was accepted; nothing is queued", async () => {
    const w = await workspace('test-message');
    const channels = await everyKind(w.admin);
    const outboxBefore = await countRows(server, 'OutboxMessage');
    for (const kind of ['webhook', ...CHAT_KINDS] as ChannelKind[]) {
      const { receiver: r, id } = channels[kind];
      expect(await w.admin.trpc.channels.sendTest.mutate({ id })).toEqual({ channelId: id, kind, delivered: true, error: null });
      const [hook] = r.received;
      expect(hook?.status).toBe(200);
      expect(hook?.headers['idempotency-key']).toMatch(new RegExp(`^test:${id}:`));
      if (kind === 'webhook') {
        expect(hook?.body).toMatchObject({
          kind: 'test',
          title: 'Test message',
          heading: 'agent-tasks · webhook channel',
          channel: { id, kind: 'webhook' },
        });
      } else {
        expect(hook?.problems).toEqual([]);
        const lines = visibleLines(kind, hook?.body);
        expect(lines).toContain(kind === 'slack' ? `*agent-tasks · ${kind} channel*` : `agent-tasks · ${kind} channel`);
        expect(lines.some((l) => l.includes('Test message'))).toBe(true);
      }
    }
    expect(await countRows(server, 'OutboxMessage')).toBe(outboxBefore);
  });

  it('answers a refusing or unreachable receiver with the reason; refuses other roles and unknown channels', async () => {
    const w = await workspace('test-refusals');
    const gone = await receiver('slack');
    gone.respond = () => 404;
    const slack = await w.admin.channels.create({ name: 'Gone', url: gone.url, kind: 'slack' });
    expect(await w.admin.trpc.channels.sendTest.mutate({ id: slack.id })).toEqual({
      channelId: slack.id,
      kind: 'slack',
      delivered: false,
      error: 'HTTP 404',
    });
    await gone.down();
    const down = await w.admin.trpc.channels.sendTest.mutate({ id: slack.id });
    expect(down).toMatchObject({ delivered: false, error: 'connection refused' });

    for (const [who, client, text] of [
      ['viewer', w.viewer, 'Error: forbidden: viewer keys are read-only (this key is viewer).'],
      ['agent', w.agent, 'Error: forbidden: this call needs an admin key (this key is agent).'],
    ] as const) {
      expect(await refused(client.trpc.channels.sendTest.mutate({ id: slack.id })), who).toMatchObject({
        code: 'FORBIDDEN',
        message: text,
      });
    }
    expect(await refused(w.admin.trpc.channels.sendTest.mutate({ id: 'ch_nope' }))).toMatchObject({
      code: 'NOT_FOUND',
      message: 'Error: notification channel ch_nope not found.',
    });
    const other = await workspace('test-refusals-other');
    expect(await refused(other.admin.trpc.channels.sendTest.mutate({ id: slack.id }))).toMatchObject({ code: 'NOT_FOUND' });
    expect(gone.received).toHaveLength(1);
  });
});
