// What the Codex and Gemini CLI hooks and the opencode plugin share: the hook process's run (stdin read within a
// deadline, one stderr line on any failure, always exit 0), the agent-tasks session of a runtime's chat (found by its
// external id), the project's shared task list name, mirroring a runtime's todo list, and the plan given back as text.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
// zod/mini as a namespace import (here and in each hook handler): dist/hook.cjs keeps only what the handlers use, where
// `{ z } from 'zod'` kept all of zod (tests/hook-bundle.test.ts holds the bundle's size).
import * as z from 'zod/mini';
import { type HookClient, createHookClient } from './hook-client.ts';
import { refusalOf } from './errors.ts';

/** What a hook process is given: the runtime's JSON on stdin, the two output streams and the environment. */
export interface HookIo {
  /** The hook's JSON: as text, or a stream (the process's stdin). */
  stdin: string | Readable;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** AGENT_TASKS_URL, AGENT_TASKS_TOKEN (an agent key); AGENT_TASKS_LIST names the shared task list. */
  env: Record<string, string | undefined>;
}

/** The longest a hook may take: past it, it reports on stderr and exits 0 (AGENT_TASKS_HOOK_TIMEOUT_MS overrides). */
export const HOOK_TIMEOUT_MS = 2000;
/** Longest plan given back to a model (characters). */
const CONTEXT_MAX = 8000;

/** A failure to report on stderr (the one line a hook writes there). */
export class HookProblem extends Error {}

export const sha = (text: string) => createHash('sha256').update(text).digest('hex');

async function readAll(stdin: string | Readable): Promise<string> {
  if (typeof stdin === 'string') return stdin;
  stdin.setEncoding('utf8');
  let text = '';
  for await (const chunk of stdin) text += chunk as string;
  return text;
}

/** The fields of a hook input the Codex and Gemini CLI hooks read (each runtime sends more; they are kept). */
export const runtimeHookInput = z.looseObject({
  session_id: z.string().check(z.minLength(1), z.maxLength(200)),
  hook_event_name: z.string(),
  cwd: z.optional(z.string()),
  source: z.optional(z.string()),
  tool_name: z.optional(z.string()),
  tool_input: z.optional(z.unknown()),
});

/** Parses `value` with `schema`, or fails with the text every hook uses for input it cannot read. */
export function parseAs<T>(schema: z.ZodMiniType<T>, value: unknown, what: string, runtime: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new HookProblem(`${what} is not in the shape ${runtime} documents; nothing was recorded.`);
  return parsed.data;
}

/** The one stderr line for a failure: a refusal's own text, or why the server could not be reached. */
export function problemLine(error: unknown, url: string): string {
  if (error instanceof HookProblem) return error.message;
  const refusal = refusalOf(error);
  if (refusal.httpStatus !== null) return refusal.message.replace(/^Error: /, 'agent-tasks refused: ');
  // The deepest cause names the network failure (e.g. "connect ECONNREFUSED 127.0.0.1:9").
  let root: unknown = error;
  while (root instanceof Error && root.cause instanceof Error) root = root.cause;
  const reason = root instanceof Error ? root.message : String(root);
  return `could not reach agent-tasks at ${url} (${reason}); nothing was recorded.`;
}

export interface HookContext {
  /** The runtime's hook input, parsed as JSON. */
  input: unknown;
  url: string;
  agentKey: string;
  signal: AbortSignal;
  env: Record<string, string | undefined>;
}

/**
 * Runs one hook process: reads its JSON from `io.stdin`, hands it to `handle`, writes the answer `handle` returns (a
 * line of JSON for the runtime) to `io.stdout` (and its note, if any, to `io.stderr`), and resolves with the exit code: always 0, so the agent is never
 * blocked. A server that is down, refuses, or takes longer than 2 s is reported as one line on `io.stderr`.
 */
/** What one hook run gives back: the JSON answer for stdout, and a note for stderr on what went unrecorded. */
export interface HookOutcome {
  answer: string | null;
  note: string | null;
  /** Set to refuse what the runtime is about to do: this reason goes to stderr alone and the hook exits 2. */
  block?: string;
}

