// Contracts of the task graph tool (seed 001): TaskCreate, TaskGet, TaskList, TaskUpdate, claims, plan, history, feed.
import { z } from 'zod';
import { shown } from './shown.ts';
import { type FieldListing, feedFrom, isoDate, lastEventId, type StrictIssue, unknownField } from './common.ts';
import {
  IMPORT_FILES_MAX,
  MIRROR_EDGES_MAX,
  TASK_ACTIVE_FORM_MAX,
  TASK_DESCRIPTION_MAX,
  TASK_EDGES_MAX,
  TASK_LIST_NAME_MAX,
  TASK_LIST_PAGE_MAX,
  TASK_METADATA_MAX_BYTES,
  TASK_OWNER_MAX,
  TASK_PARENT_ID_MAX,
  TASK_REPO_URL_MAX,
  TASK_SUBJECT_MAX,
} from './limits.ts';
import { capabilities, evidence, evidenceField, evidenceInput, leaseMs, taskLease, taskVerdict } from './trust.ts';
import {
  commentBody,
  labelFilter,
  labels,
  priority,
  priorityFilter,
  query,
  searchLimit,
  taskComment,
  taskComments,
} from './task-fields.ts';

export const taskStatuses = ['pending', 'in_progress', 'completed', 'deleted'] as const;
export const taskStatus = z.enum(taskStatuses, {
  error: (iss) => `Error: invalid task: \`status\` must be one of pending, in_progress, completed, deleted (got ${shown(iss.input)}).`,
});
export type TaskStatus = z.infer<typeof taskStatus>;

const text = (field: string, max: number, { required }: { required: boolean }) => {
  const base = z
    .string({
      error: (iss) =>
        iss.input === undefined && field === 'subject'
          ? 'Error: invalid task: `subject` is required: a short imperative line naming the task, such as "Run tests".'
          : `Error: invalid task: \`${field}\` must be a string.`,
    })
    .trim();
  const bounded = base.max(max, {
    error: (iss) =>
      `Error: invalid task: \`${field}\` must be at most ${max} characters (got ${typeof iss.input === 'string' ? [...iss.input].length : 0}).`,
  });
  return required ? bounded.min(1, { error: `Error: invalid task: \`${field}\` must be a non-empty string.` }) : bounded;
};

/** A task's short reference within its list: `#` and its creation number (TaskList shows it in place of a long id). */
export const TASK_REF = /^#\d{1,9}$/;

/** A task id (`T-…`) or its short reference (`#n`) in the named field; its errors name the field and the bad value. */
export const taskIdIn = (field: string) =>
  z
    .string({ error: `Error: invalid input: \`${field}\` must be a task id like "T-…" or "#3".` })
    .max(66, { error: (iss) => `Error: invalid input: \`${field}\`: ${shown(iss.input)} is not a task id (T-… or #n).` })
    .regex(/^(T-[\w-]+|#\d+)$/, {
      error: (iss) => `Error: invalid input: \`${field}\`: ${shown(iss.input)} is not a task id (T-… or #n).`,
    });
export const taskId = taskIdIn('id');
/** A task id whose errors leave the field to the caller (which names it by the issue's path, as the importer does). */
export const pathTaskId = z
  .string({ error: 'Error: invalid input: a task id must be a string like "T-…".' })
  .regex(/^T-[A-Za-z0-9-]{1,64}$/, { error: (iss) => `Error: invalid input: ${shown(iss.input)} is not a task id (T-…).` });

export const listName = z
  .string({ error: 'Error: invalid input: `listName` must be a string.' })
  .trim()
  .min(1, { error: 'Error: invalid input: `listName` must not be empty.' })
  .max(TASK_LIST_NAME_MAX, { error: `Error: invalid input: \`listName\` must be at most ${TASK_LIST_NAME_MAX} characters.` })
  .regex(/^[\w.-]+$/, { error: 'Error: invalid input: `listName` may hold only letters, digits, ".", "_" and "-".' });

const taskIds = (field: string) =>
  z
    .array(taskIdIn(field), { error: `Error: invalid input: \`${field}\` must be an array of task ids.` })
    .max(TASK_EDGES_MAX, { error: `Error: invalid input: \`${field}\` may name at most ${TASK_EDGES_MAX} tasks.` });

