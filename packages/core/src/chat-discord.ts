// A chat message as a Discord execute-webhook payload: `content` with one embed, and no mentions allowed.
import { type ChatMessage, clip, fitLines, moreLine, progressAndChecklist } from './chat-message.ts';

/**
 * Discord's documented limits: a message's `content` at most 2000 characters, at most 10 embeds
 * (https://discord.com/developers/docs/resources/webhook#execute-webhook); an embed's title at most 256 characters,
 * its description at most 4096, its footer text at most 2048, and all embed text of a message at most 6000 in total
 * (https://discord.com/developers/docs/resources/message#embed-object-embed-limits).
 */
export const DISCORD_LIMITS = { content: 2000, embeds: 10, title: 256, description: 4096, footer: 2048, embedTotal: 6000 } as const;

/** Discord markdown in user text is shown literally (a task named "*draft*" is not turned italic). */
const escape = (text: string) => text.replace(/([\\*_~`|>#[\]()-])/g, '\\$1');

/** Blurple-ish for a ready checklist, green when all is done, grey for a test. */
const colorOf = (title: string) => (title === 'All tasks done' ? 0x2e9e5b : title === 'Checklist ready' ? 0x5865f2 : 0x99aab5);

function descriptionOf(m: ChatMessage, checklist: string[], notes: string[]) {
  const parts = [progressAndChecklist(m, checklist).map(escape).join('\n'), notes.map(escape).join('\n')];
  return parts.filter((p) => p.length > 0).join('\n\n');
}

/** The heading linked to the run page in Discord's markdown (`[label](url)`), then the title in bold. */
const contentOf = (m: ChatMessage) =>
  m.url ? `[${escape(m.heading)}](${m.url})\n**${escape(m.title)}**` : `**${escape(m.title)}** · ${escape(m.heading)}`;

export function discordPayload(m: ChatMessage) {
  const title = clip(m.heading, DISCORD_LIMITS.title);
  const footer = clip(m.title, DISCORD_LIMITS.footer);
  // The description also stays within what the 6000-character embed total leaves after the title and footer.
  const room = Math.min(DISCORD_LIMITS.description, DISCORD_LIMITS.embedTotal - title.length - footer.length);
  const fits = (checklist: string[], notes: string[]) => descriptionOf(m, checklist, notes).length <= room;
  const notesTail = m.notes.length ? [moreLine(m.notes.length)] : [];
  const checklist = fitLines(m.checklist, (kept) => fits(kept, notesTail));
  const notes = fitLines(m.notes, (kept) => fits(checklist, kept));
  return {
    content: clip(contentOf(m), DISCORD_LIMITS.content),
    embeds: [
      {
        title,
        ...(m.url ? { url: m.url } : {}),
        description: descriptionOf(m, checklist, notes),
        color: colorOf(m.title),
        footer: { text: footer },
      },
    ],
    allowed_mentions: { parse: [] as string[] },
  };
}
