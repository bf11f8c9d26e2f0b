// The one source of truth for every agent tool: name, a description written for a model, the input contract, the
// call it makes and the text a model reads back. Bound to the SDK client (tool kit, dispatcher) and to the server (MCP).
import {
  type RunView,
  type TaskSummary,
  acceptingTaskId,
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
  shown,
  task,
  taskClaimInput,
  taskClaimOutput,
  taskCreateInput,
  taskDetail,
  taskGetInput,
  taskListInput,
  taskListOutput,
  taskListToolInput,
  taskPlanInput,
  taskPlanOutput,
  taskUpdateInput,
  todoWriteInput,
  todoWriteOutput,
} from '@agent-tasks/schema';
import { z } from 'zod';
import { isDomainError } from './errors.ts';

/** A procedure's contracts: the zod objects its router's `.input()` and `.output()` take. */
const call = <I extends z.ZodType, O extends z.ZodType>(input: I, output: O) => ({ input, output });

/**
 * Every procedure a tool calls, by its path on the wire (`tasks.create`), with its contracts. ToolApi is derived from
 * it, and the SDK and the server hand the tools these groups of their own client or caller.
 */
export const toolCalls = {
  todos: { write: call(todoWriteInput, todoWriteOutput) },
  tasks: {
    create: call(taskCreateInput, task),
    get: call(taskGetInput, taskDetail),
    list: call(taskListInput, taskListOutput),
    update: call(taskUpdateInput, task),
    claim: call(taskClaimInput, taskClaimOutput),
    plan: call(taskPlanInput, taskPlanOutput),
  },
  runs: {
    prepare: call(runPrepareInput, runPrepareOutput),
    execute: call(runExecuteInput, runView),
    name: call(runNameInput, runView),
    teleport: call(runTeleportInput, runView),
    intake: call(runIntakeInput, runView),
    step: call(runStepInput, runView),
    revise: call(runReviseInput, runView),
    reportBlocker: call(runBlockerInput, runView),
    get: call(runRef, runView),
  },
};

type Calls<T> = {
  [P in keyof T]: T[P] extends { input: infer I extends z.ZodType; output: infer O extends z.ZodType }
    ? (input: z.input<I>) => Promise<z.output<O>>
    : never;
};

/** The calls the tools make (see toolCalls); the SDK client and the server's in-process caller both provide it. */
export type ToolApi = { [G in keyof typeof toolCalls]: Calls<(typeof toolCalls)[G]> };

/** The tools' groups of a client or caller whose groups are named as on the wire. */
export const toolApiOf = (client: ToolApi): ToolApi =>
  Object.fromEntries(Object.keys(toolCalls).map((group) => [group, client[group as keyof ToolApi]])) as ToolApi;

export interface ToolSpec {
  name: string;
  description: string;
  /** The contract its definition shows (the JSON Schema a model reads). */
  input: z.ZodType;
  /** The contract a call's arguments are checked with, when the tool takes more than its definition shows. */
  accepts?: z.ZodType;
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
): ToolSpec => ({ name, description, input, call: call, answer: answer });

export const TODO_WRITE_DESCRIPTION = [
  'Record the task list of multi-step work as it moves.',
  'Each call sends the WHOLE list, replacing the last. An item is only { content, status }: no ids, no priorities.',
  'Empty or repeated text (trimmed) is refused; at most one item in_progress unless the workspace allows several.',
].join(' ');

/**
 * TaskUpdate as its definition shows it (seed 001): edges are set as whole lists; the API's add/remove fields stay out
 * of the definition (token budget) but are taken, so a model used to Claude Code's TaskUpdate (`{ taskId, addBlockedBy,
 * addBlocks }`) or Oh My OpenCode's (`{ id, addBlockedBy, addBlocks }`) is not refused. TaskGet, TaskUpdate and
 * TaskClaim take Claude Code's `taskId` for `id` the same way (acceptingTaskId).
 */
/**
 * The task tools' definitions show their fields with fewer words than the contracts they accept (token budget): a list
 * name as a string (its rule is in TaskList's description), ids by their pattern, edge and label lists without their
 * bounds. Every call is still checked by the full contract (`accepts`), with its exact refusal texts.
 */
