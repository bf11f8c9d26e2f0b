// Claude Code hook handler: keeps Claude Code's todo list and task tools in agent-tasks, and gives the plan back when a
// session starts, resumes, is forked or compacted. It records what Claude Code did, not what agent-tasks' own tools
// would allow. It never blocks the agent: any failure is one line on stderr and exit 0.
//
// Claude Code's hook input and output (https://code.claude.com/docs/en/hooks, and its 2.1 code): one JSON object on
// stdin with `session_id`, `transcript_path`, `cwd`, `permission_mode`, `hook_event_name` (and `agent_id`/`agent_type`
// inside a subagent; later versions add fields such as `duration_ms`, all ignored here). PostToolUse adds `tool_name`,
// `tool_input`, `tool_response`, `tool_use_id`; SessionStart adds `source` (startup, resume, clear, compact; fork in
// later versions) and `model`, and may answer `{ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext } }`.
// A forked conversation (/branch) has a new session id; its transcript's lines name the parent in `forkedFrom.sessionId`.
// Tool inputs: TodoWrite `{ todos: [{ content, status, activeForm }] }` (no limit on items or length, repeats and
// several items in progress allowed); TaskCreate `{ subject, description, activeForm?, metadata? }` answering
// `{ task: { id, subject } }`; TaskUpdate `{ taskId, status?, subject?, description?, activeForm?, owner?, metadata?,
// addBlocks?, addBlockedBy? }` answering `{ success, taskId, updatedFields, error?, statusChange? }` — `success: false`
// when nothing changed (no such task, or a TaskCompleted hook refused the completion). Claude Code checks no blockers.
// TaskCreated is asked before a change Claude Code may still refuse, PostCompact only shows its output to the user: the
// hook records and answers nothing on them. TaskCompleted (`task_id`, `task_subject`, `task_description?`,
// `teammate_name?`, `team_name?`) is asked before a completion: when the mirrored task's list requires evidence the task
// lacks, the hook exits 2 with the reason on stderr, and Claude Code keeps the task open (its TaskUpdate answers
// `success: false`). Bash is evidence a hook saw run: PostToolUse means the command succeeded (exit 0), PostToolUseFailure
// carries `error` starting "Exit code N"; each is recorded on the session's in-progress tasks of the mirrored list.
//
// Its tasks go into the project's task list, the one the Codex and Gemini CLI hooks and the opencode plugin use
// (projectListName: AGENT_TASKS_LIST or CLAUDE_CODE_TASK_LIST_ID when set, else the project's git root), so a plan
// started in Claude Code is the plan another runtime is given in the same project. Claude Code numbers the tasks of
// each of its own task lists from 1 (the session's, unless CLAUDE_CODE_TASK_LIST_ID shares one): a mirror's id names
// that list, so two sessions' task #1 are two tasks. The todo list (TodoWrite) stays the chat's own.
import { createReadStream } from 'node:fs';
import * as z from 'zod/mini';
import { type HookClient, createHookClient } from './hook-client.ts';
import { refusalOf } from './errors.ts';
import {
  claudeListFolder,
  contextText,
  peopleNotes,
  HOOK_TIMEOUT_MS,
  type HookContext,
  type HookIo,
  type HookOutcome,
  parseAs,
  projectFolder,
  projectListName,
  runHookWith,
  sha,
} from './hook-support.ts';

/** The hook's io (hook-support's HookIo); CLAUDE_CODE_TASK_LIST_ID in its env names a shared task list. */
export type ClaudeCodeHookIo = HookIo;

/** The longest the hook may take: past it, it reports on stderr and exits 0 (AGENT_TASKS_HOOK_TIMEOUT_MS overrides). */
export const CLAUDE_CODE_HOOK_TIMEOUT_MS = HOOK_TIMEOUT_MS;

const hookInput = z.looseObject({
  session_id: z.string().check(z.minLength(1), z.maxLength(200)),
  hook_event_name: z.string(),
  cwd: z.optional(z.string()),
  transcript_path: z.optional(z.string()),
  agent_id: z.optional(z.string().check(z.minLength(1))),
  agent_type: z.optional(z.string()),
  source: z.optional(z.string()),
  tool_name: z.optional(z.string()),
  tool_input: z.optional(z.unknown()),
  tool_response: z.optional(z.unknown()),
  task_id: z.optional(z.union([z.string(), z.number()])),
  error: z.optional(z.string()),
  is_interrupt: z.optional(z.boolean()),
});
type HookInput = z.infer<typeof hookInput>;