export const metadata = z
  .record(z.string(), z.unknown(), { error: 'Error: invalid task: `metadata` must be a JSON object.' })
  .refine((m) => JSON.stringify(m).length <= TASK_METADATA_MAX_BYTES, {
    error: `Error: invalid task: \`metadata\` must be at most ${TASK_METADATA_MAX_BYTES} characters of JSON.`,
  });

/** `threadID` however a caller spells it (`threadId`, `thread_id`). */
const isThreadId = (key: string) => key.replaceAll('_', '').toLowerCase() === 'threadid';

/** The error of a task object: `threadID` (in any spelling) is set from the session, other unknown fields are named. */
const taskFields =
  (listing: FieldListing = {}) =>
  (iss: StrictIssue) => {
    const thread = iss.code === 'unrecognized_keys' ? iss.keys?.find(isThreadId) : undefined;
    if (thread === 'threadID') return 'Error: invalid input: `threadID` is set from the session that creates the task; leave it out.';
    if (thread !== undefined) {
      return `Error: invalid input: \`${thread}\`: a task's \`threadID\` is set from the session that creates it; leave it out.`;
    }
    return unknownField(listing)(iss);
  };

export const owner = text('owner', TASK_OWNER_MAX, { required: true });
/** oh-my-opencode's task fields: the repository the task belongs to, and its parent task (any id it names). */
export const repoURL = text('repoURL', TASK_REPO_URL_MAX, { required: true });
export const parentID = text('parentID', TASK_PARENT_ID_MAX, { required: true });

export const taskCreateInput = z.strictObject(
  {
    listName: listName.optional(),
    subject: text('subject', TASK_SUBJECT_MAX, { required: true }),
    description: text('description', TASK_DESCRIPTION_MAX, { required: false }).default(''),
    activeForm: text('activeForm', TASK_ACTIVE_FORM_MAX, { required: true }).optional(),
    owner: owner.optional(),
    metadata: metadata.optional(),
    blockedBy: taskIds('blockedBy').optional(),
    blocks: taskIds('blocks').optional(),
    repoURL: repoURL.optional(),
    parentID: parentID.optional(),
    priority: priority.optional(),
    labels: labels.optional(),
    requires: capabilities('requires').optional(),
  },
  {
    error: taskFields(),
  },
);
export type TaskCreateInput = z.infer<typeof taskCreateInput>;

export const taskUpdateInput = z.strictObject(
  {
    listName: listName.optional(),
    id: taskId,
    expectedVersion: z
      .number({ error: 'Error: invalid input: `expectedVersion` must be a whole number.' })
      .int({ error: 'Error: invalid input: `expectedVersion` must be a whole number.' })
      .min(1, { error: 'Error: invalid input: `expectedVersion` must be a whole number.' })
      .optional(),
    subject: text('subject', TASK_SUBJECT_MAX, { required: true }).optional(),
    description: text('description', TASK_DESCRIPTION_MAX, { required: false }).optional(),
    activeForm: text('activeForm', TASK_ACTIVE_FORM_MAX, { required: true }).nullable().optional(),
    status: taskStatus.optional(),
    owner: owner.nullable().optional(),
    metadata: metadata.optional(),
    repoURL: repoURL.nullable().optional(),
    parentID: parentID.nullable().optional(),
    priority: priority.nullable().optional(),
    labels: labels.optional(),
    blockedBy: taskIds('blockedBy').optional(),
    blocks: taskIds('blocks').optional(),
    addBlockedBy: taskIds('addBlockedBy').optional(),
    removeBlockedBy: taskIds('removeBlockedBy').optional(),
    addBlocks: taskIds('addBlocks').optional(),
    removeBlocks: taskIds('removeBlocks').optional(),
    evidence: evidenceField.optional(),
  },
  { error: taskFields({ lead: ['id', 'status', 'evidence'], unlisted: ['expectedVersion', 'repoURL', 'parentID'], most: 11 }) },
);
export type TaskUpdateInput = z.infer<typeof taskUpdateInput>;

/**
 * A task tool's contract that also takes Claude Code's `taskId` (the field of its TaskGet and TaskUpdate) for `id`. The
 * tools take it without showing it in their definitions (token budget); `taskId` and `id` naming different tasks at once
 * is refused.
 */
