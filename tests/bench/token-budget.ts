// Bench section: what a model reads, in tokens (js-tiktoken, o200k_base and cl100k_base): TaskList of 100 tasks with two
// blockers each — as answered now and in the earlier one-line-per-task format with full ids — and every tool definition.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { taskLine } from '@agent-tasks/core';
import { createClient, openSessionClient, taskTools } from '@agent-tasks/sdk';
import { startApp } from '@agent-tasks/server';
import { getEncoding } from 'js-tiktoken';
import { ENCODING, TASK_LIST_BOUND, TOOL_DEFINITIONS_BOUND, seedHundredTasks, toolDefinitionsText } from '../support/token-budget.ts';
import { textTable } from './text-table.ts';

const encodings = [ENCODING, 'cl100k_base'] as const;

export async function tokenBudgetBench(log: (line: string) => void) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-bench-tokens-'));
  const app = await startApp({ databaseFile: path.join(dir, 'bench.db'), port: 0 });
  try {
    const admin = createClient({ url: app.url, token: app.firstRun?.adminKey ?? '' });
    const { token } = await admin.keys.create({ name: 'bench', role: 'agent' });
    const { client } = await openSessionClient(createClient({ url: app.url, token }), { title: 'token bench' });
    log('tokens: 100 tasks with two blockers each…');
    await seedHundredTasks(client, 'hundred');
    const input = { listName: 'hundred', status: ['pending' as const] };
    const now =
      (await taskTools(client)
        .find((t) => t.name === 'TaskList')
        ?.handler(input)) ?? '';
    // The same answer in the format TaskList had before: one line per task, full ids, blockers by full id.
    const before = (await client.tasks.list(input)).tasks.map(taskLine).join('\n');
    return {
      texts: {
        'TaskList, 100 tasks x 2 blockers (now)': now,
        'TaskList, same tasks, earlier format (full ids)': before,
        'all tool definitions (MCP tools/list JSON)': toolDefinitionsText(),
      },
    };
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function reportTokenBudget(result: Awaited<ReturnType<typeof tokenBudgetBench>>) {
  const counters = encodings.map((name) => ({ name, encoder: getEncoding(name) }));
  const rows = Object.entries(result.texts).map(([what, text]) => [
    what,
    String(text.length),
    ...counters.map((c) => String(c.encoder.encode(text).length)),
  ]);
  return [
    `What a model reads, in tokens (js-tiktoken ${encodings.join(' / ')}); bounds (${ENCODING}): TaskList ≤ ${TASK_LIST_BOUND}, tool definitions ≤ ${TOOL_DEFINITIONS_BOUND}`,
    textTable(['text', 'characters', ...encodings], rows),
  ].join('\n');
}
