// The Moira-compatible surface of a checklist run (seed 002): the tools `start` and `step` of an MCP server named
// `moira`, so the seed's own calls work verbatim. They make the same calls as the agent-tasks tools (the ToolApi);
// every rule stays in the run use cases.
import {
  type RunView,
  REVISE_TELEPORT,
  formatZodError,
  runIntakeInput,
  runReviseInput,
  runStepInput,
  runTaskContext,
  shown,
  unknownField,
} from '@agent-tasks/schema';
import { z } from 'zod';
import { DomainError } from './errors.ts';
import { type ToolApi, type ToolSpec, keptPrefix, spec, withAccepts } from './tool-kit.ts';

export const MOIRA_SERVER = 'moira';
export const MOIRA_WORKFLOW = 'moira/todo-list';

const text = (field: string) =>
  z
    .string({ error: `Error: invalid input: \`${field}\` must be a non-empty string.` })
    .min(1, { error: `Error: invalid input: \`${field}\` must be a non-empty string.` })
    .max(100, { error: `Error: invalid input: \`${field}\` must be at most 100 characters.` });

const required = (ctx: z.core.$RefinementCtx, field: string, why: string) =>
  ctx.addIssue({ code: 'custom', path: [field], message: `Error: invalid input: \`${field}\` is required ${why}.` });

export const moiraStartInput = z
  .strictObject(
    {
      action: z.enum(['prepare', 'execute'], { error: 'Error: invalid input: `action` must be "prepare" or "execute".' }),
      workflowId: z.string({ error: `Error: invalid input: \`workflowId\` must be "${MOIRA_WORKFLOW}".` }).optional(),
      parentExecutionId: text('parentExecutionId').optional().describe('prepare: the parent run, or "none"'),
      startAttemptId: text('startAttemptId').optional().describe('execute: the start attempt from prepare'),
      skipNotificationCheck: z.boolean({ error: 'Error: invalid input: `skipNotificationCheck` must be true or false.' }).optional(),
      taskContext: runTaskContext.optional().describe("prepare: the caller's ready checklist"),
    },
    { error: unknownField() },
  )
  .superRefine((input, ctx) => {
    if (input.action === 'prepare') {
      if (input.workflowId !== MOIRA_WORKFLOW) {
        ctx.addIssue({
          code: 'custom',
          path: ['workflowId'],
          message: `Error: invalid input: \`workflowId\` must be "${MOIRA_WORKFLOW}" (the workflow this server runs; got ${shown(input.workflowId)}).`,
        });
      }
      if (input.parentExecutionId === undefined) required(ctx, 'parentExecutionId', 'to prepare: the parent run, or "none"');
    } else if (input.startAttemptId === undefined) {
      required(ctx, 'startAttemptId', 'to execute: the start attempt ID from prepare');
    }
  });

/** What the start tool accepts: its definition's shape, or the ready task array itself as `taskContext` (read as `{ tasks }`). */
export const moiraStartAccepts = z.preprocess((raw) => {
  if (typeof raw !== 'object' || raw === null || !('taskContext' in raw) || !Array.isArray(raw.taskContext)) return raw;
  return { ...raw, taskContext: { tasks: raw.taskContext } };
}, moiraStartInput);

const stepFields = {
  processId: text('processId').describe('The run, from start'),
  attemptId: text('attemptId').describe('The step attempt ID of the current step'),
  input: z
    .record(z.string(), z.unknown(), { error: 'Error: invalid input: `input` must be an object: the step response.' })
    .optional()
    .describe('The step response the current step asks for'),
  teleportTo: z.literal(REVISE_TELEPORT, { error: `Error: invalid input: \`teleportTo\` must be "${REVISE_TELEPORT}".` }).optional(),
};
const teleportAlone = (ctx: z.core.$RefinementCtx, field: string) =>
  ctx.addIssue({
    code: 'custom',
    path: [field],
    message: 'Error: invalid input: when teleporting, send no `input`; the revision node presents its own directive.',
  });

export const moiraStepInput = z.strictObject(stepFields, { error: unknownField() }).superRefine((step, ctx) => {
  if (step.teleportTo && step.input !== undefined) teleportAlone(ctx, 'input');
});

/** The fields of every node's step response: a call may also send them beside processId and attemptId, as written. */
const RESPONSE_FIELDS = [
  'name',
  'tasks',
  'progress_checklist_outcome',
  'execution_note',
  'needs',
  'remarks',
  'evidence',
  'progress_execution_outcome',
  'task',
  'resume_from_task',
] as const;

/** The step response written beside the ids, if any (checked by the node that reads it). */
const besideIds = (args: Record<string, unknown>) => {
  const fields = Object.entries(args).filter(([key]) => (RESPONSE_FIELDS as readonly string[]).includes(key));
  return fields.length ? Object.fromEntries(fields) : null;
};

