// Unit tests of the chat renderers: fitting lines with "… and N more", and Slack, Discord and Teams payloads kept
// inside each service's limits for short and 300-task checklists, long headings and text that looks like markup.
import { describe, expect, it } from 'vitest';
import {
  DISCORD_LIMITS,
  SLACK_LIMITS,
  TEAMS_LIMITS,
  chatMessageOf,
  discordPayload,
  fitLines,
  notificationFor,
  notificationPayload,
  slackPayload,
  teamsPayload,
  utf8Bytes,
} from '../src/index.ts';

const run = (count: number, action = (i: number) => `Check shard ${i + 1}`, name = 'Reindex') => ({
  id: 'run_1',
  name,
  tasks: Array.from({ length: count }, (_, i) => ({ action: action(i), expected_result: 'ok' })),
  moves: [],
});
const message = (count: number, action?: (i: number) => string, name?: string) =>
  chatMessageOf(notificationFor('checklist_ready', run(count, action, name), 'https://tasks.example.com/runs/run_1'));

describe('fitLines', () => {
  const lines = ['alpha one', 'bravo two', 'charlie 3', 'delta 4th', 'echo five'];
  const chars = (max: number) => (kept: string[]) => kept.join('\n').length <= max;

  it('keeps everything that fits, and otherwise the longest head plus "… and N more"', () => {
    expect(fitLines(lines, chars(49))).toEqual(lines);
    expect(fitLines(lines, chars(48))).toEqual(['alpha one', 'bravo two', 'charlie 3', '… and 2 more']);
    expect(fitLines(lines, chars(40))).toEqual(['alpha one', 'bravo two', '… and 3 more']);
    expect(fitLines(lines, chars(12))).toEqual(['… and 5 more']);
    expect(fitLines([], chars(0))).toEqual([]);
  });

  it('every kept count n gives n lines + "… and (total − n) more"', () => {
    for (let max = 12; max < 60; max++) {
      const fitted = fitLines(lines, chars(max));
      const tail = /^… and (\d+) more$/.exec(fitted.at(-1) ?? '');
      const kept = tail ? fitted.length - 1 : fitted.length;
      expect(kept + (tail ? Number(tail[1]) : 0)).toBe(5);
      expect(chars(max)(fitted)).toBe(true);
    }
  });
});

describe('Slack', () => {
  it('a short checklist: the heading linked in Slack markup, bold title, the progress line and checklist as plain text', () => {
    const payload = slackPayload(message(3));
    expect(payload).toEqual({
      text: 'Checklist ready: Todo List · Reindex',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: '*<https://tasks.example.com/runs/run_1|Todo List · Reindex>*' } },
        { type: 'section', text: { type: 'mrkdwn', text: '*Checklist ready*' } },
        { type: 'section', text: { type: 'plain_text', text: '📝 0/3\n▶ 1. Check shard 1\n○ 2. Check shard 2\n○ 3. Check shard 3' } },
      ],
    });
  });

  it("a name with Slack's control characters cannot break the link", () => {
    expect(slackPayload(message(1, undefined, 'A <b> & c|d')).blocks[0]!.text.text).toBe(
      '*<https://tasks.example.com/runs/run_1|Todo List · A &lt;b&gt; &amp; c|d>*',
    );
  });

  it('300 long tasks: ≤ 50 blocks, each section ≤ 3000, all text ≤ 12,000, cut with "… and N more"', () => {
    const payload = slackPayload(message(300, (i) => `Task ${i + 1} ${'x'.repeat(900)}`));
    expect(payload.blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
    for (const block of payload.blocks) expect(block.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
    expect(payload.blocks.reduce((n, b) => n + b.text.text.length, 0)).toBeLessThanOrEqual(SLACK_LIMITS.blocksText);
    const lines = payload.blocks.flatMap((b) => b.text.text.split('\n'));
    const kept = lines.filter((l) => /^[▶○] \d+\. /.test(l)).length;
    expect(kept).toBeGreaterThan(0);
    expect(lines).toContain(`… and ${300 - kept} more`);
  });

  it('a heading over 150 characters is clipped with "…"', () => {
    const header = slackPayload(message(1, undefined, 'n'.repeat(200))).blocks[0]!.text.text;
    const label = /\|(.*)>\*$/.exec(header)?.[1] ?? '';
    expect(label).toHaveLength(150);
    expect(label.endsWith('…')).toBe(true);
  });
});