export async function runHookWith(io: HookIo, handle: (context: HookContext) => Promise<string | null | HookOutcome>): Promise<number> {
  const say = (line: string) => io.stderr.write(`agent-tasks hook: ${line}\n`);
  const url = io.env.AGENT_TASKS_URL;
  const agentKey = io.env.AGENT_TASKS_TOKEN;
  if (!url || !agentKey) {
    say('set AGENT_TASKS_URL and AGENT_TASKS_TOKEN (an agent key); nothing was recorded.');
    return 0;
  }
  const timeoutMs = Number(io.env.AGENT_TASKS_HOOK_TIMEOUT_MS) || HOOK_TIMEOUT_MS;
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const read = { done: false };
  const work = (async () => {
    let input: unknown;
    try {
      input = JSON.parse(await readAll(io.stdin));
    } catch {
      throw new HookProblem('the hook input on stdin is not JSON; nothing was recorded.');
    } finally {
      read.done = true;
    }
    return handle({ input, url, agentKey, signal: abort.signal, env: io.env });
  })().then(
    // Settles either way, so the work left behind by a timeout cannot end in an unhandled rejection.
    (answer) => ({ answer }),
    (error: unknown) => ({ error }),
  );
  const outcome = await Promise.race([work, deadline]);
  clearTimeout(timer);
  abort.abort();
  if (outcome === 'timeout') {
    say(
      read.done
        ? `agent-tasks at ${url} did not answer within ${timeoutMs / 1000} s; nothing was recorded.`
        : `no hook input arrived on stdin within ${timeoutMs / 1000} s; nothing was recorded.`,
    );
  } else if ('error' in outcome) say(problemLine(outcome.error, url));
  else {
    const { answer, note, block } =
      outcome.answer === null || typeof outcome.answer === 'string' ? { answer: outcome.answer, note: null } : outcome.answer;
    if (block !== undefined) {
      io.stderr.write(`${block}\n`);
      return 2;
    }
    if (note !== null) say(note);
    if (answer !== null) io.stdout.write(`${answer}\n`);
  }
  return 0;
}

/** The git root holding `dir` (the nearest folder up with a `.git`), or null. */
function gitRoot(dir: string): string | null {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    if (existsSync(path.join(at, '.git'))) return at;
    if (path.dirname(at) === at) return null;
  }
}

const listNameOf = (text: string) => text.replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 100) || 'project';

/** Longest task list name agent-tasks takes. */
const LIST_NAME_MAX = 100;

/**
 * A Claude Code task list id as the folder name Claude Code gives it (every character other than a letter, digit, "_"
 * or "-" becomes "-"); past 100 characters its start and a hash of the whole, so two long names stay two lists.
 */
export function claudeListFolder(listId: string): string {
  const folder = listId.replace(/[^a-zA-Z0-9_-]/g, '-');
  if (folder.length <= LIST_NAME_MAX) return folder || 'claude-code';
  return `${folder.slice(0, LIST_NAME_MAX - 13)}-${sha(folder).slice(0, 12)}`;
}

/**
 * The task list every runtime's hook in a project shares (Claude Code's tasks, the plan given back at SessionStart):
 * the name the user set (AGENT_TASKS_LIST, or Claude Code's CLAUDE_CODE_TASK_LIST_ID named as Claude Code names its
 * folder), else one per project: the git root holding `cwd` (or `cwd` itself), named after its folder with a short
 * hash of its path so two projects of the same folder name keep two lists.
 */
export function projectListName(cwd: string | undefined, env: Record<string, string | undefined>): string {
  if (env.AGENT_TASKS_LIST) return listNameOf(env.AGENT_TASKS_LIST);
  if (env.CLAUDE_CODE_TASK_LIST_ID) return claudeListFolder(env.CLAUDE_CODE_TASK_LIST_ID);
  const dir = path.resolve(cwd || '.');
  const root = gitRoot(dir) ?? dir;
  return listNameOf(`${path.basename(root) || 'root'}-${sha(root).slice(0, 8)}`);
}

/** The folder a session is titled after: the project's git root, or the working folder. */
export function projectFolder(cwd: string | undefined): string {
  if (!cwd) return '';
  const dir = path.resolve(cwd);
  return path.basename(gitRoot(dir) ?? dir);
}

/**
 * A client acting as the agent-tasks session of a runtime's chat, opened on first sight: keyed by `externalId`
 * (`<runtime>:<its session id>`, so two runtimes never share one) and titled "<Runtime>: <project folder>".
 */