/**
 * What the step tool accepts: its definition's `{ processId, attemptId, input }`, or the step response's fields written
 * beside the ids (`step({ processId, attemptId, evidence, progress_execution_outcome })`), read as that response.
 */
export const moiraStepAccepts = z
  .strictObject(
    { ...stepFields, ...Object.fromEntries(RESPONSE_FIELDS.map((key) => [key, z.unknown().optional()])) },
    { error: unknownField({ unlisted: RESPONSE_FIELDS }) },
  )
  .superRefine((step, ctx) => {
    const beside = besideIds(step);
    const key = Object.keys(beside ?? {})[0];
    if (step.teleportTo && (step.input !== undefined || key)) teleportAlone(ctx, key ?? 'input');
    else if (key && step.input !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: `Error: invalid input: \`${key}\` belongs to the step response: send the response either in \`input\` or beside processId and attemptId, not both.`,
      });
    }
  });

/** The step responses each node takes, checked under `input` so a refusal names e.g. `input.tasks[7].action`. */
const responses = {
  intake: z.strictObject({ input: runIntakeInput.omit({ runId: true, attemptId: true }) }),
  task: z.strictObject({ input: runStepInput.omit({ runId: true, attemptId: true }) }),
  revise: z.strictObject({ input: runReviseInput.omit({ runId: true, attemptId: true }) }),
};

function response<K extends keyof typeof responses>(node: K, input: unknown, beside: boolean): z.output<(typeof responses)[K]>['input'] {
  // Written beside the ids, a refusal names the field as sent (`tasks[7].action`), not under `input`.
  const schema = beside ? responses[node].shape.input : responses[node];
  const raw = beside ? (input ?? {}) : { input: input ?? {} };
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new DomainError('INVALID_INPUT', formatZodError(parsed.error, { input: raw }));
  return (beside ? parsed.data : (parsed.data as { input: unknown }).input) as z.output<(typeof responses)[K]>['input'];
}

const call = (processId: string, attemptId: string, input: string) =>
  `step({ processId: "${processId}", attemptId: "${attemptId}", ${input} })`;

/** What the agent reads after start(execute) and each step: the ids, then the current node's directive. */
export function moiraPresentation(run: RunView, options: { intake?: boolean } = {}): string {
  const lines = [`Process ID: ${run.id}`];
  if (run.attemptId) lines.push(`Step attempt ID: ${run.attemptId}`);
  if (run.notice) lines.push(run.notice);
  const next = (input: string) => call(run.id, run.attemptId ?? '', input);
  if (run.status === 'intake') {
    lines.push('Todo List: checklist intake.');
    if (run.taskContext) {
      lines.push(
        `Your task context holds a ready checklist of ${run.taskContext.tasks.length} tasks: submit it unchanged (wording and scope as written, nothing dropped or added, in its written order; where an item needs another's result first, say so in needs: [{ task, needs: [positions] }], and the order follows, each move shown): ${JSON.stringify(run.taskContext.tasks)}`,
      );
    } else {
      lines.push(
        'Plan the checklist once from the current goal: 1-100 tasks, each only { action, expected_result } (non-empty, at most 1,000 characters); array position is task identity.',
      );
    }
    if (run.name === null) lines.push(`First persist the actual task name (naming keeps this attempt): ${next('input: { name: "…" }')}`);
    lines.push(`Then submit: ${next(`input: { tasks, progress_checklist_outcome, execution_note?${run.taskContext ? ', needs?' : ''} }`)}`);
  } else if (run.status === 'completed') {
    lines.push(`All tasks done (${run.total}/${run.total}). Todo List is complete; its terminal output is {}.`);
  } else if (run.revising) {
    lines.push(
      `Revise checklist: send the complete corrected checklist and the position to continue from: ${next('input: { tasks, resume_from_task, progress_checklist_outcome, progress_execution_outcome }')}`,
      `${run.cursor === 1 ? 'No task was executed yet.' : `Keep the executed ${keptPrefix(run.cursor - 1, '')}.`} If the actual scope changes, first update the name: ${next('input: { name: "…" }')}; ordering alone keeps it.`,
    );
  } else if (run.current) {
    if (options.intake && run.moves.length) {
      lines.push(
        'Order changed from the written list:',
        ...run.moves.map((m) => `- written task ${m.task} moved to position ${m.to}: ${m.because}`),
      );
    }
    lines.push(`${run.current.label}: ${run.current.action}`, `Expected result: ${run.current.expected_result}`);
    for (const remark of run.blocks.work.tasks[run.cursor - 1]?.remarks ?? []) lines.push(`Remark: ${remark}`);
    lines.push(
      `Do the work and verify the expected result, then: ${next('input: { evidence, progress_execution_outcome }')}`,
      'If the task is blocked or incomplete, do not step: report the verified blocker to the user.',
      `If the checklist itself is wrong: ${next(`teleportTo: "${REVISE_TELEPORT}"`)}`,
    );
  }
  return lines.join('\n');
}

