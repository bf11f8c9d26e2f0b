// Codex CLI hook handler: keeps Codex's plan (its update_plan tool) in agent-tasks and gives the plan back when a
// session starts, resumes, is cleared or has been compacted. It never blocks the agent: any failure is one line on
// stderr and exit 0.
//
// Codex's hook input and output (its command-hook JSON schemas, @openai/codex 0.171.0): one JSON object on stdin with
// `session_id`, `transcript_path`, `cwd`, `hook_event_name`, `model`; SessionStart adds `source` (startup, resume,
// clear, compact, fork) and may answer `{ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext } }`;
// PostToolUse adds `tool_name`, `tool_input` (the tool's arguments), `tool_response`, `tool_use_id`, `turn_id`;
// PostCompact adds `trigger` (manual, auto) and can answer no context (Codex runs SessionStart with source `compact`
// after a compaction for that). update_plan's arguments: `{ explanation?, plan: [{ step, status }] }`.
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

const RUNTIME = 'Codex';

const hookInput = runtimeHookInput;

const updatePlanInput = z.looseObject({
  explanation: z.nullish(z.string()),
  plan: z.array(z.looseObject({ step: z.string(), status: z.string() })),
});

/** The agent-tasks external id of a Codex session. */
export const codexExternalId = (sessionId: string) => `codex:${sessionId}`;

/**
 * Runs one Codex hook: reads its JSON from `io.stdin`, records or answers, and resolves with the exit code, always 0.
 * PostToolUse for update_plan records the plan as the chat's todo list; SessionStart answers the plan as additional
 * context (the chat's list and the open tasks of the project's shared task list; after /clear only the tasks).
 */
export function runCodexHook(io: HookIo): Promise<number> {
  return runHookWith(io, async ({ input: raw, url, agentKey, signal, env }) => {
    const input = parseAs(hookInput, raw, 'the hook input', RUNTIME);
    const event = input.hook_event_name;
    const isPlan = event === 'PostToolUse' && input.tool_name === 'update_plan';
    // PostCompact cannot carry context to the model; other events and tools (a broad matcher) need nothing.
    if (!isPlan && event !== 'SessionStart') return null;
    const folder = projectFolder(input.cwd);
    const { client } = await sessionForExternalId(
      url,
      agentKey,
      codexExternalId(input.session_id),
      `Codex${folder ? `: ${folder}` : ''}`,
      signal,
    );
    if (isPlan) {
      const { plan } = parseAs(updatePlanInput, input.tool_input, 'the update_plan input', RUNTIME);
      await client.trpc.todos.mirror.mutate({ todos: plan.map((p) => mirroredTodo(p.step, p.status)) }, { signal });
      return null;
    }
    const listName = projectListName(input.cwd, env);
    const text = await planText(client, listName, { todos: input.source !== 'clear', todoTool: 'update_plan', notes: true }, signal);
    return text === null ? null : JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } });
  });
}