const todoWriteInput = z.looseObject({
  todos: z.array(z.looseObject({ content: z.string(), status: z.string(), activeForm: z.optional(z.string()) })),
});
const taskCreateInput = z.looseObject({
  subject: z.string(),
  description: z.optional(z.string()),
  activeForm: z.optional(z.string()),
  metadata: z.optional(z.record(z.string(), z.unknown())),
});
const taskCreateResponse = z.looseObject({ task: z.looseObject({ id: z.union([z.string(), z.number()]) }) });
const taskUpdateInput = z.looseObject({
  taskId: z.union([z.string(), z.number()]),
  status: z.optional(z.string()),
  subject: z.optional(z.string()),
  description: z.optional(z.string()),
  activeForm: z.optional(z.string()),
  owner: z.optional(z.string()),
  metadata: z.optional(z.record(z.string(), z.unknown())),
  addBlocks: z.optional(z.array(z.union([z.string(), z.number()]))),
  addBlockedBy: z.optional(z.array(z.union([z.string(), z.number()]))),
});

/** A failure to report on stderr (the one line the hook writes there). */

/**
 * Claude Code's own task list, the one it numbers its tasks in: its list id (CLAUDE_CODE_TASK_LIST_ID, shared by
 * env) or the session id, made into the folder name Claude Code uses (every character other than a letter, digit,
 * "_" or "-" becomes "-"). A name past 100 characters keeps its start and a hash of the whole, so two long names
 * stay two lists. With CLAUDE_CODE_TASK_LIST_ID set it is also the agent-tasks list the tasks go into.
 */
export const claudeTaskListName = (input: { session_id: string }, env: Record<string, string | undefined>): string =>
  claudeListFolder(env.CLAUDE_CODE_TASK_LIST_ID || input.session_id);

/**
 * The mirror of task `taskId` of Claude Code's task list `claudeList` (claudeTaskListName): a T-… id derived from the
 * workspace, that list and the Claude id, so every hook process finds the same task without keeping a map anywhere,
 * and two Claude Code lists' task #1 (two sessions in one project) are two tasks of the project's list.
 */
export function claudeMirrorTaskId(workspaceId: string, claudeList: string, taskId: string | number): string {
  const claude = String(taskId);
  const tail = /^[A-Za-z0-9]{1,40}$/.test(claude) ? claude : sha(claude).slice(0, 12);
  return `T-cc-${claudeListKey(workspaceId, claudeList)}-${tail}`;
}

const claudeListKey = (workspaceId: string, claudeList: string) => sha(`${workspaceId}\n${claudeList}`).slice(0, 16);

/**
 * How the model knows a task: `#<Claude Code id>` for a mirror of its own Claude Code list (the ids TaskUpdate
 * takes), the task's id otherwise (another session's or runtime's task).
 */
const claudeNames = (workspaceId: string, claudeList: string) => {
  const own = new RegExp(`^T-cc-${claudeListKey(workspaceId, claudeList)}-([A-Za-z0-9]+)$`);
  return (id: string) => {
    const claude = own.exec(id)?.[1];
    return claude ? `#${claude}` : id;
  };
};

/** Longest first transcript line read to find the session a fork was made from. */
const TRANSCRIPT_LINE_MAX = 16 * 1024 * 1024;

/**
 * The Claude Code session a conversation was forked from: a fork's transcript starts with the parent's messages, each
 * carrying `forkedFrom: { sessionId, messageUuid }`. Null for any other transcript, or one that cannot be read.
 */
async function forkedFrom(input: HookInput): Promise<string | null> {
  if (!input.transcript_path) return null;
  let line = '';
  try {
    const stream = createReadStream(input.transcript_path, { encoding: 'utf8', highWaterMark: 64 * 1024 });
    for await (const chunk of stream) {
      const text = chunk as string;
      const end = text.indexOf('\n');
      line += end < 0 ? text : text.slice(0, end);
      if (end >= 0 || line.length > TRANSCRIPT_LINE_MAX) break;
    }
    stream.destroy();
    const parent = (JSON.parse(line) as { forkedFrom?: { sessionId?: unknown } }).forkedFrom?.sessionId;
    return typeof parent === 'string' && parent && parent !== input.session_id ? parent : null;
  } catch {
    return null;
  }
}

