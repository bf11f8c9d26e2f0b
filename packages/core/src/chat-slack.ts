// A chat message as a Slack incoming-webhook payload: `text` (the notification fallback) with Block Kit `blocks`.
import { type ChatMessage, LINK_LABEL, clip, fitLines, moreLine } from './chat-message.ts';

/**
 * Slack's documented limits (https://docs.slack.dev/reference/block-kit/blocks): at most 50 blocks in a message;
 * a header block's plain_text at most 150 characters (…/blocks/header-block); a section block's text at most 3000
 * characters (…/blocks/section-block). Slack also refuses messages whose blocks hold much more than ~13,000
 * characters in total with `msg_blocks_too_long` (seen in practice: slackapi/bolt-js#2509), so the text in blocks is
 * kept under 12,000. Incoming webhooks: https://docs.slack.dev/messaging/sending-messages-using-incoming-webhooks
 */
export const SLACK_LIMITS = { blocks: 50, headerText: 150, sectionText: 3000, blocksText: 12_000 } as const;

type Block =
  | { type: 'header'; text: { type: 'plain_text'; text: string } }
  | { type: 'section'; text: { type: 'plain_text' | 'mrkdwn'; text: string } };

const plain = (text: string): Block => ({ type: 'section', text: { type: 'plain_text', text } });

/** Packs lines into as few sections as possible, each at most `max` characters (lines joined by newlines). */
function sections(lines: readonly string[], max: number): string[] {
  const packed: string[] = [];
  for (const line of lines) {
    const last = packed.at(-1);
    if (last !== undefined && last.length + 1 + line.length <= max) packed[packed.length - 1] = `${last}\n${line}`;
    else packed.push(line);
  }
  return packed;
}

function blocksOf(m: ChatMessage, checklist: string[], notes: string[]): Block[] {
  return [
    { type: 'header', text: { type: 'plain_text', text: clip(m.heading, SLACK_LIMITS.headerText) } },
    { type: 'section', text: { type: 'mrkdwn', text: `*${m.title}*` } },
    // Task text goes in plain_text: no mrkdwn to escape, and nothing in it can mention anyone.
    ...sections(checklist, SLACK_LIMITS.sectionText).map(plain),
    ...sections(notes, SLACK_LIMITS.sectionText).map(plain),
    ...(m.url ? [{ type: 'section', text: { type: 'mrkdwn', text: `<${m.url}|${LINK_LABEL}>` } } satisfies Block] : []),
  ];
}

const withinLimits = (blocks: Block[]) =>
  blocks.length <= SLACK_LIMITS.blocks && blocks.reduce((sum, b) => sum + b.text.text.length, 0) <= SLACK_LIMITS.blocksText;

export function slackPayload(m: ChatMessage) {
  const notesTail = m.notes.length ? [moreLine(m.notes.length)] : [];
  const checklist = fitLines(m.checklist, (kept) => withinLimits(blocksOf(m, kept, notesTail)));
  const notes = fitLines(m.notes, (kept) => withinLimits(blocksOf(m, checklist, kept)));
  return { text: clip(`${m.title}: ${m.heading}`, SLACK_LIMITS.sectionText), blocks: blocksOf(m, checklist, notes) };
}
