// The one source of truth for every agent tool: name, a description written for a model, the input contract, the
// call it makes and the text a model reads back. Bound to the SDK client (tool kit, dispatcher) and to the server (MCP).
import {
  type RunView,
  type TaskSummary,
  formatZodError,
  jsonSchemaOf,
  runBlockerInput,
  runExecuteInput,
  runIntakeInput,
  runNameInput,
  runPrepareInput,
  runPrepareOutput,
  runRef,
  runReviseInput,
  runStepInput,
  runTeleportInput,
  runView,
  task,
  taskClaimInput,
  taskClaimOutput,
  taskCreateInput,
  taskGetInput,
  taskListInput,
  taskListOutput,
  taskPlanInput,
  taskPlanOutput,
  taskUpdateInput,
  todoWriteInput,
  todoWriteOutput,
} from '@agent-tasks/schema';
import type { z } from 'zod';
import { isDomainError } from './errors.ts';

type In<T extends z.ZodType> = z.input<T>;
type Out<T extends z.ZodType> = z.output<T>;

/** The calls the tools make; the SDK client and the server's in-process caller both provide it. */
export interface ToolApi {
  todo: { write(input: In<typeof todoWriteInput>): Promise<Out<typeof todoWriteOutput>> };
  task: {
    create(input: In<typeof taskCreateInput>): Promise<Out<typeof task>>;
    get(input: In<typeof taskGetInput>): Promise<Out<typeof task>>;
    list(input: In<typeof taskListInput>): Promise<Out<typeof taskListOutput>>;
    update(input: In<typeof taskUpdateInput>): Promise<Out<typeof task>>;
    claim(input: In<typeof taskClaimInput>): Promise<Out<typeof taskClaimOutput>>;
    plan(input: In<typeof taskPlanInput>): Promise<Out<typeof taskPlanOutput>>;
  };
  run: {
    prepare(input: In<typeof runPrepareInput>): Promise<Out<typeof runPrepareOutput>>;
    execute(input: In<typeof runExecuteInput>): Promise<Out<typeof runView>>;
    name(input: In<typeof runNameInput>): Promise<Out<typeof runView>>;
    teleport(input: In<typeof runTeleportInput>): Promise<Out<typeof runView>>;
    intake(input: In<typeof runIntakeInput>): Promise<Out<typeof runView>>;
    step(input: In<typeof runStepInput>): Promise<Out<typeof runView>>;
    revise(input: In<typeof runReviseInput>): Promise<Out<typeof runView>>;
    reportBlocker(input: In<typeof runBlockerInput>): Promise<Out<typeof runView>>;
    get(input: In<typeof runRef>): Promise<Out<typeof runView>>;
  };
}

export interface ToolSpec {
  name: string;
  description: string;
  input: z.ZodType;
  call(api: ToolApi, input: never): Promise<unknown>;
  answer(output: never): string;
}

/** A tool from its parts; the call's output type flows into the answer. */
export const spec = <S extends z.ZodType, O>(
  name: string,
  description: string,
  input: S,
  call: (api: ToolApi, input: z.output<S>) => Promise<O>,
  answer: (output: O) => string,
): ToolSpec => ({ name, description, input, call: call as ToolSpec['call'], answer: answer as ToolSpec['answer'] });

export const TODO_WRITE_DESCRIPTION = [
  'Record your task list for the current multi-step work (one item per concrete step) and mark items as the work moves.',
  'Every call sends the WHOLE list and replaces the previous one: to change one item, send the complete list with that item changed; to drop an item, send the list without it.',
  'Each item is only { content, status }: a short imperative line and one of pending, in_progress, completed. No ids, no priorities.',
  'Item text is trimmed; empty or repeated text is refused. Unless the workspace allows several, at most one item may be in_progress (the one-active rule).',
  'A single-step task needs no list. An empty list clears it.',
].join(' ');

/** The seed's TaskList line: `T-001 [pending] Build frontend  blockedBy: []`. */
export const taskLine = (t: TaskSummary) =>
  `${t.id} [${t.status}] ${t.subject}${t.owner ? ` (owner: ${t.owner})` : ''}  blockedBy: [${t.blockedBy.join(', ')}]`;

const TASK_RULES =
  'Tasks live in a named list shared by every agent of the workspace (listName, default "default") and survive restarts. ' +
  'A task with unfinished blockers (blockedBy) cannot be started or completed; tasks with an empty blockedBy can run in parallel.';

/** The intake's answer: how the order differs from the written list (shown once, before any work), then the directive. */
export function intakeAnswer(run: RunView): string {
  if (!run.moves.length) return runDirective(run);
  const moves = run.moves.map((m) => `- written task ${m.task} moved to position ${m.to}: ${m.because}`);
  return ['Order changed from the written list:', ...moves, runDirective(run)].join('\n');
}