/** A client acting as the agent-tasks session of this Claude Code session (or of its subagent), opened on first sight. */
async function sessionFor(url: string, agentKey: string, input: HookInput, signal: AbortSignal) {
  const agent = createHookClient({ url, token: agentKey });
  const project = projectFolder(input.cwd);
  const main = await agent.trpc.sessions.open.mutate(
    { externalId: input.session_id, title: `Claude Code${project ? `: ${project}` : ''}` },
    { signal },
  );
  let client = createHookClient({ url, token: main.token });
  let session = main.session;
  if (input.agent_id) {
    // A subagent keeps its own list: a subagent session under the main one, keyed by both ids.
    // An external id holds 200 characters: a longer agent id is named by its hash.
    const joined = `${input.session_id}/${input.agent_id}`;
    const sub = await client.trpc.sessions.open.mutate(
      {
        externalId: joined.length <= 200 ? joined : `${input.session_id}/${sha(input.agent_id).slice(0, 40)}`,
        title: `Claude Code subagent${input.agent_type ? `: ${input.agent_type}` : ''}`,
      },
      { signal },
    );
    client = createHookClient({ url, token: sub.token });
    session = sub.session;
  }
  return { client, session };
}

const parse = <T>(schema: z.ZodMiniType<T>, value: unknown, what: string): T => parseAs(schema, value, what, 'Claude Code');

async function mirrorTodoWrite(client: HookClient, input: HookInput, signal: AbortSignal) {
  const { todos } = parse(todoWriteInput, input.tool_input, 'the TodoWrite input');
  const items = todos.map((t) => ({
    content: t.content,
    status: t.status as 'pending' | 'in_progress' | 'completed',
    ...(t.activeForm?.trim() ? { activeForm: t.activeForm } : {}),
  }));
  await client.trpc.todos.mirror.mutate({ todos: items }, { signal });
}

/** Where a Claude Code session's tasks go: the project's list, and Claude Code's own list that numbers them. */
interface Lists {
  workspaceId: string;
  listName: string;
  claudeList: string;
}

async function mirrorTaskCreate(client: HookClient, { workspaceId, listName, claudeList }: Lists, input: HookInput, signal: AbortSignal) {
  const task = parse(taskCreateInput, input.tool_input, 'the TaskCreate input');
  const { task: created } = parse(taskCreateResponse, input.tool_response, 'the TaskCreate answer');
  await client.trpc.tasks.mirror.mutate(
    {
      listName,
      id: claudeMirrorTaskId(workspaceId, claudeList, created.id),
      create: {
        subject: task.subject,
        description: task.description ?? '',
        ...(task.activeForm === undefined ? {} : { activeForm: task.activeForm }),
        metadata: { ...task.metadata, claudeCode: { taskId: String(created.id), listName: claudeList } },
      },
    },
    { signal },
  );
}

/** TaskUpdate's answer: `success: false` means Claude Code changed nothing (no such task, or a hook refused it). */
const taskUpdateResponse = z.looseObject({ success: z.optional(z.boolean()) });

/** What went unrecorded of a mirrored change, for the stderr line; null when everything was. */
async function mirrorTaskUpdate(client: HookClient, lists: Lists, input: HookInput, signal: AbortSignal): Promise<string | null> {
  const update = parse(taskUpdateInput, input.tool_input, 'the TaskUpdate input');
  if (taskUpdateResponse.safeParse(input.tool_response).data?.success === false) return null;
  const { workspaceId, listName, claudeList } = lists;
  const mirror = (claudeId: string | number) => claudeMirrorTaskId(workspaceId, claudeList, claudeId);
  const { taskId, status, owner, addBlocks, addBlockedBy, subject, description, activeForm, metadata } = update;
  const { notRecorded } = await client.trpc.tasks.mirror.mutate(
    {
      listName,
      id: mirror(taskId),
      ...(status === undefined ? {} : { status: status as 'pending' | 'in_progress' | 'completed' | 'deleted' }),
      ...(subject === undefined ? {} : { subject }),
      ...(description === undefined ? {} : { description }),
      ...(activeForm === undefined ? {} : { activeForm: activeForm.trim() ? activeForm : null }),
      ...(owner === undefined ? {} : { owner: owner.trim() ? owner : null }),
      ...(metadata === undefined ? {} : { metadata }),
      ...(addBlocks?.length ? { addBlocks: addBlocks.map(mirror) } : {}),
      ...(addBlockedBy?.length ? { addBlockedBy: addBlockedBy.map(mirror) } : {}),
    },
    { signal },
  );
  if (!notRecorded.length) return null;
  const claudeName = claudeNames(workspaceId, claudeList);
  const named = (text: string) => text.replace(/T-cc-[0-9a-f]{16}-[A-Za-z0-9]+/g, claudeName);
  const edges = notRecorded.map(
    (e) => `${claudeName(e.blockerId)} blocks ${claudeName(e.blockedId)} (${named(e.reason).replace(/\.$/, '')})`,
  );
  return `recorded TaskUpdate of #${String(taskId)}, except ${edges.join('; ')}: agent-tasks keeps no cycles.`;
}

