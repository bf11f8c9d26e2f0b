// A chat message as a Slack incoming-webhook payload: `text` (the notification fallback) with Block Kit `blocks`.
import { type ChatMessage, clip, fitLines, moreLine, progressAndChecklist } from './chat-message.ts';

/**
 * Slack's documented limits (https://docs.slack.dev/reference/block-kit/blocks): at most 50 blocks in a message;
 * a header block's plain_text at most 150 characters (…/blocks/header-block); a section block's text at most 3000
 * characters (…/blocks/section-block). Slack also refuses messages whose blocks hold much more than ~13,000
 * characters in total with `msg_blocks_too_long` (seen in practice: slackapi/bolt-js#2509), so the text in blocks is
 * kept under 12,000. Incoming webhooks: https://docs.slack.dev/messaging/sending-messages-using-incoming-webhooks
 */
export const SLACK_LIMITS = { blocks: 50, headerText: 150, sectionText: 3000, blocksText: 12_000 } as const;

type Block = { type: 'section'; text: { type: 'plain_text' | 'mrkdwn'; text: string } };

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

/** Slack's mrkdwn control characters, escaped as its docs say (&, <, >), so a name cannot break the link. */
const escapeMrkdwn = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The heading linked to the run page in Slack's own link markup (`<url|label>`), bold; clipped like a header. */
function headingBlock(m: ChatMessage): Block {
  const label = escapeMrkdwn(clip(m.heading, SLACK_LIMITS.headerText));
  return { type: 'section', text: { type: 'mrkdwn', text: m.url ? `*<${m.url}|${label}>*` : `*${label}*` } };
}

function blocksOf(m: ChatMessage, checklist: string[], notes: string[]): Block[] {
  return [
    headingBlock(m),
    { type: 'section', text: { type: 'mrkdwn', text: `*${m.title}*` } },
    // Task text goes in plain_text: no mrkdwn to escape, and nothing in it can mention anyone.
    ...sections(progressAndChecklist(m, checklist), SLACK_LIMITS.sectionText).map(plain),
    ...sections(notes, SLACK_LIMITS.sectionText).map(plain),
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