const shownId = z.string().regex(/^(T-[\w-]+|#\d+)$/);
const shownFields = {
  listName: z.string().optional(),
  blockedBy: z.array(shownId).optional(),
  blocks: z.array(shownId).optional(),
  labels: z.array(z.string()).optional(),
};
const taskUpdateToolInput = taskUpdateInput
  .omit({
    addBlockedBy: true,
    removeBlockedBy: true,
    addBlocks: true,
    removeBlocks: true,
    repoURL: true,
    parentID: true,
    evidence: true,
  })
  .extend({ ...shownFields, id: shownId });
/**
 * oh-my-opencode's `repoURL` and `parentID` are taken by TaskCreate and TaskUpdate, and left out of their definitions;
 * so are `requires` (TaskCreate), `evidence` (TaskUpdate, named in its description) and `leaseMs` (TaskClaim).
 */
const taskCreateToolInput = taskCreateInput.omit({ repoURL: true, parentID: true, requires: true }).extend(shownFields);
const taskListShownInput = taskListToolInput
  .unwrap()
  .extend({ listName: shownFields.listName, label: z.string().optional(), query: z.string().optional() })
  .default({});
const taskGetShownInput = taskGetInput.extend({ listName: shownFields.listName, id: shownId });
const taskClaimShownInput = taskClaimInput.omit({ leaseMs: true }).extend({ listName: shownFields.listName, id: shownId.optional() });
const taskPlanShownInput = taskPlanInput.unwrap().extend({ listName: shownFields.listName }).default({});

/** One task as a TaskList line: `T-001 [pending] Build frontend  blockedBy: []`. */
export const taskLine = (t: TaskSummary) => `${t.id} [${t.status}] ${subjectCell(t)}  blockedBy: [${t.blockedBy.join(', ')}]`;

/** TaskList's subject column: the priority before it and the labels after it when the task has them, then the owner. */
const subjectCell = (t: TaskSummary) =>
  `${t.priority ? `${t.priority} ` : ''}${t.subject}${t.labels?.length ? ` [${t.labels.join(', ')}]` : ''}${t.owner ? ` (owner: ${t.owner})` : ''}`;

/** Spaces between the longest subject and the blockedBy column, as the seed lays TaskList out. */
const SUBJECT_GAP = 5;
/** Ids up to this length are shown as they are (the seed's `T-001`); longer ones (`T-{uuid}`) by their `#n` reference. */
const SHORT_ID = 12;

/**
 * The TaskList text, in columns as the seed shows them: id, [status], subject, then blockedBy, each column as wide as
 * its widest entry:
 *   T-001 [pending] Build frontend        blockedBy: []
 *   T-003 [pending] Integration tests     blockedBy: [T-001, T-002]
 * A long id is shown by its short reference `#n`, which every task tool takes in place of the id; a blocker not in the
 * listing is shown by its id.
 */
export function taskListText(tasks: readonly TaskSummary[]): string {
  const shown = new Map(tasks.map((t) => [t.id, t.id.length <= SHORT_ID ? t.id : t.ref]));
  const rows = tasks.map((t) => ({
    id: shown.get(t.id) ?? t.id,
    status: `[${t.status}]`,
    subject: subjectCell(t),
    blockedBy: `blockedBy: [${t.blockedBy.map((b) => shown.get(b) ?? b).join(', ')}]`,
  }));
  const width = (key: 'id' | 'status' | 'subject') => Math.max(0, ...rows.map((r) => [...r[key]].length));
  const pad = (text: string, n: number) => text + ' '.repeat(Math.max(0, n - [...text].length));
  const [id, status, subject] = [width('id'), width('status'), width('subject') + SUBJECT_GAP];
  return rows.map((r) => `${pad(r.id, id)} ${pad(r.status, status)} ${pad(r.subject, subject)}${r.blockedBy}`).join('\n');
}

/**
 * The executed prefix a revision keeps, after `lead`: "task 1 unchanged at its position", "tasks 1-3 unchanged at their
 * positions", or nothing when no task was executed yet.
 */
export const keptPrefix = (done: number, lead: string) =>
  done === 0 ? '' : done === 1 ? `${lead}task 1 unchanged at its position` : `${lead}tasks 1-${done} unchanged at their positions`;

/** A tool that takes the wider contract `accepts` while its definition shows its own `input`. */
export const withAccepts = (accepts: z.ZodType, tool: ToolSpec): ToolSpec => ({ ...tool, accepts });

const TASK_RULES =
  'Lists (listName, default "default") are shared by the workspace. A task with unfinished blockers cannot start or complete.';

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
      lines.push(
        `Its task context holds a ready checklist of ${run.taskContext.tasks.length} tasks; submit it unchanged, in its written order (state prerequisites in needs; the order follows them): ${JSON.stringify(run.taskContext.tasks)}`,
      );
    }
    if (run.name === null) lines.push(`First persist the actual task name with checklist_name (runId "${run.id}", name).`);
    lines.push(`Then submit the checklist with checklist_intake (runId "${run.id}").`);
  } else if (run.status === 'completed') {
    lines.push(`All tasks done (${run.total}/${run.total}). Run ${run.id} is complete; its output is {}.`);
  } else if (run.revising) {
    lines.push(
      `Revise checklist: send the complete corrected checklist with checklist_revise (${ids})${keptPrefix(run.cursor - 1, ', executed ')}, and resume_from_task. ` +
        'If the scope changes, rename the run first with checklist_name; ordering alone keeps the name.',
    );
  } else if (run.current) {
    const current = run.blocks.work.tasks[run.cursor - 1];
    lines.push(`${run.current.label}: ${run.current.action}`, `Expected result: ${run.current.expected_result}`);
    for (const r of current?.remarks ?? []) lines.push(`Remark: ${r}`);
    // Notes a person left on this task (runs.note) come with every directive while it is current.
    for (const n of current?.notes ?? []) lines.push(`Note from ${n}`);
    lines.push(
      `Do the work and verify the expected result, then call checklist_step with ${ids}, evidence and progress_execution_outcome. ` +
        'If the task is blocked or incomplete, do not step: report the blocker (checklist_report_blocker) and tell the user.',
    );
  }
  return lines.join('\n');
}