export async function sessionForExternalId(
  url: string,
  agentKey: string,
  externalId: string,
  title: string,
  signal?: AbortSignal,
): Promise<{ client: HookClient; sessionId: string; workspaceId: string }> {
  const agent = createHookClient({ url, token: agentKey });
  const opened = await agent.trpc.sessions.open.mutate({ externalId, title }, { signal });
  return { client: createHookClient({ url, token: opened.token }), sessionId: opened.session.id, workspaceId: opened.session.workspaceId };
}

/** A runtime's todo item as agent-tasks keeps it: one of the three states, the runtime's own state kept as display text. */
export interface MirroredTodo {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  activeForm?: string;
}

/**
 * A runtime's item state among agent-tasks' three (seed 000): `cancelled` counts as completed (no work is left) and
 * `blocked` as pending (not started); either is kept as the item's display text, so it is shown and given back.
 */
export function mirroredTodo(content: string, status: string): MirroredTodo {
  if (status === 'cancelled') return { content, status: 'completed', activeForm: 'cancelled' };
  if (status === 'blocked') return { content, status: 'pending', activeForm: 'blocked' };
  return { content, status: status as MirroredTodo['status'] };
}

/** The state to show for an item given back: the runtime's own (cancelled, blocked) where one was kept. */
const shownStatus = (item: { status: string; activeForm?: string }) =>
  item.activeForm === 'cancelled' || item.activeForm === 'blocked' ? item.activeForm : item.status;

export interface PlanOptions {
  /** Give back this chat's todo list (not after /clear: the user asked for a fresh start). */
  todos: boolean;
  /** How the runtime writes its list again, e.g. "update_plan". */
  todoTool: string;
  /** At a session's start: first the comments people left on the list's tasks since it last took them (then read). */
  notes?: boolean;
}

/**
 * The "Notes from people: …" lines for the session at its start: the comments people left on the list's tasks that
 * this session was not given yet, marked read for it by the same call; none when the list does not exist yet.
 */
export async function peopleNotes(client: HookClient, listName: string, signal?: AbortSignal): Promise<string[]> {
  const { text } = await client.trpc.tasks.takeNotes.mutate({ listName }, { signal });
  return text ? text.split('\n') : [];
}

/** The plan given back to a model: this chat's todo list, then the open tasks of the project's shared task list. */
export async function planText(client: HookClient, listName: string, options: PlanOptions, signal?: AbortSignal): Promise<string | null> {
  const [view, tasks, notes] = await Promise.all([
    options.todos ? client.trpc.sessions.get.query({}, { signal }) : null,
    // No task mirrored yet means no list yet: that is an empty plan, not a failure.
    client.trpc.tasks.list.query({ listName }, { signal }).catch((error: unknown) => {
      if (refusalOf(error).code === 'NOT_FOUND') return { tasks: [] };
      throw error;
    }),
    options.notes ? peopleNotes(client, listName, signal) : [],
  ]);
  const lines: string[] = [...notes];
  const items = view?.todo.items ?? [];
  if (items.length) {
    lines.push(
      `Todo list of this chat (kept by agent-tasks, revision ${view!.todo.revision}; send the whole list again with ${options.todoTool} when it changes):`,
    );
    for (const t of items) lines.push(`- [${shownStatus(t)}] ${t.content}`);
  }
  const open = tasks.tasks.filter((t) => t.status === 'pending' || t.status === 'in_progress');
  if (open.length) {
    lines.push(
      `Open tasks of task list "${listName}", shared by every agent in this project (kept by agent-tasks; update them with its task tools, listName "${listName}"):`,
    );
    for (const t of open) {
      const blocked = t.blockedBy.length ? ` (blocked by ${t.blockedBy.join(', ')})` : '';
      const owner = t.owner ? ` (owner: ${t.owner})` : '';
      lines.push(`- ${t.id} [${t.status}] ${t.subject}${owner}${blocked}`);
    }
  }
  return contextText(lines);
}

/** Lines of a plan as one text a model is given back, at most CONTEXT_MAX characters (the cut says how many lines it
 * left out); null for no lines. */
export function contextText(lines: readonly string[]): string | null {
  if (!lines.length) return null;
  let text = '';
  for (const [i, line] of lines.entries()) {
    const more = `\n… and ${lines.length - i} more lines`;
    if (text.length + line.length + 1 + more.length > CONTEXT_MAX) return `${text}${more}`;
    text += (text ? '\n' : '') + line;
  }
  return text;
}
