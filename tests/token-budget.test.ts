// Keeps what a model reads under its token bounds (issue 15, measured with js-tiktoken o200k_base; a token count is
// deterministic): TaskList of 100 tasks with two blockers each ≤ 3,000 tokens with every id a model needs to act, and
// all tool definitions together ≤ 2,500 tokens with the rules still stated.
import { toolHandlers, toolKit } from '@agent-tasks/core';
import { taskTools } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';
import { TASK_LIST_BOUND, TOOL_DEFINITIONS_BOUND, countTokens, seedHundredTasks, toolDefinitionsText } from './support/token-budget.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

describe('token budget', () => {
  it(`TaskList of 100 tasks with two blockers each is at most ${TASK_LIST_BOUND} tokens, and every shown id acts`, async () => {
    const s = await sessionClient(server);
    await seedHundredTasks(s.client, 'hundred');
    const tools = Object.fromEntries(taskTools(s.client).map((t) => [t.name, t]));
    const input = { listName: 'hundred', status: ['pending'] };
    const text = (await tools.TaskList?.handler(input)) ?? '';
    const lines = text.split('\n');
    expect(lines).toHaveLength(100);
    expect(countTokens(text)).toBeLessThanOrEqual(TASK_LIST_BOUND);

    // Every task and every blocker is named by something the tools take: its #n or its id.
    const { tasks } = await s.client.tasks.list({ listName: 'hundred', status: ['pending'] });
    const idOf = new Map<string, string>();
    for (const t of tasks) idOf.set(t.ref, t.id);
    lines.forEach((line, i) => {
      const task = tasks[i];
      const match = line.match(/^(\S+)\s+\[pending\]\s+(.+?)\s+blockedBy: \[(.*)\]$/);
      expect(match, line).not.toBeNull();
      const [, shown, subject, blockers] = match as RegExpMatchArray;
      expect(idOf.get(shown as string) ?? shown).toBe(task?.id);
      expect(subject).toBe(task?.subject);
      const named = (blockers as string).split(', ').map((b) => idOf.get(b) ?? b);
      expect(named).toEqual(task?.blockedBy);
      expect(named).toHaveLength(2);
    });
    // A model acts on a task by what the list showed it.
    const third = lines[2]?.split(' ')[0] as string;
    expect(third).toMatch(/^#\d+$/);
    expect(JSON.parse((await tools.TaskGet?.handler({ listName: 'hundred', id: third })) ?? '{}')).toMatchObject({
      id: idOf.get(third),
      ref: third,
    });
    expect(await tools.TaskUpdate?.handler({ listName: 'hundred', id: third, subject: 'Renamed by its reference' })).toMatch(
      /^Updated T-\S+ \[pending\] Renamed by its reference/,
    );
  });

  it(`all tool definitions together are at most ${TOOL_DEFINITIONS_BOUND} tokens, with the rules still stated`, () => {
    const definitions = toolDefinitionsText();
    expect(countTokens(definitions)).toBeLessThanOrEqual(TOOL_DEFINITIONS_BOUND);
    const byName = Object.fromEntries(
      toolHandlers({} as never, () => '', toolKit)
        .list()
        .map((t) => [t.name, t]),
    );
    const rules: [string, string[]][] = [
      [
        'todo_write',
        [
          'WHOLE list',
          'replacing the last',
          'only { content, status }',
          'no ids, no priorities',
          'Empty or repeated text',
          'at most one item in_progress',
        ],
      ],
      ['TaskCreate', ['T-{uuid}', 'imperative', 'blockedBy']],
      ['TaskList', ['#n', 'unresolved blockedBy', 'shared by the workspace', 'unfinished blockers cannot start or complete']],
      ['TaskUpdate', ['set the whole list', 'expectedVersion']],
      ['TaskClaim', ['atomically', 'oldest ready task']],
      ['checklist_prepare', ['one task at a time', 'taskContext', 'notification channel', 'skipNotificationCheck']],
      ['checklist_name', ['required before intake', 'changes the scope']],
      ['checklist_intake', ['1-100 tasks', 'only { action, expected_result }', 'position is identity', 'needs', 'remarks']],
      ['checklist_step', ['attemptId', 'evidence', 'Once per attempt', 'never for blocked work']],
      ['checklist_teleport', ['Revise checklist', 'not for a hard task']],
      ['checklist_revise', ['complete corrected checklist', 'unchanged at their positions', 'resume_from_task']],
    ];
    for (const [name, phrases] of rules) for (const phrase of phrases) expect(byName[name]?.description, name).toContain(phrase);
    // The limits stay in the schemas.
    expect(JSON.stringify(byName.todo_write?.inputSchema)).toContain('"maxItems":100');
    expect(JSON.stringify(byName.checklist_intake?.inputSchema)).toContain('"maxLength":1000');
    expect(JSON.stringify(byName.checklist_step?.inputSchema)).toContain('"maxLength":500');
  });
});