describe('Discord', () => {
  it('content and one embed; markdown in task text is escaped; no mentions allowed', () => {
    const payload = discordPayload(message(2, (i) => (i === 0 ? 'Ping @everyone about *draft* _notes_' : 'Ship it')));
    expect(payload).toEqual({
      content: '[Todo List · Reindex](https://tasks.example.com/runs/run_1)\n**Checklist ready**',
      embeds: [
        {
          title: 'Todo List · Reindex',
          url: 'https://tasks.example.com/runs/run_1',
          description: '📝 0/2\n▶ 1. Ping @everyone about \\*draft\\* \\_notes\\_\n○ 2. Ship it',
          color: 0x5865f2,
          footer: { text: 'Checklist ready' },
        },
      ],
      allowed_mentions: { parse: [] },
    });
  });

  it('300 tasks: description ≤ 4096, embed text ≤ 6000, cut with "… and N more"', () => {
    const payload = discordPayload(message(300, (i) => `Task ${i + 1} ${'y'.repeat(200)}`));
    const [embed] = payload.embeds;
    expect(embed!.description.length).toBeLessThanOrEqual(DISCORD_LIMITS.description);
    expect(embed!.title.length + embed!.description.length + embed!.footer.text.length).toBeLessThanOrEqual(DISCORD_LIMITS.embedTotal);
    const kept = embed!.description.split('\n').filter((l) => /^[▶○] \d+\. /.test(l)).length;
    expect(embed!.description).toContain(`… and ${300 - kept} more`);
  });
});

describe('Teams', () => {
  it('a message carrying one Adaptive Card: the linked heading, title, progress line, one line per task, an Open URL action', () => {
    const payload = teamsPayload(message(2));
    const card = payload.attachments[0]!.content;
    expect(payload.type).toBe('message');
    expect(payload.attachments[0]!.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(card.body.map((b) => b.text)).toEqual([
      '[Todo List · Reindex](https://tasks.example.com/runs/run_1)',
      'Checklist ready',
      '📝 0/2',
      '▶ 1. Check shard 1',
      '○ 2. Check shard 2',
    ]);
    expect(card.actions).toEqual([{ type: 'Action.OpenUrl', title: 'Open the run page', url: 'https://tasks.example.com/runs/run_1' }]);
  });

  it('300 tasks of multi-byte text: the JSON stays under 20,000 bytes (28 KB documented), cut with "… and N more"', () => {
    const payload = teamsPayload(message(300, (i) => `Überprüfe Shard ${i + 1} — ${'ü✓'.repeat(60)}`));
    expect(utf8Bytes(payload)).toBeLessThanOrEqual(TEAMS_LIMITS.bodyBytes);
    expect(TEAMS_LIMITS.bodyBytes).toBeLessThan(TEAMS_LIMITS.documentedBytes);
    const texts = payload.attachments[0]!.content.body.map((b) => b.text);
    const kept = texts.filter((t) => /^[▶○] \d+\. /.test(t)).length;
    expect(texts.at(-1)).toBe(`… and ${300 - kept} more`);
  });

  it('utf8Bytes counts UTF-8 bytes of the JSON', () => {
    expect(utf8Bytes('a')).toBe(3);
    expect(utf8Bytes('ü')).toBe(4);
    expect(utf8Bytes('✓')).toBe(5);
    expect(utf8Bytes('😀')).toBe(6);
  });
});

describe('notificationPayload', () => {
  it('a webhook gets the notification JSON with its idempotency key, unchanged', () => {
    const notification = notificationFor('all_tasks_done', run(2), 'https://tasks.example.com/runs/run_1');
    expect(notificationPayload('webhook', notification, 'k1')).toEqual({ ...notification, idempotencyKey: 'k1' });
  });

  it('order changes follow the checklist in chat kinds, and are cut too when long', () => {
    const moved = { ...run(3), moves: [{ task: 1, from: 1, to: 3, because: 'it needs tasks 2 and 3' }] };
    const slack = notificationPayload(
      'slack',
      notificationFor('checklist_ready', moved, 'https://t.example/runs/run_1'),
      'k',
    ) as ReturnType<typeof slackPayload>;
    expect(slack.blocks.map((b) => b.text.text)).toContain(
      'Order changed from the written list:\n- written task 1 moved to position 3: it needs tasks 2 and 3',
    );
  });
});