/**
 * The plan given back to the model: the todo list (unless `withTodos` is false), then the open tasks of the mirrored
 * task list.
 */
async function sessionContext(client: HookClient, lists: Lists, withTodos: boolean, signal: AbortSignal): Promise<string | null> {
  const { listName } = lists;
  const [view, tasks, notes] = await Promise.all([
    withTodos ? client.trpc.sessions.get.query({}, { signal }) : null,
    // No task mirrored yet means no list yet: that is an empty plan, not a failure.
    client.trpc.tasks.list.query({ listName }, { signal }).catch((error: unknown) => {
      if (refusalOf(error).code === 'NOT_FOUND') return { tasks: [] };
      throw error;
    }),
    // People's comments since this session last started come first.
    peopleNotes(client, listName, signal),
  ]);
  const lines: string[] = [...notes];
  const items = view?.todo.items ?? [];
  if (view && items.length) {
    lines.push(
      `Todo list (kept by agent-tasks, revision ${view.todo.revision}; send the whole list again with TodoWrite when it changes):`,
    );
    for (const t of items)
      lines.push(`- [${t.status}] ${t.content}${t.status === 'in_progress' && t.activeForm ? ` (now: ${t.activeForm})` : ''}`);
  }
  const open = tasks.tasks.filter((t) => t.status === 'pending' || t.status === 'in_progress');
  if (open.length) {
    const name = claudeNames(lists.workspaceId, lists.claudeList);
    lines.push(
      `Open tasks of task list "${listName}", shared by every agent in this project (kept by agent-tasks; update yours, #n, with TaskUpdate):`,
    );
    for (const t of open) {
      const blocked = t.blockedBy.length ? ` (blocked by ${t.blockedBy.map(name).join(', ')})` : '';
      lines.push(`- ${name(t.id)} [${t.status}] ${t.subject}${blocked}`);
    }
  }
  return contextText(lines);
}

const bashInput = z.looseObject({ command: z.string() });
const bashResponse = z.looseObject({
  stdout: z.optional(z.string()),
  stderr: z.optional(z.string()),
  interrupted: z.optional(z.boolean()),
});
/** The longest command and output tail kept as evidence. */
const COMMAND_MAX = 2000;
const TAIL_MAX = 2000;
const tail = (text: string) => (text.length <= TAIL_MAX ? text : `…${text.slice(-(TAIL_MAX - 1))}`);
const cut = (text: string) => (text.length <= COMMAND_MAX ? text : `${text.slice(0, COMMAND_MAX - 1)}…`);

/**
 * The command evidence a Bash run gives: PostToolUse is a command that succeeded (exit 0), PostToolUseFailure one whose
 * error starts "Exit code N". Null for a run that says nothing of an exit code (interrupted, or failed to start).
 */
function bashEvidence(input: HookInput) {
  const { command } = parse(bashInput, input.tool_input, 'the Bash input');
  if (!command.trim()) return null;
  if (input.hook_event_name === 'PostToolUse') {
    const answer = bashResponse.safeParse(input.tool_response).data;
    if (answer?.interrupted) return null;
    const output = [answer?.stdout, answer?.stderr].filter(Boolean).join('\n').trim();
    return { kind: 'command' as const, command: cut(command), exitCode: 0, ...(output ? { outputTail: tail(output) } : {}) };
  }
  const exit = /^Exit code (-?\d+)/.exec(input.error ?? '');
  if (!exit || input.is_interrupt) return null;
  const output = (input.error ?? '').slice(exit[0].length).trim();
  return { kind: 'command' as const, command: cut(command), exitCode: Number(exit[1]), ...(output ? { outputTail: tail(output) } : {}) };
}

