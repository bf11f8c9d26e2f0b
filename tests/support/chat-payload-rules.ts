// What Slack, Discord and Teams accept from an incoming webhook, written from their documentation (not from our
// renderers): a receiver standing in for each service refuses a payload that breaks these rules, as the service would.
export type ChatKind = 'slack' | 'discord' | 'teams';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : null);

/**
 * Slack (https://docs.slack.dev/reference/block-kit/blocks, …/header-block, …/section-block): 1–50 blocks; a header's
 * plain_text 1–150 characters; a section's text 1–3000; Slack also answers `msg_blocks_too_long` once the blocks hold
 * roughly 13,000 characters (slackapi/bolt-js#2509); `text` is the notification fallback.
 */
function slackProblems(body: unknown): string[] {
  if (!isObject(body)) return ['body is not a JSON object'];
  const problems: string[] = [];
  const extra = Object.keys(body).filter((k) => k !== 'text' && k !== 'blocks');
  if (extra.length) problems.push(`unexpected fields ${extra.join(', ')}`);
  const text = str(body.text);
  if (!text) problems.push('`text` (the notification fallback) is missing');
  else if (text.length > 40_000) problems.push(`text is ${text.length} characters`);
  const blocks = body.blocks;
  if (!Array.isArray(blocks) || blocks.length === 0) return [...problems, '`blocks` must be a non-empty array'];
  if (blocks.length > 50) problems.push(`${blocks.length} blocks (at most 50)`);
  let total = 0;
  for (const [i, block] of blocks.entries()) {
    if (!isObject(block) || !isObject(block.text)) {
      problems.push(`block ${i} has no text object`);
      continue;
    }
    const value = str(block.text.text) ?? '';
    total += value.length;
    if (block.type === 'header') {
      if (block.text.type !== 'plain_text') problems.push(`header ${i} text must be plain_text`);
      if (value.length < 1 || value.length > 150) problems.push(`header ${i} text is ${value.length} characters (1–150)`);
    } else if (block.type === 'section') {
      if (block.text.type !== 'plain_text' && block.text.type !== 'mrkdwn')
        problems.push(`section ${i} text type ${String(block.text.type)}`);
      if (value.length < 1 || value.length > 3000) problems.push(`section ${i} text is ${value.length} characters (1–3000)`);
    } else problems.push(`block ${i} has type ${String(block.type)}`);
  }
  if (total > 13_000) problems.push(`blocks hold ${total} characters (msg_blocks_too_long)`);
  return problems;
}

/**
 * Discord (https://discord.com/developers/docs/resources/webhook#execute-webhook and
 * …/resources/message#embed-object-embed-limits): content ≤ 2000; ≤ 10 embeds; title ≤ 256, description ≤ 4096,
 * footer text ≤ 2048, ≤ 25 fields; all embed text ≤ 6000.
 */
