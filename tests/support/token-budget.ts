// What a model reads, measured in tokens with a real tokenizer (js-tiktoken, o200k_base): a TaskList of 100 tasks with
// two blockers each, and every tool definition together. Shared by the bound test and `pnpm bench`.
import { randomUUID } from 'node:crypto';
import { toolHandlers, toolKit } from '@agent-tasks/core';
import type { AgentTasksClient } from '@agent-tasks/sdk';
import { getEncoding } from 'js-tiktoken';

export const ENCODING = 'o200k_base';
const encoder = getEncoding(ENCODING);

export const countTokens = (text: string) => encoder.encode(text).length;

/** The bounds issue 15 sets. */
export const TASK_LIST_BOUND = 3000;
export const TOOL_DEFINITIONS_BOUND = 2500;

const VERBS = ['Build', 'Test', 'Deploy', 'Document', 'Review', 'Migrate', 'Refactor', 'Benchmark', 'Configure', 'Release'];
const THINGS = [
  'the login form',
  'the orders API',
  'the users table',
  'the CI cache',
  'the billing job',
  'the search index',
  'the audit log',
  'the admin page',
  'the export worker',
  'the rate limiter',
];

/**
 * A list of 102 tasks with T-{uuid} ids (imported as task files, as another tool would leave them): two roots in
 * progress, then 100 pending tasks each blocked by two earlier ones. TaskList({ status: ["pending"] }) lists the 100.
 */
export async function seedHundredTasks(client: AgentTasksClient, listName: string) {
  const ids = Array.from({ length: 102 }, () => `T-${randomUUID()}`);
  const files = ids.map((id, i) => {
    const blockedBy = i < 2 ? [] : [ids[Math.max(0, i - 2)] as string, ids[i - 1] as string];
    const subject = `${VERBS[i % 10]} ${THINGS[Math.floor(i / 10) % 10]}`;
    const status = i < 2 ? 'in_progress' : 'pending';
    return { name: `${id}.json`, content: JSON.stringify({ id, subject, description: '', status, blocks: [], blockedBy }) };
  });
  await client.tasks.import({ listName, format: 'sisyphus', files });
  return ids;
}

/** Every tool definition as a model receives it (MCP tools/list: name, description, JSON Schema), as one JSON text. */
export function toolDefinitionsText() {
  const list = toolHandlers({} as never, () => '', toolKit).list();
  return JSON.stringify(list);
}
