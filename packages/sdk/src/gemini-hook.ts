// Gemini CLI hook handler: keeps Gemini's todo list (its write_todos tool) in agent-tasks and gives the plan back at
// session start and before each turn while work is open, so a compressed chat still has it. It never blocks the
// agent: it always exits 0 (exit 2 would block), and any failure is one line on stderr.
//
// Gemini CLI's hook input and output (@google/gemini-cli-core 0.61.0, hooks/types): one JSON object on stdin with
// `session_id`, `transcript_path`, `cwd`, `hook_event_name`, `timestamp`; SessionStart adds `source` (startup, resume,
// clear) and may answer `{ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext } }`; AfterTool adds
// `tool_name`, `tool_input`, `tool_response` (`{ llmContent, returnDisplay, error? }`); BeforeAgent adds `prompt` and
// may answer `{ hookSpecificOutput: { hookEventName: "BeforeAgent", additionalContext } }`, appended to that prompt.
// write_todos' arguments: `{ todos: [{ description, status: pending|in_progress|completed|cancelled|blocked }] }`.
import * as z from 'zod/mini';
import {
  type HookIo,
  mirroredTodo,
  parseAs,
  planText,
  projectFolder,
  projectListName,
  runHookWith,
  runtimeHookInput,
  sessionForExternalId,
} from './hook-support.ts';

const RUNTIME = 'Gemini CLI';

const hookInput = runtimeHookInput;

const writeTodosInput = z.looseObject({
  todos: z.array(z.looseObject({ description: z.string(), status: z.string() })),
});

/** The agent-tasks external id of a Gemini CLI session. */
export const geminiExternalId = (sessionId: string) => `gemini:${sessionId}`;

/**
 * Runs one Gemini CLI hook: reads its JSON from `io.stdin`, records or answers, and resolves with the exit code,
 * always 0. AfterTool for write_todos records the list as the chat's todo list; SessionStart answers the plan (after
 * /clear only the shared tasks); BeforeAgent answers it too while any item or task is still open.
 */
export function runGeminiHook(io: HookIo): Promise<number> {
  return runHookWith(io, async ({ input: raw, url, agentKey, signal, env }) => {
    const input = parseAs(hookInput, raw, 'the hook input', RUNTIME);
    const event = input.hook_event_name;
    const isTodos = event === 'AfterTool' && input.tool_name === 'write_todos';
    if (!isTodos && event !== 'SessionStart' && event !== 'BeforeAgent') return null;
    const folder = projectFolder(input.cwd);
    const { client } = await sessionForExternalId(
      url,
      agentKey,
      geminiExternalId(input.session_id),
      `Gemini CLI${folder ? `: ${folder}` : ''}`,
      signal,
    );
    if (isTodos) {
      const { todos } = parseAs(writeTodosInput, input.tool_input, 'the write_todos input', RUNTIME);
      await client.trpc.todos.mirror.mutate({ todos: todos.map((t) => mirroredTodo(t.description, t.status)) }, { signal });
      return null;
    }
    const listName = projectListName(input.cwd, env);
    const text = await planText(
      client,
      listName,
      { todos: input.source !== 'clear', todoTool: 'write_todos', notes: event === 'SessionStart' },
      signal,
    );
    if (text === null) return null;
    if (event === 'BeforeAgent' && !/\[(pending|in_progress|blocked)\]/.test(text)) return null;
    return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: text } });
  });
}