const RUN_RULES = 'A checklist run walks an ordered checklist one task at a time.';

export const todoTools: readonly ToolSpec[] = [
  spec(
    'todo_write',
    TODO_WRITE_DESCRIPTION,
    todoWriteInput,
    (api, input) => api.todos.write(input),
    (r) => r.message,
  ),
];

export const taskToolSpecs: readonly ToolSpec[] = [
  withAccepts(
    taskCreateInput,
    spec(
      'TaskCreate',
      'Create a task (id T-{uuid}, ref #n). subject: imperative ("Run tests"); activeForm: "Running tests"; blockedBy: tasks to complete first; P0 most urgent.',
      taskCreateToolInput,
      (api, input) => api.tasks.create(input),
      (t) => `Created ${t.id} (${t.ref}) [${t.status}] ${t.subject}  blockedBy: [${t.blockedBy.join(', ')}]`,
    ),
  ),
  withAccepts(
    acceptingTaskId(taskGetInput),
    spec(
      'TaskGet',
      "A task's full details (by id or #n).",
      taskGetShownInput,
      (api, input) => api.tasks.get(input),
      (t) => JSON.stringify(t, null, 2),
    ),
  ),
  withAccepts(
    taskListInput,
    spec(
      'TaskList',
      `Active tasks: id (#n if long), [status], priority, subject, [labels], unresolved blockedBy. readyOnly: startable now; query: full-text search. ${TASK_RULES}`,
      taskListShownInput,
      (api, input) => api.tasks.list(input),
      (r) => (r.tasks.length ? taskListText(r.tasks) : `No tasks match in list "${r.listName}".`),
    ),
  ),
  withAccepts(
    acceptingTaskId(taskUpdateInput),
    spec(
      'TaskUpdate',
      'Update a task (id or #n); metadata merges (null removes); blockedBy, blocks, labels set the whole list; evidence {kind:"command",command,exitCode} backs completed. expectedVersion: refused if stale.',
      taskUpdateToolInput,
      (api, input) => api.tasks.update(input),
      (t) => `Updated ${t.id} [${t.status}] ${t.subject} (version ${t.version})  blockedBy: [${t.blockedBy.join(', ')}]`,
    ),
  ),
  withAccepts(
    acceptingTaskId(taskClaimInput),
    spec(
      'TaskClaim',
      'Claim a task atomically (in_progress, yours): by id, or without one the most urgent, then oldest ready task.',
      taskClaimShownInput,
      (api, input) => api.tasks.claim(input),
      (r) =>
        r.task
          ? `Claimed ${r.task.id} [in_progress] ${r.task.subject} as ${r.task.owner}`
          : r.lostRace
            ? `Lost the race: ${r.lostRace.owner} claimed ${r.lostRace.ref} (${r.lostRace.id}) first, moments ago; no other task is ready now.`
            : 'No ready task to claim.',
    ),
  ),
  withAccepts(
    taskPlanInput,
    spec(
      'TaskPlan',
      'The remaining tasks as parallel waves and the critical path.',
      taskPlanShownInput,
      (api, input) => api.tasks.plan(input),
      (p) =>
        p.waves.length
          ? [
              ...p.waves.map((w, i) => `Wave ${i + 1}: ${w.join(', ')}`),
              `Critical path (${p.criticalPathLength}): ${p.criticalPath.join(' → ')}`,
            ].join('\n')
          : `No remaining tasks in list "${p.listName}".`,
    ),
  ),
];