export const acceptingTaskId = <T extends z.ZodType>(contract: T) =>
  z.preprocess((input, ctx) => {
    if (input === null || typeof input !== 'object' || Array.isArray(input) || !Object.hasOwn(input, 'taskId')) return input;
    const { taskId: alias, ...rest } = input as Record<string, unknown>;
    const checked = taskIdIn('taskId').safeParse(alias);
    if (!checked.success) {
      ctx.addIssue({ code: 'custom', message: checked.error.issues[0]?.message ?? 'Error: invalid input: `taskId` is not a task id.' });
      return z.NEVER;
    }
    if (rest.id !== undefined && rest.id !== checked.data) {
      ctx.addIssue({
        code: 'custom',
        message: `Error: invalid input: \`taskId\` ${shown(alias)} and \`id\` ${shown(rest.id)} name different tasks; send one of them.`,
      });
      return z.NEVER;
    }
    return { ...rest, id: checked.data };
  }, contract);

export const taskGetInput = z.strictObject({ listName: listName.optional(), id: taskId }, { error: unknownField() });

export const taskListInput = z
  .strictObject(
    {
      listName: listName.optional(),
      // One status (as oh-my-opencode's TaskList sends it) or several.
      status: z
        .union([taskStatus, z.array(taskStatus)], {
          error: (iss) =>
            `Error: invalid input: \`status\` must be one of pending, in_progress, completed, deleted, or a list of them (got ${shown(iss.input)}).`,
        })
        .optional(),
      owner: owner.optional(),
      readyOnly: z.boolean().optional(),
      includeCompleted: z.boolean().optional(),
      priority: priorityFilter,
      label: labelFilter,
      query: query.optional(),
      limit: z.number().int().min(1).max(TASK_LIST_PAGE_MAX).optional(),
    },
    { error: unknownField({ lead: ['listName'] }) },
  )
  .default({});
export type TaskListInput = z.infer<typeof taskListInput>;
/** TaskList as its tool definition shows it (token budget): `status` as a list; one status alone is taken all the same. */
export const taskListToolInput = taskListInput
  .unwrap()
  .extend({ status: z.array(taskStatus).optional(), priority: z.array(priority).optional() })
  .default({});

export const taskClaimInput = z.strictObject(
  {
    listName: listName.optional(),
    id: taskId.optional(),
    owner: owner.optional(),
    leaseMs: leaseMs.optional(),
  },
  { error: unknownField() },
);
export type TaskClaimInput = z.infer<typeof taskClaimInput>;

const ref = z.string().describe('Short reference "#n" (creation number in the list), accepted wherever a task id is');

export const task = z.object({
  id: z.string(),
  ref: ref.optional(), // change snapshots recorded before short references existed carry none
  listName: z.string(),
  subject: z.string(),
  description: z.string(),
  status: taskStatus,
  activeForm: z.string().optional(),
  blocks: z.array(z.string()),
  blockedBy: z.array(z.string()),
  owner: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()),
  repoURL: z.string().optional(),
  parentID: z.string().optional(),
  priority: priority.optional(),
  labels: z.array(z.string()).optional(), // change snapshots recorded before labels existed carry none
  threadID: z.string(),
  version: z.number().int(),
  createdAt: isoDate,
  updatedAt: isoDate,
  // Present only when the task has them (older snapshots and plain tasks keep their shape).
  requires: z.array(z.string()).optional(),
  evidence: z.array(evidence).optional(),
  verdict: taskVerdict.optional(),
  lease: taskLease.optional(),
});
export type Task = z.infer<typeof task>;

/** TaskGet's answer: the task with its newest comments and their count. */
export const taskDetail = task.extend({ comments: taskComments });

export const taskSummary = z.object({
  id: z.string(),
  ref,
  subject: z.string(),
  status: taskStatus,
  owner: z.string().optional(),
  activeForm: z.string().optional(),
  blockedBy: z.array(z.string()).describe('Unresolved blockers only'),
  priority: priority.optional(),
  labels: z.array(z.string()).optional(),
  ready: z.boolean(),
  version: z.number().int(),
  verdict: taskVerdict.optional(),
  leaseExpiresAt: isoDate.optional(),
});
export type TaskSummary = z.infer<typeof taskSummary>;