/** TaskCompleted: the reason to keep the task open when its list requires evidence it lacks, or null. */
async function completionRefusal(client: HookClient, lists: Omit<Lists, 'workspaceId'>, input: HookInput, signal: AbortSignal) {
  if (input.task_id === undefined) return null;
  const { listName, claudeList } = lists;
  const { workspace } = await client.trpc.workspaces.whoami.query(undefined, { signal });
  const id = claudeMirrorTaskId(workspace.id, claudeList, input.task_id);
  const check = await client.trpc.tasks.completionCheck.query({ listName, id }, { signal });
  // The reason names the task as the model knows it (#<Claude Code id>).
  return check.allowed ? null : (check.reason ?? '').split(id).join(`#${String(input.task_id)}`);
}

/** A SessionStart for a conversation Claude Code resumed or forked: a fork (a new session id) may name its parent. */
const mayBeFork = (source: string | undefined) => source === 'fork' || source === 'resume';

async function handle({ input: raw, url, agentKey, signal, env }: HookContext): Promise<HookOutcome> {
  const input = parse(hookInput, raw, 'the hook input');
  const event = input.hook_event_name;
  const tool = input.tool_name;
  const nothing: HookOutcome = { answer: null, note: null };
  // After /clear Claude Code starts a new session with an empty todo list; the project's task list stays.
  const cleared = event === 'SessionStart' && input.source === 'clear';
  const bash = (event === 'PostToolUse' || event === 'PostToolUseFailure') && tool === 'Bash';
  const known =
    (event === 'PostToolUse' && (tool === 'TodoWrite' || tool === 'TaskCreate' || tool === 'TaskUpdate')) ||
    bash ||
    event === 'TaskCompleted' ||
    event === 'SessionStart';
  // Other events and tools (a broad matcher; TaskCreated and PostCompact among them) need nothing.
  if (!known) return nothing;
  const evidence = bash ? bashEvidence(input) : null;
  if (bash && !evidence) return nothing;
  const listName = projectListName(input.cwd, env);
  const claudeList = claudeTaskListName(input, env);
  if (event === 'TaskCompleted') {
    // Only asks (with the agent key: no session is opened, nothing is written).
    const reason = await completionRefusal(createHookClient({ url, token: agentKey }), { listName, claudeList }, input, signal);
    return reason === null ? nothing : { ...nothing, block: reason };
  }
  const parent = event === 'SessionStart' && mayBeFork(input.source) ? await forkedFrom(input) : null;
  const { client, session } = await sessionFor(url, agentKey, input, signal);
  const lists: Lists = { workspaceId: session.workspaceId, listName, claudeList };
  if (event === 'SessionStart') {
    // A fork starts from the todo list of the conversation it was forked from (when it has none of its own yet).
    if (parent) await client.trpc.todos.mirror.mutate({ forkOf: parent }, { signal });
    const context = await sessionContext(client, lists, !cleared, signal);
    const answer =
      context === null ? null : JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: context } });
    return { answer, note: null };
  }
  if (evidence) {
    await client.trpc.tasks.hookEvidence.mutate({ listName, evidence }, { signal });
    return nothing;
  }
  if (tool === 'TodoWrite') await mirrorTodoWrite(client, input, signal);
  else if (tool === 'TaskCreate') await mirrorTaskCreate(client, lists, input, signal);
  else return { answer: null, note: await mirrorTaskUpdate(client, lists, input, signal) };
  return nothing;
}

/**
 * Runs one Claude Code hook: reads its JSON from `io.stdin`, records or answers, and resolves with the exit code,
 * always 0 so the agent is never blocked. A server that is down, refuses, or takes longer than 2 s is reported as one
 * line on `io.stderr`. SessionStart's answer (the current plan as additional context) goes to `io.stdout`.
 */
export const runClaudeCodeHook = (io: ClaudeCodeHookIo): Promise<number> => runHookWith(io, handle);