export const runToolSpecs: readonly ToolSpec[] = [
  spec(
    'checklist_prepare',
    `${RUN_RULES} Prepare a start: parentExecutionId (parent run or "none"); taskContext: a ready checklist to submit unchanged. Needs a notification channel unless skipNotificationCheck.`,
    runPrepareInput,
    (api, input) => api.runs.prepare(input),
    (r) => `Start attempt ${r.startAttemptId} prepared. Call checklist_execute with startAttemptId "${r.startAttemptId}".`,
  ),
  spec(
    'checklist_execute',
    'Start the run from the prepared attempt, once.',
    runExecuteInput,
    (api, input) => api.runs.execute(input),
    runDirective,
  ),
  spec(
    'checklist_name',
    "Persist the run's name: required before intake; later only in a revision that changes the scope.",
    runNameInput,
    (api, input) => api.runs.name(input),
    runDirective,
  ),
  spec(
    'checklist_intake',
    "Submit the checklist: 1-100 tasks, each only { action, expected_result }; position is identity. needs: positions needing others' results (those go first); remarks: whole-job notes on the tasks they constrain.",
    runIntakeInput.omit({ attemptId: true }),
    (api, input) => api.runs.intake(input),
    intakeAnswer,
  ),
  spec(
    'checklist_step',
    'Acknowledge the current task once done and verified: attemptId from the run, evidence, progress_execution_outcome. Once per attempt; never for blocked work.',
    runStepInput,
    (api, input) => api.runs.step(input),
    runDirective,
  ),
  spec(
    'checklist_teleport',
    'Jump to Revise checklist when remaining tasks are wrong, missing or misordered; not for a hard task.',
    runTeleportInput.omit({ attemptId: true }),
    (api, input) => api.runs.teleport(input),
    runDirective,
  ),
  spec(
    'checklist_revise',
    'Send the complete corrected checklist (executed tasks unchanged at their positions) and resume_from_task.',
    runReviseInput,
    (api, input) => api.runs.revise(input),
    runDirective,
  ),
  spec(
    'checklist_report_blocker',
    'Record a verified blocker on the current task (null clears it); the cursor stays.',
    runBlockerInput,
    (api, input) => api.runs.reportBlocker(input),
    (run) =>
      `Blocker ${run.blocker === null ? 'cleared' : 'recorded'} on ${run.current?.label ?? 'the run'}; the cursor stays. ${runDirective(run)}`,
  ),
  spec('checklist_get', "Read a run's current step and directive.", runRef, (api, input) => api.runs.get(input), runDirective),
];

export const toolKit: readonly ToolSpec[] = [...todoTools, ...taskToolSpecs, ...runToolSpecs];

/**
 * Runs one tool call: validates the arguments against the contract (a clear error naming the field), makes the call,
 * and answers the text a model reads. A refusal is returned as its `Error: …` text, never thrown.
 */
export async function runTool(spec: ToolSpec, api: ToolApi, args: unknown, errorText: (error: unknown) => string) {
  const parsed = (spec.accepts ?? spec.input).safeParse(args ?? {});
  if (!parsed.success) return { text: formatZodError(parsed.error, { input: args ?? {} }), isError: true };
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
      if (!spec) return { text: `Error: unknown tool ${shown(name)}; available tools: ${[...byName.keys()].join(', ')}.`, isError: true };
      return runTool(spec, api, args, errorText);
    },
  };
}