/** What an agent reads after each run call: what to do next in the run's current phase, or that the run is done. */
export function runDirective(run: RunView): string {
  const lines: string[] = [];
  const ids = `runId "${run.id}", attemptId "${run.attemptId}"`;
  if (run.notice) lines.push(run.notice);
  if (run.status === 'intake') {
    lines.push(`Run ${run.id} is at checklist intake.`);
    if (run.taskContext) {
      lines.push(`Its task context holds a ready checklist of ${run.taskContext.tasks.length} tasks; submit it unchanged: ${JSON.stringify(run.taskContext.tasks)}`);
    }
    if (run.name === null) lines.push(`First persist the actual task name with checklist_name (runId "${run.id}", name).`);
    lines.push(`Then submit the checklist with checklist_intake (${ids}).`);
  } else if (run.status === 'completed') {
    lines.push(`All tasks done (${run.total}/${run.total}). Run ${run.id} is complete; its output is {}.`);
  } else if (run.revising) {
    lines.push(
      `Revise checklist: send the complete corrected checklist with checklist_revise (${ids}), executed tasks 1-${run.cursor - 1} unchanged at their positions, and resume_from_task. ` +
        'If the scope changes, rename the run first with checklist_name; ordering alone keeps the name.',
    );
  } else if (run.current) {
    const remarks = run.blocks.work.tasks[run.cursor - 1]?.remarks ?? [];
    lines.push(`${run.current.label}: ${run.current.action}`, `Expected result: ${run.current.expected_result}`);
    for (const r of remarks) lines.push(`Remark: ${r}`);
    lines.push(
      `Do the work and verify the expected result, then call checklist_step with ${ids}, evidence and progress_execution_outcome. ` +
        'If the task is blocked or incomplete, do not step: report the blocker (checklist_report_blocker) and tell the user.',
    );
  }
  return lines.join('\n');
}

const RUN_RULES =
  'A checklist run walks an ordered checklist one task at a time: 1-100 tasks, each only { action, expected_result } (both non-empty, at most 1,000 characters); position is identity.';

export const todoTools: readonly ToolSpec[] = [
  spec('todo_write', TODO_WRITE_DESCRIPTION, todoWriteInput, (api, input) => api.todo.write(input), (r) => r.message),
];

export const taskToolSpecs: readonly ToolSpec[] = [
  spec(
    'TaskCreate',
    `Create a task with an auto-generated id (T-{uuid}). subject is imperative ("Run tests"); activeForm is present continuous ("Running tests"); blockedBy lists tasks that must complete first. ${TASK_RULES}`,
    taskCreateInput,
    (api, input) => api.task.create(input),
    (t) => `Created ${t.id} [${t.status}] ${t.subject}  blockedBy: [${t.blockedBy.join(', ')}]`,
  ),
  spec('TaskGet', `Retrieve a task's full details by id, including deleted tasks. ${TASK_RULES}`, taskGetInput, (api, input) => api.task.get(input), (t) =>
    JSON.stringify(t, null, 2),
  ),
  spec(
    'TaskList',
    `List active tasks (pending and in progress) with their unresolved blockers. Filters: status, owner, readyOnly (tasks you can start now), includeCompleted. ${TASK_RULES}`,
    taskListInput,
    (api, input) => api.task.list(input),
    (r) => (r.tasks.length ? r.tasks.map(taskLine).join('\n') : `No tasks match in list "${r.listName}".`),
  ),
  spec(
    'TaskUpdate',
    `Update a task: status (pending, in_progress, completed, deleted), subject, description, activeForm, owner, metadata (merged; a key set to null is removed), and dependencies (addBlockedBy, removeBlockedBy, addBlocks, removeBlocks). Pass expectedVersion to refuse the update if the task changed since you read it. ${TASK_RULES}`,
    taskUpdateInput,
    (api, input) => api.task.update(input),
    (t) => `Updated ${t.id} [${t.status}] ${t.subject} (version ${t.version})  blockedBy: [${t.blockedBy.join(', ')}]`,
  ),
  spec(
    'TaskClaim',
    `Claim a task atomically: it becomes in_progress and yours. Name an id, or omit it to claim the oldest ready task. ${TASK_RULES}`,
    taskClaimInput,
    (api, input) => api.task.claim(input),
    (r) => (r.task ? `Claimed ${r.task.id} [in_progress] ${r.task.subject} as ${r.task.owner}` : 'No ready task to claim.'),
  ),
  spec(
    'TaskPlan',
    `The remaining tasks as parallel waves (tasks in one wave can run together) and the critical path. ${TASK_RULES}`,
    taskPlanInput,
    (api, input) => api.task.plan(input),
    (p) =>
      p.waves.length
        ? [...p.waves.map((w, i) => `Wave ${i + 1}: ${w.join(', ')}`), `Critical path (${p.criticalPathLength}): ${p.criticalPath.join(' → ')}`].join('\n')
        : `No remaining tasks in list "${p.listName}".`,
  ),
];