export const taskListOutput = z.object({ listName: z.string(), tasks: z.array(taskSummary) });
export const taskClaimOutput = z.object({
  task: task.nullable(),
  lostRace: z
    .object({ id: z.string(), ref: z.string(), owner: z.string() })
    .nullable()
    .optional()
    .describe('Nothing was ready because another agent claimed the last ready task moments ago'),
});

export const taskPlanInput = z.strictObject({ listName: listName.optional() }, { error: unknownField() }).default({});
export const taskPlanOutput = z.object({
  listName: z.string(),
  waves: z.array(z.array(z.string())).describe('Tasks that can run together, wave by wave, in order'),
  criticalPath: z.array(z.string()).describe('The longest chain of dependent remaining tasks'),
  criticalPathLength: z.number().int(),
});

export const fieldChange = z.object({ from: z.json(), to: z.json() });
export const taskChange = z.object({
  seq: z.number().int().describe('Position in the list feed'),
  taskId: z.string(),
  kind: z.enum(['created', 'updated', 'claimed', 'deleted', 'imported', 'lease_expired', 'evidence']),
  by: z.object({
    sessionId: z.string().nullable(),
    keyId: z.string(),
    /** The key's name (a person's key reads as the person); in a task's history, not in the live feed. */
    keyName: z.string().nullable().optional(),
  }),
  at: isoDate,
  changes: z.record(z.string(), fieldChange),
});
export type TaskChange = z.infer<typeof taskChange>;

export const taskHistoryInput = z.strictObject({ listName: listName.optional(), id: taskId }, { error: unknownField() });
export const taskHistoryOutput = z.object({ changes: z.array(taskChange) });

export const taskWatchInput = z.strictObject({
  listName: listName.optional(),
  from: feedFrom,
  lastEventId: lastEventId.optional(),
});
export const taskEvent = taskChange.extend({ task });
export type TaskEvent = z.infer<typeof taskEvent>;

export const taskFileFormat = z.enum(['sisyphus', 'claude'], {
  error: 'Error: invalid input: `format` must be "sisyphus" or "claude".',
});
export type TaskFileFormat = z.infer<typeof taskFileFormat>;
export const taskFile = z.strictObject({
  name: z.string().min(1).max(255),
  content: z.string().max(100_000, { error: 'Error: invalid import: a task file must be at most 100000 characters.' }),
});
export const taskImportInput = z.strictObject(
  {
    listName: listName.optional(),
    format: taskFileFormat,
    files: z.array(taskFile).max(IMPORT_FILES_MAX, { error: `Error: invalid import: at most ${IMPORT_FILES_MAX} files per import.` }),
  },
  { error: unknownField() },
);
export const taskImportOutput = z.object({ listName: z.string(), imported: z.number().int(), ids: z.record(z.string(), z.string()) });
export const taskExportInput = z.strictObject({ listName: listName.optional(), format: taskFileFormat }, { error: unknownField() });
export const taskExportOutput = z.object({ listName: z.string(), files: z.array(z.object({ name: z.string(), content: z.string() })) });

/** A task id as a mirror names it (`T-…`); a mirror is addressed by id, not by `#n`. */
const mirrorTaskId = (field: string) =>
  z
    .string({ error: `Error: invalid input: \`${field}\` must be a task id like "T-…".` })
    .regex(/^T-[A-Za-z0-9-]{1,64}$/, { error: (iss) => `Error: invalid input: \`${field}\`: ${shown(iss.input)} is not a task id (T-…).` });
const mirrorTaskIds = (field: string) =>
  z
    .array(mirrorTaskId(field), { error: `Error: invalid input: \`${field}\` must be an array of task ids.` })
    .max(MIRROR_EDGES_MAX, { error: `Error: invalid input: \`${field}\` may name at most ${MIRROR_EDGES_MAX} tasks.` });
const mirrorText = (field: string) => z.string({ error: `Error: invalid task: \`${field}\` must be a string.` });
const mirrorMetadata = z.record(z.string(), z.unknown(), { error: 'Error: invalid task: `metadata` must be a JSON object.' });

/**
 * A change another runtime's task tools made (Claude Code's TaskCreate and TaskUpdate), recorded as that runtime did
 * it: no blocker check on a status change, texts and metadata of any size (cut at a generous storage bound with a
 * visible "…"), edges to tasks that do not exist skipped as the runtime skips them. `create` makes the task with this
 * id when it does not exist yet (a create delivered twice changes nothing); the other fields then change it.
 */
