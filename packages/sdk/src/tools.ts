// Ready tool definitions for LLM function calling: name, description, JSON Schema from the contract, handler.
import {
  type RunView,
  runBlockerInput,
  runExecuteInput,
  runIntakeInput,
  runPrepareInput,
  runRef,
  runReviseInput,
  runStepInput,
  type TaskSummary,
  taskClaimInput,
  taskCreateInput,
  taskGetInput,
  taskListInput,
  taskPlanInput,
  taskUpdateInput,
  todoWriteInput,
} from '@agent-tasks/schema';
import { z } from 'zod';
import type { AgentTasksClient } from './client.ts';
import { refusalOf } from './errors.ts';

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** Returns the text a model should read: the success answer or the refusal's `Error: …` text. Never throws. */
  handler(args: unknown): Promise<string>;
}

export const TODO_WRITE_DESCRIPTION = [
  'Record your task list for the current multi-step work (one item per concrete step) and mark items as the work moves.',
  'Every call sends the WHOLE list and replaces the previous one: to change one item, send the complete list with that item changed; to drop an item, send the list without it.',
  'Each item is only { content, status }: a short imperative line and one of pending, in_progress, completed. No ids, no priorities.',
  'Item text is trimmed; empty or repeated text is refused. Unless the workspace allows several, at most one item may be in_progress.',
  'A single-step task needs no list. An empty list clears it.',
].join(' ');

export const todoWriteJsonSchema = z.toJSONSchema(todoWriteInput, { io: 'input' }) as Record<string, unknown>;

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;

/** A tool whose handler turns a call's result into text, and any refusal into its `Error: …` text. */
function tool<T>(name: string, description: string, schema: z.ZodType, call: (args: never) => Promise<T>, answer: (result: T) => string): ToolDefinition {
  return {
    name,
    description,
    inputSchema: jsonSchema(schema),
    async handler(args) {
      try {
        return answer(await call(args as never));
      } catch (error) {
        return refusalOf(error).message;
      }
    },
  };
}

export function todoWriteTool(client: AgentTasksClient): ToolDefinition {
  return tool('todo_write', TODO_WRITE_DESCRIPTION, todoWriteInput, client.todo.write, (r) => r.message);
}

/** The seed's TaskList line: `T-001 [pending] Build frontend  blockedBy: []`. */
export const taskLine = (t: TaskSummary) =>
  `${t.id} [${t.status}] ${t.subject}${t.owner ? ` (owner: ${t.owner})` : ''}  blockedBy: [${t.blockedBy.join(', ')}]`;

const TASK_RULES =
  'Tasks live in a named list shared by every agent of the workspace (listName, default "default") and survive restarts. ' +
  'A task with unfinished blockers (blockedBy) cannot be started or completed; tasks with an empty blockedBy can run in parallel.';

/** TaskCreate, TaskGet, TaskList, TaskUpdate (seed 001), plus TaskClaim and TaskPlan. */
export function taskTools(client: AgentTasksClient): ToolDefinition[] {
  return [
    tool(
      'TaskCreate',
      `Create a task with an auto-generated id (T-{uuid}). subject is imperative ("Run tests"); activeForm is present continuous ("Running tests"); blockedBy lists tasks that must complete first. ${TASK_RULES}`,
      taskCreateInput,
      client.tasks.create,
      (t) => `Created ${t.id} [${t.status}] ${t.subject}  blockedBy: [${t.blockedBy.join(', ')}]`,
    ),
    tool('TaskGet', `Retrieve a task's full details by id, including deleted tasks. ${TASK_RULES}`, taskGetInput, client.tasks.get, (t) =>
      JSON.stringify(t, null, 2),
    ),
    tool(
      'TaskList',
      `List active tasks (pending and in progress) with their unresolved blockers. Filters: status, owner, readyOnly (tasks you can start now), includeCompleted. ${TASK_RULES}`,
      taskListInput,
      client.tasks.list,
      (r) => (r.tasks.length ? r.tasks.map(taskLine).join('\n') : `No tasks match in list "${r.listName}".`),
    ),
    tool(
      'TaskUpdate',
      `Update a task: status (pending, in_progress, completed, deleted), subject, description, activeForm, owner, metadata (merged; a key set to null is removed), and dependencies (addBlockedBy, removeBlockedBy, addBlocks, removeBlocks). Pass expectedVersion to refuse the update if the task changed since you read it. ${TASK_RULES}`,
      taskUpdateInput,
      client.tasks.update,
      (t) => `Updated ${t.id} [${t.status}] ${t.subject} (version ${t.version})  blockedBy: [${t.blockedBy.join(', ')}]`,
    ),
    tool(
      'TaskClaim',
      `Claim a task atomically: it becomes in_progress and yours. Name an id, or omit it to claim the oldest ready task. ${TASK_RULES}`,
      taskClaimInput,
      client.tasks.claim,
      (r) => (r.task ? `Claimed ${r.task.id} [in_progress] ${r.task.subject} as ${r.task.owner}` : 'No ready task to claim.'),
    ),
    tool(
      'TaskPlan',
      `The remaining tasks as parallel waves (tasks in one wave can run together) and the critical path. ${TASK_RULES}`,
      taskPlanInput,
      client.tasks.plan,
      (p) =>
        p.waves.length
          ? [...p.waves.map((w, i) => `Wave ${i + 1}: ${w.join(', ')}`), `Critical path (${p.criticalPathLength}): ${p.criticalPath.join(' → ')}`].join('\n')
          : `No remaining tasks in list "${p.listName}".`,
    ),
  ];
}