export const runToolSpecs: readonly ToolSpec[] = [
  spec(
    'checklist_prepare',
    `Prepare to start a checklist run (phase one). parentExecutionId is the parent run's id for a child run, or "none". Refused when the workspace has no notification channel unless skipNotificationCheck is true. ${RUN_RULES}`,
    runPrepareInput,
    (api, input) => api.run.prepare(input),
    (r) => `Start attempt ${r.startAttemptId} prepared. Call checklist_execute with startAttemptId "${r.startAttemptId}".`,
  ),
  spec('checklist_execute', `Start the run from a prepared attempt (phase two), once. ${RUN_RULES}`, runExecuteInput, (api, input) => api.run.execute(input), runDirective),
  spec(
    'checklist_name',
    "Persist the run's actual task name (its heading). Required before checklist_intake; later only within a revision (after checklist_teleport), where it applies only if the revision changes the scope.",
    runNameInput,
    (api, input) => api.run.name(input),
    runDirective,
  ),
  spec(
    'checklist_intake',
    `Submit the checklist (name the run first). A ready list from the caller is submitted as written. needs says which tasks need which others' results (positions in your list); the service orders the checklist so prerequisites come first and shows any moves. remarks attach a whole-job remark to the tasks it constrains. ${RUN_RULES}`,
    runIntakeInput,
    (api, input) => api.run.intake(input),
    intakeAnswer,
  ),
  spec(
    'checklist_step',
    'Acknowledge the current task after doing it and verifying its expected result: the attemptId from the run, evidence (the concrete acknowledgement) and progress_execution_outcome (display only), both at most 500 characters. Advances the cursor exactly once per attempt; never call it for a blocked or incomplete task.',
    runStepInput,
    (api, input) => api.run.step(input),
    runDirective,
  ),
  spec(
    'checklist_teleport',
    'Jump to the revision node (teleportTo "teleport-revise-tasks") when the checklist itself is wrong: remaining tasks obsolete, missing or in the wrong order. Not for a task that is merely hard or blocked.',
    runTeleportInput,
    (api, input) => api.run.teleport(input),
    runDirective,
  ),
  spec(
    'checklist_revise',
    'Revise checklist: when the remaining tasks are obsolete, missing or in the wrong order, send the complete corrected checklist (executed tasks unchanged at their positions) and resume_from_task. Not an escape from a hard or blocked task.',
    runReviseInput,
    (api, input) => api.run.revise(input),
    runDirective,
  ),
  spec(
    'checklist_report_blocker',
    'Record a verified blocker on the current task for display (null clears it). The cursor stays where it is.',
    runBlockerInput,
    (api, input) => api.run.reportBlocker(input),
    (run) => `Blocker ${run.blocker === null ? 'cleared' : 'recorded'} on ${run.current?.label ?? 'the run'}; the cursor stays. ${runDirective(run)}`,
  ),
  spec('checklist_get', 'Read a run: its current task and progress.', runRef, (api, input) => api.run.get(input), runDirective),
];

export const toolKit: readonly ToolSpec[] = [...todoTools, ...taskToolSpecs, ...runToolSpecs];

/**
 * Runs one tool call: validates the arguments against the contract (a clear error naming the field), makes the call,
 * and answers the text a model reads. A refusal is returned as its `Error: …` text, never thrown.
 */
export async function runTool(spec: ToolSpec, api: ToolApi, args: unknown, errorText: (error: unknown) => string) {
  const parsed = spec.input.safeParse(args ?? {});
  if (!parsed.success) return { text: formatZodError(parsed.error), isError: true };
  try {
    return { text: spec.answer((await spec.call(api, parsed.data as never)) as never), isError: false };
  } catch (error) {
    // A refusal the tool itself raised (before or between its calls) carries its own text.
    return { text: isDomainError(error) ? error.message : errorText(error), isError: true };
  }
}

/** Lists and calls the tools against one api: what an MCP server or a function-calling loop needs. */
export function toolHandlers(api: ToolApi, errorText: (error: unknown) => string, specs: readonly ToolSpec[] = toolKit) {
  const byName = new Map(specs.map((s) => [s.name, s]));
  return {
    list: () => specs.map((s) => ({ name: s.name, description: s.description, inputSchema: jsonSchemaOf(s.input) })),
    async call(name: string, args: unknown): Promise<{ text: string; isError: boolean }> {
      const spec = byName.get(name);
      if (!spec) return { text: `Error: unknown tool "${name}"; available tools: ${[...byName.keys()].join(', ')}.`, isError: true };
      return runTool(spec, api, args, errorText);
    },
  };
}