function discordProblems(body: unknown): string[] {
  if (!isObject(body)) return ['body is not a JSON object'];
  const problems: string[] = [];
  const content = str(body.content) ?? '';
  if (content.length > 2000) problems.push(`content is ${content.length} characters (at most 2000)`);
  const embeds = Array.isArray(body.embeds) ? body.embeds : [];
  if (!content && embeds.length === 0) problems.push('neither content nor embeds');
  if (embeds.length > 10) problems.push(`${embeds.length} embeds (at most 10)`);
  let total = 0;
  for (const [i, embed] of embeds.entries()) {
    if (!isObject(embed)) {
      problems.push(`embed ${i} is not an object`);
      continue;
    }
    const title = str(embed.title) ?? '';
    const description = str(embed.description) ?? '';
    const footer = isObject(embed.footer) ? (str(embed.footer.text) ?? '') : '';
    const fields = Array.isArray(embed.fields) ? embed.fields : [];
    if (title.length > 256) problems.push(`embed ${i} title is ${title.length} characters (at most 256)`);
    if (description.length > 4096) problems.push(`embed ${i} description is ${description.length} characters (at most 4096)`);
    if (footer.length > 2048) problems.push(`embed ${i} footer is ${footer.length} characters (at most 2048)`);
    if (fields.length > 25) problems.push(`embed ${i} has ${fields.length} fields`);
    if (embed.url !== undefined && !(typeof embed.url === 'string' && /^https?:\/\//.test(embed.url)))
      problems.push(`embed ${i} url is not http(s)`);
    total += title.length + description.length + footer.length;
  }
  if (total > 6000) problems.push(`embeds hold ${total} characters (at most 6000)`);
  return problems;
}

/**
 * Teams (https://learn.microsoft.com/en-us/microsoftteams/platform/webhooks-and-connectors/how-to/add-incoming-webhook):
 * a `message` whose attachment is an Adaptive Card (contentType application/vnd.microsoft.card.adaptive); the message
 * size limit is 28 KB.
 */
function teamsProblems(body: unknown, raw: string): string[] {
  if (!isObject(body)) return ['body is not a JSON object'];
  const problems: string[] = [];
  const bytes = Buffer.byteLength(raw, 'utf8');
  if (bytes > 28 * 1024) problems.push(`message is ${bytes} bytes (at most 28 KB)`);
  if (body.type !== 'message') problems.push('`type` must be "message"');
  const attachments = Array.isArray(body.attachments) ? body.attachments : [];
  if (attachments.length !== 1) return [...problems, `${attachments.length} attachments (one card expected)`];
  const [attachment] = attachments;
  if (!isObject(attachment) || attachment.contentType !== 'application/vnd.microsoft.card.adaptive')
    return [...problems, 'not an Adaptive Card attachment'];
  const card = attachment.content;
  if (!isObject(card) || card.type !== 'AdaptiveCard' || typeof card.version !== 'string')
    return [...problems, 'content is not an AdaptiveCard with a version'];
  if (!Array.isArray(card.body) || card.body.length === 0) return [...problems, 'the card has no body'];
  for (const [i, element] of card.body.entries()) {
    if (!isObject(element) || element.type !== 'TextBlock' || !str(element.text))
      problems.push(`body element ${i} is not a TextBlock with text`);
  }
  const actions = Array.isArray(card.actions) ? card.actions : [];
  for (const action of actions) {
    if (!isObject(action) || action.type !== 'Action.OpenUrl' || !/^https?:\/\//.test(String(action.url)))
      problems.push('an action is not an Action.OpenUrl to an http(s) URL');
  }
  return problems;
}

/** Every rule the payload breaks (none: the service would accept it). */
export function chatPayloadProblems(kind: ChatKind, body: unknown, raw: string): string[] {
  return kind === 'slack' ? slackProblems(body) : kind === 'discord' ? discordProblems(body) : teamsProblems(body, raw);
}

/** The text lines a reader sees, in order, by kind: to find the heading, the title, the checklist and the link. */
export function visibleLines(kind: ChatKind, body: unknown): string[] {
  const b = body as Json;
  if (kind === 'slack') {
    return (b.blocks as { text: { text: string } }[]).flatMap((block) => block.text.text.split('\n'));
  }
  if (kind === 'discord') {
    const embed = (b.embeds as Json[])[0] as { title: string; description: string; url?: string; footer?: { text: string } };
    // Discord shows a backslash-escaped character as the character itself.
    const description = embed.description.replace(/\\(.)/g, '$1');
    return [str(b.content) ?? '', embed.title, ...description.split('\n'), embed.footer?.text ?? ''];
  }
  const card = ((b.attachments as Json[])[0] as { content: { body: { text: string }[] } }).content;
  return card.body.map((element) => element.text);
}

/** The run-page link a reader can follow, by kind. */
export function linkOf(kind: ChatKind, body: unknown): string | null {
  const b = body as Json;
  if (kind === 'slack') {
    const text = (b.blocks as { text: { text: string } }[]).map((block) => block.text.text).join('\n');
    return /<(https?:\/\/[^|>]+)\|/.exec(text)?.[1] ?? null;
  }
  if (kind === 'discord') return ((b.embeds as Json[])[0] as { url?: string }).url ?? null;
  const actions = (((b.attachments as Json[])[0] as { content: { actions?: { url: string }[] } }).content.actions ?? []) as {
    url: string;
  }[];
  return actions[0]?.url ?? null;
}