/** What an agent reads after each run call: the current task's directive, or that the run is done. */
export function runDirective(run: RunView): string {
  const lines: string[] = [];
  if (run.moves.length) {
    lines.push('Order changed from the written list:');
    for (const m of run.moves) lines.push(`- written task ${m.task} moved to position ${m.to}: ${m.because}`);
  }
  if (run.status === 'intake') {
    lines.push(`Run ${run.id} started. Submit the checklist with checklist_intake (runId: "${run.id}").`);
  } else if (run.status === 'completed') {
    lines.push(`All tasks done (${run.total}/${run.total}). Run ${run.id} is complete; its output is {}.`);
  } else if (run.current) {
    const remarks = run.blocks.work.tasks[run.cursor - 1]?.remarks ?? [];
    lines.push(`${run.current.label}: ${run.current.action}`, `Expected result: ${run.current.expected_result}`);
    for (const r of remarks) lines.push(`Remark: ${r}`);
    lines.push(
      `Do the work and verify the expected result, then call checklist_step with runId "${run.id}", task ${run.cursor}, evidence and progress_execution_outcome. ` +
        'If the task is blocked or incomplete, do not step: report the blocker (checklist_report_blocker) and tell the user.',
    );
  }
  return lines.join('\n');
}

const RUN_RULES =
  'A checklist run walks an ordered checklist one task at a time: 1-100 tasks, each only { action, expected_result } (both non-empty, at most 1,000 characters); position is identity.';

/** The checklist run's tools (seed 002): start (prepare, execute), intake, step, revise, blocker, view. */
export function runTools(client: AgentTasksClient): ToolDefinition[] {
  return [
    tool(
      'checklist_prepare',
      `Prepare to start a checklist run (phase one). parentExecutionId is the parent run's id for a child run, or "none". Refused when the workspace has no notification channel unless skipNotificationCheck is true. ${RUN_RULES}`,
      runPrepareInput,
      client.runs.prepare,
      (r) => `Start attempt ${r.startAttemptId} prepared. Call checklist_execute with startAttemptId "${r.startAttemptId}".`,
    ),
    tool('checklist_execute', `Start the run from a prepared attempt (phase two), once. ${RUN_RULES}`, runExecuteInput, client.runs.execute, runDirective),
    tool(
      'checklist_intake',
      `Submit the run's name and its checklist. A ready list from the caller is submitted as written. needs says which tasks need which others' results (positions in your list); the service orders the checklist so prerequisites come first and shows any moves. remarks attach a whole-job remark to the tasks it constrains. ${RUN_RULES}`,
      runIntakeInput,
      client.runs.intake,
      runDirective,
    ),
    tool(
      'checklist_step',
      'Acknowledge the current task after doing it and verifying its expected result: evidence (the concrete acknowledgement) and progress_execution_outcome (display only), both at most 500 characters. Advances the cursor exactly once; never call it for a blocked or incomplete task.',
      runStepInput,
      client.runs.step,
      runDirective,
    ),
    tool(
      'checklist_revise',
      'Revise checklist: when the remaining tasks are obsolete, missing or in the wrong order, send the complete corrected checklist (executed tasks unchanged at their positions) and resume_from_task. Not an escape from a hard or blocked task.',
      runReviseInput,
      client.runs.revise,
      runDirective,
    ),
    tool(
      'checklist_report_blocker',
      'Record a verified blocker on the current task for display (null clears it). The cursor stays where it is.',
      runBlockerInput,
      client.runs.reportBlocker,
      (run) => `Blocker recorded on ${run.current?.label ?? 'the run'}; the cursor stays. ${runDirective(run)}`,
    ),
    tool('checklist_get', 'Read a run: its current task and progress.', runRef, client.runs.get, runDirective),
  ];
}