type StartOutput = { prepared: string } | { run: RunView };
type StepOutput = { run: RunView; intake: boolean };

async function moiraStep(api: ToolApi, args: z.output<typeof moiraStepInput>): Promise<StepOutput> {
  const { processId: runId, attemptId } = args;
  if (args.teleportTo) return { run: await api.runs.teleport({ runId, attemptId, teleportTo: args.teleportTo }), intake: false };
  const written = besideIds(args);
  const beside = written !== null;
  const input = written ?? args.input ?? {};
  // The naming contract keeps the attempt; the use case decides whether naming is allowed here (and refuses an
  // attempt another response already consumed).
  if (Object.keys(input).length === 1 && 'name' in input) {
    return { run: await api.runs.name({ runId, name: input.name as string, attemptId }), intake: false };
  }
  const run = await api.runs.get({ runId });
  // Not the current attempt: a retry of an answered step. It goes to the call its response names, whose use case
  // answers exactly what the attempt answered (or refuses another response as a conflict, an unknown attempt as stale).
  if (attemptId !== run.attemptId) {
    if ('tasks' in input && 'resume_from_task' in input)
      return { run: await api.runs.revise({ runId, attemptId, ...response('revise', input, beside) }), intake: false };
    if ('tasks' in input) return { run: await api.runs.intake({ runId, attemptId, ...response('intake', input, beside) }), intake: true };
    return { run: await api.runs.step({ runId, attemptId, ...response('task', input, beside) }), intake: false };
  }
  if (run.status === 'intake') {
    const intake = response('intake', input, beside);
    if (run.name === null) {
      throw new DomainError(
        'CONFLICT',
        `Error: run ${runId} has no name yet: persist the actual task name first with ${call(runId, attemptId, 'input: { name: "…" }')} (naming keeps this attempt), then submit the checklist.`,
      );
    }
    return { run: await api.runs.intake({ runId, attemptId, ...intake }), intake: true };
  }
  if (run.status === 'completed')
    throw new DomainError('CONFLICT', `Error: run ${runId} is completed (output {}); it takes no more steps.`);
  if (run.revising) {
    // An acknowledgement sent to the revision node is refused by the step use case, which names the node and the fix.
    if (!('tasks' in input) && 'evidence' in input)
      return { run: await api.runs.step({ runId, attemptId, ...response('task', input, beside) }), intake: false };
    return { run: await api.runs.revise({ runId, attemptId, ...response('revise', input, beside) }), intake: false };
  }
  if ('tasks' in input) {
    throw new DomainError(
      'CONFLICT',
      `Error: run ${runId} is at ${run.current?.label ?? 'a task'}: this step takes ${call(runId, attemptId, 'input: { evidence, progress_execution_outcome }')}; to change the checklist, jump first with ${call(runId, attemptId, `teleportTo: "${REVISE_TELEPORT}"`)}.`,
    );
  }
  return { run: await api.runs.step({ runId, attemptId, ...response('task', input, beside) }), intake: false };
}

export const moiraTools: readonly ToolSpec[] = [
  withAccepts(
    moiraStartAccepts,
    spec(
      'start',
      `Start the "${MOIRA_WORKFLOW}" workflow (Todo List: one goal as an ordered checklist, one task at a time) in two phases. ` +
        `prepare: { action: "prepare", workflowId: "${MOIRA_WORKFLOW}", parentExecutionId: a parent process ID or "none", taskContext?: { tasks } } returns a start attempt ID; ` +
        'refused when no notification channel is configured, unless skipNotificationCheck: true. execute: { action: "execute", startAttemptId } starts it once and returns the process ID and the first step.',
      moiraStartInput,
      async (api, input): Promise<StartOutput> => {
        if (input.action === 'execute') return { run: await api.runs.execute({ startAttemptId: input.startAttemptId ?? '' }) };
        const { startAttemptId } = await api.runs.prepare({
          parentExecutionId: input.parentExecutionId ?? 'none',
          ...(input.skipNotificationCheck === undefined ? {} : { skipNotificationCheck: input.skipNotificationCheck }),
          ...(input.taskContext ? { taskContext: input.taskContext } : {}),
        });
        return { prepared: startAttemptId };
      },
      (out) =>
        'prepared' in out
          ? `Start attempt ID: ${out.prepared}\nNext: start({ action: "execute", startAttemptId: "${out.prepared}" })`
          : moiraPresentation(out.run),
    ),
  ),
  withAccepts(
    moiraStepAccepts,
    spec(
      'step',
      'Answer the current step of a process: { processId, attemptId, input } with the step response the directive asks for, ' +
        `or { processId, attemptId, teleportTo: "${REVISE_TELEPORT}" } to revise a checklist that no longer describes the work (not for a task that is merely hard or blocked). ` +
        'A retried attempt answers the same and never advances twice.',
      moiraStepInput,
      moiraStep,
      (out: StepOutput) => moiraPresentation(out.run, { intake: out.intake }),
    ),
  ),
];
