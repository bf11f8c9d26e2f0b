// opencode plugin: keeps opencode's todo list (its todowrite tool) in agent-tasks and gives the plan back to the model
// at the start of a session (in its system prompt) and into the compaction prompt, so the summary keeps it.
// It never blocks the agent: a failure is one line on stderr (once per kind of failure), and the hook returns.
//
// opencode's plugin API (@opencode-ai/plugin 1.18.33): a module export `(input: { directory, worktree, … }) =>
// Promise<Hooks>`; `tool.execute.after(input: { tool, sessionID, callID, args }, output: { title, output, metadata })`;
// `experimental.session.compacting(input: { sessionID }, output: { context: string[], prompt? })`;
// `experimental.chat.system.transform(input: { sessionID?, model }, output: { system: string[] })`.
// todowrite's arguments: `{ todos: [{ content, status: pending|in_progress|completed|cancelled, priority }] }`.
import * as z from 'zod/mini';
import {
  HOOK_TIMEOUT_MS,
  type MirroredTodo,
  mirroredTodo,
  planText,
  problemLine,
  projectFolder,
  projectListName,
  sessionForExternalId,
} from './hook-support.ts';

/** The part of opencode's plugin input the plugin reads. */
export interface OpencodePluginInput {
  directory: string;
  worktree?: string;
}

/** The opencode hooks the plugin implements, in opencode's own shapes. */
export interface AgentTasksOpencodeHooks {
  'tool.execute.after': (
    input: { tool: string; sessionID: string; callID: string; args: unknown },
    output: { title: string; output: string; metadata: unknown },
  ) => Promise<void>;
  'experimental.session.compacting': (input: { sessionID: string }, output: { context: string[]; prompt?: string }) => Promise<void>;
  'experimental.chat.system.transform': (input: { sessionID?: string; model?: unknown }, output: { system: string[] }) => Promise<void>;
}

export interface AgentTasksOpencodeOptions {
  /** Defaults to process.env (AGENT_TASKS_URL, AGENT_TASKS_TOKEN, AGENT_TASKS_LIST, AGENT_TASKS_HOOK_TIMEOUT_MS). */
  env?: Record<string, string | undefined>;
  /** Where failures go (one line each); defaults to process.stderr. */
  stderr?: { write(text: string): unknown };
}

const todowriteArgs = z.looseObject({ todos: z.array(z.looseObject({ content: z.string(), status: z.string() })) });

/** How long a plan given in the system prompt is reused before it is read again (ms). */
const SYSTEM_PLAN_TTL_MS = 10_000;

/** The agent-tasks external id of an opencode session. */
export const opencodeExternalId = (sessionId: string) => `opencode:${sessionId}`;

/**
 * Makes the plugin's hooks for one opencode instance (its project directory). Each hook is a client of a running
 * server; none throws, and none waits longer than the hook timeout (2 s unless AGENT_TASKS_HOOK_TIMEOUT_MS says).
 */
export function agentTasksOpencodeHooks(input: OpencodePluginInput, options: AgentTasksOpencodeOptions = {}): AgentTasksOpencodeHooks {
  const env = options.env ?? process.env;
  const stderr = options.stderr ?? process.stderr;
  const cwd = input.worktree || input.directory;
  const folder = projectFolder(cwd);
  const title = `opencode${folder ? `: ${folder}` : ''}`;
  const reported = new Set<string>();
  const say = (line: string) => {
    if (reported.has(line)) return;
    reported.add(line);
    stderr.write(`agent-tasks opencode plugin: ${line}\n`);
  };

  /** Runs `work` against the session of `sessionID` within the deadline; a failure is said once and swallowed. */
  async function withSession<T>(
    sessionID: string,
    work: (client: Awaited<ReturnType<typeof sessionForExternalId>>['client'], signal: AbortSignal) => Promise<T>,
  ): Promise<T | null> {
    const url = env.AGENT_TASKS_URL;
    const agentKey = env.AGENT_TASKS_TOKEN;
    if (!url || !agentKey) {
      say('set AGENT_TASKS_URL and AGENT_TASKS_TOKEN (an agent key); nothing was recorded.');
      return null;
    }
    const timeoutMs = Number(env.AGENT_TASKS_HOOK_TIMEOUT_MS) || HOOK_TIMEOUT_MS;
    const abort = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const run = (async () => {
      const { client } = await sessionForExternalId(url, agentKey, opencodeExternalId(sessionID), title, abort.signal);
      return work(client, abort.signal);
    })().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    const outcome = await Promise.race([run, deadline]);
    clearTimeout(timer);
    abort.abort();
    if (outcome === 'timeout') {
      say(`agent-tasks at ${url} did not answer within ${timeoutMs / 1000} s; nothing was recorded.`);
      return null;
    }
    if ('error' in outcome) {
      say(problemLine(outcome.error, url));
      return null;
    }
    return outcome.value;
  }

  const plan = (sessionID: string, notes = false) =>
    withSession(sessionID, (client, signal) =>
      planText(client, projectListName(cwd, env), { todos: true, todoTool: 'todowrite', notes }, signal),
    );
  const given = new Map<string, { text: string | null; at: number }>();

  return {
    async 'tool.execute.after'(call) {
      if (call.tool !== 'todowrite') return;
      const parsed = todowriteArgs.safeParse(call.args);
      if (!parsed.success) {
        say('the todowrite input is not in the shape opencode documents; nothing was recorded.');
        return;
      }
      const todos: MirroredTodo[] = parsed.data.todos.map((t) => mirroredTodo(t.content, t.status));
      await withSession(call.sessionID, (client, signal) => client.trpc.todos.mirror.mutate({ todos }, { signal }));
      // The next system prompt reads the list again.
      given.delete(call.sessionID);
    },
    async 'experimental.session.compacting'(call, output) {
      const text = await plan(call.sessionID);
      if (text) output.context.push(`The plan of this session, kept by agent-tasks (keep it in the summary):\n${text}`);
      given.delete(call.sessionID);
    },
    async 'experimental.chat.system.transform'(call, output) {
      if (!call.sessionID) return;
      const last = given.get(call.sessionID);
      let text = last?.text ?? null;
      if (!last || Date.now() - last.at > SYSTEM_PLAN_TTL_MS) {
        // The session's first system prompt is its start: people's notes come with it once.
        text = await plan(call.sessionID, !last);
        given.set(call.sessionID, { text, at: Date.now() });
      }
      if (text) output.system.push(text);
    },
  };
}

/** The plugin as opencode loads it: `export { AgentTasksPlugin } from …` in a file under `.opencode/plugins/`. */
export const AgentTasksPlugin = async (input: OpencodePluginInput): Promise<AgentTasksOpencodeHooks> => agentTasksOpencodeHooks(input);
