// A chat message as a Microsoft Teams incoming-webhook payload: a message carrying one Adaptive Card attachment.
import { type ChatMessage, LINK_LABEL, fitLines, moreLine, progressAndChecklist } from './chat-message.ts';

/**
 * Teams documents a message size limit of 28 KB for incoming webhooks ("When the size exceeds 28 KB, you receive an
 * error", https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/add-incoming-webhook,
 * and ~28 KB for Workflows posting a card, https://learn.microsoft.com/en-us/connectors/teams/#known-issues-and-limitations).
 * Senders report refusals from about 21 KB, so the whole JSON body is kept under 20,000 bytes of UTF-8.
 * The payload shape follows "Send Adaptive Cards using an Incoming Webhook" on the first page.
 */
export const TEAMS_LIMITS = { documentedBytes: 28 * 1024, bodyBytes: 20_000 } as const;

/** The size of `value` as JSON in UTF-8, counted by code point (core has no encoder: it runs without I/O or DOM). */
export function utf8Bytes(value: unknown): number {
  let bytes = 0;
  for (const ch of JSON.stringify(value)) {
    const code = ch.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

const text = (value: string, style: Record<string, unknown> = {}) => ({ type: 'TextBlock', text: value, wrap: true, ...style });

function cardOf(m: ChatMessage, checklist: string[], notes: string[]) {
  // The heading linked to the run page in the card's markdown (`[label](url)`, brackets in the name escaped).
  const heading = m.url ? `[${m.heading.replace(/([[\]\\])/g, '\\$1')}](${m.url})` : m.heading;
  const lines = progressAndChecklist(m, checklist);
  const body = [
    text(heading, { size: 'Large', weight: 'Bolder' }),
    text(m.title, { weight: 'Bolder', spacing: 'Small' }),
    ...lines.map((line, i) => text(line, { spacing: i === 0 ? 'Medium' : 'None' })),
    ...notes.map((line, i) => text(line, { spacing: i === 0 ? 'Medium' : 'None', isSubtle: true })),
  ];
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          ...(m.url ? { actions: [{ type: 'Action.OpenUrl', title: LINK_LABEL, url: m.url }] } : {}),
        },
      },
    ],
  };
}

export function teamsPayload(m: ChatMessage) {
  const fits = (checklist: string[], notes: string[]) => utf8Bytes(cardOf(m, checklist, notes)) <= TEAMS_LIMITS.bodyBytes;
  const notesTail = m.notes.length ? [moreLine(m.notes.length)] : [];
  const checklist = fitLines(m.checklist, (kept) => fits(kept, notesTail));
  const notes = fitLines(m.notes, (kept) => fits(checklist, kept));
  return cardOf(m, checklist, notes);
}
