// Claude Code hook payloads in the shape its hooks reference documents (https://code.claude.com/docs/en/hooks): the
// common fields, then PostToolUse's tool_name/tool_input/tool_response/tool_use_id or SessionStart's source. Tool
// inputs and answers follow the Agent SDK's TodoWrite and Task tool shapes (…/agent-sdk/todo-tracking).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectListName } from '@agent-tasks/sdk';

export type Todo = { content: string; status: 'pending' | 'in_progress' | 'completed'; activeForm: string };

export interface ClaudeSession {
  sessionId: string;
  cwd: string;
  /** The project's task list, where the hook mirrors the session's tasks (no AGENT_TASKS_LIST or CLAUDE_CODE_TASK_LIST_ID). */
  listName: string;
  /** Set inside a subagent. */
  agent?: { id: string; type: string };
}

/** A Claude Code session; by default in a project of its own (a folder shop-api under a fresh path), so each test's
 * tasks are a list of their own. */
export const claudeSession = (cwd = `/home/dev/projects/${randomUUID().slice(0, 8)}/shop-api`): ClaudeSession => ({
  sessionId: randomUUID(),
  cwd,
  listName: projectListName(cwd, {}),
});

const common = (s: ClaudeSession, event: string) => ({
  session_id: s.sessionId,
  transcript_path: `/home/dev/.claude/projects/-home-dev-projects-shop-api/${s.sessionId}.jsonl`,
  cwd: s.cwd,
  permission_mode: 'default',
  hook_event_name: event,
  ...(s.agent ? { agent_id: s.agent.id, agent_type: s.agent.type } : {}),
});

const toolUseId = () => `toolu_01${randomUUID().replace(/-/g, '').slice(0, 22)}`;

export const todoWrite = (s: ClaudeSession, todos: Todo[], oldTodos: Todo[] = []) => ({
  ...common(s, 'PostToolUse'),
  tool_name: 'TodoWrite',
  tool_input: { todos },
  tool_response: { oldTodos, newTodos: todos },
  tool_use_id: toolUseId(),
});

export const taskCreate = (
  s: ClaudeSession,
  id: string,
  input: { subject: string; description: string; activeForm?: string; metadata?: Record<string, unknown> },
) => ({
  ...common(s, 'PostToolUse'),
  tool_name: 'TaskCreate',
  tool_input: input,
  tool_response: { task: { id, subject: input.subject } },
  tool_use_id: toolUseId(),
});

export const taskUpdate = (
  s: ClaudeSession,
  input: {
    taskId: string;
    status?: 'pending' | 'in_progress' | 'completed' | 'deleted';
    subject?: string;
    activeForm?: string;
    owner?: string;
    addBlocks?: string[];
    addBlockedBy?: string[];
  },
) => ({
  ...common(s, 'PostToolUse'),
  tool_name: 'TaskUpdate',
  tool_input: input,
  tool_response: { success: true, taskId: input.taskId, updatedFields: Object.keys(input).filter((k) => k !== 'taskId') },
  tool_use_id: toolUseId(),
});

export const sessionStart = (s: ClaudeSession, source: 'startup' | 'resume' | 'clear' | 'compact') => ({
  ...common(s, 'SessionStart'),
  source,
  model: 'claude-sonnet-4-5',
});

/** A tool the hook does not mirror (a broad matcher sends these too). */
export const bashUse = (s: ClaudeSession) => ({
  ...common(s, 'PostToolUse'),
  tool_name: 'Bash',
  tool_input: { command: 'pnpm test', description: 'Run the tests' },
  tool_response: { stdout: 'ok', stderr: '', interrupted: false },
  tool_use_id: toolUseId(),
});

/** A payload recorded in `tests/fixtures/claude-code/<name>.json`, made this session's (its id, folder and transcript). */
export function claudeFixture(name: string, s: ClaudeSession, patch: Record<string, unknown> = {}): Record<string, unknown> {
  const recorded = JSON.parse(readFileSync(path.join(fixturesDir, `${name}.json`), 'utf8')) as Record<string, unknown>;
  const own = common(s, String(recorded.hook_event_name));
  const mine: Record<string, unknown> = { session_id: own.session_id, transcript_path: own.transcript_path, cwd: own.cwd };
  if (s.agent) Object.assign(mine, { agent_id: s.agent.id, agent_type: s.agent.type });
  return { ...recorded, ...mine, ...patch };
}

/** The recorded facts in `tests/fixtures/claude-code/<name>.json`, as they are. */
export const claudeFacts = <T>(name: string): T => JSON.parse(readFileSync(path.join(fixturesDir, `${name}.json`), 'utf8')) as T;

const fixturesDir = path.resolve(import.meta.dirname, '../fixtures/claude-code');