export const taskMirrorInput = z.strictObject(
  {
    listName,
    id: mirrorTaskId('id'),
    create: z
      .strictObject(
        {
          subject: mirrorText('subject'),
          description: mirrorText('description').default(''),
          activeForm: mirrorText('activeForm').optional(),
          metadata: mirrorMetadata.optional(),
        },
        { error: unknownField() },
      )
      .optional(),
    subject: mirrorText('subject').optional(),
    description: mirrorText('description').optional(),
    activeForm: mirrorText('activeForm').nullable().optional(),
    status: taskStatus.optional(),
    owner: mirrorText('owner').nullable().optional(),
    metadata: mirrorMetadata.optional().describe('Keys to merge into the task; a key set to null is removed.'),
    addBlocks: mirrorTaskIds('addBlocks').optional(),
    addBlockedBy: mirrorTaskIds('addBlockedBy').optional(),
  },
  {
    error: unknownField(),
  },
);
export type TaskMirrorInput = z.infer<typeof taskMirrorInput>;
export const taskMirrorOutput = z.object({
  task,
  notRecorded: z
    .array(z.object({ blockerId: z.string(), blockedId: z.string(), reason: z.string() }))
    .describe('Edges the runtime holds that a task graph cannot: each closes a cycle'),
});

/** A list's trust settings, set by an admin: omitted fields keep their value. */
export const taskListSettingsInput = z.strictObject(
  {
    listName: listName.optional(),
    requireEvidence: z.boolean({ error: 'Error: invalid input: `requireEvidence` must be true or false.' }).optional(),
    requireVerified: z.boolean({ error: 'Error: invalid input: `requireVerified` must be true or false.' }).optional(),
    leaseMs: leaseMs.nullable().optional(),
  },
  { error: unknownField() },
);
export type TaskListSettingsInput = z.infer<typeof taskListSettingsInput>;
export const taskListSettingsQuery = z.strictObject({ listName: listName.optional() }, { error: unknownField() }).default({});

/** The owner renews its claim's lease. */
export const taskHeartbeatInput = z.strictObject({ listName: listName.optional(), id: taskId }, { error: unknownField() });
export const taskHeartbeatOutput = z.object({ id: z.string(), lease: taskLease });

/** Evidence a runtime hook saw (a command it watched run), for the caller's in-progress tasks of the list. */
export const taskHookEvidenceInput = z.strictObject({ listName: listName.optional(), evidence: evidenceInput }, { error: unknownField() });
export const taskHookEvidenceOutput = z.object({ taskIds: z.array(z.string()).describe('The tasks the evidence was attached to') });

/** Whether the task may be completed now under its list's settings (Claude Code's TaskCompleted hook asks). */
export const taskCompletionCheckInput = taskGetInput;
export const taskCompletionCheckOutput = z.object({ allowed: z.boolean(), reason: z.string().nullable() });
export const taskCommentInput = z.strictObject({ listName: listName.optional(), id: taskId, body: commentBody }, { error: unknownField() });
export type TaskCommentInput = z.infer<typeof taskCommentInput>;
export const taskCommentsInput = z.strictObject({ listName: listName.optional(), id: taskId }, { error: unknownField() });
export const taskSearchInput = z.strictObject(
  { listName: listName.optional(), query, limit: searchLimit },
  { error: unknownField({ lead: ['query', 'listName'] }) },
);
export type TaskSearchInput = z.infer<typeof taskSearchInput>;
/** A hook's SessionStart: the comments people left on the list's tasks since this session last read them. */
export const taskNotesInput = z.strictObject({ listName }, { error: unknownField() });
export const taskNotesOutput = z.object({
  notes: z.array(z.object({ taskId: z.string(), ref: z.string(), subject: z.string(), author: z.string(), body: z.string(), at: isoDate })),
  text: z.string().describe('"Notes from people: …", or empty when there are none'),
});
export const taskCommentsWatchInput = z.strictObject({
  listName: listName.optional(),
  from: feedFrom,
  lastEventId: lastEventId.optional(),
});
export const taskCommentEvent = taskComment.extend({ listName: z.string() });
export type TaskCommentEvent = z.infer<typeof taskCommentEvent>;
