// Contracts of the todo list tool (seed 000): items, todo_write, the list, its update cards and live events.
import { z } from 'zod';
import { shown, shownKeys } from './shown.ts';
import { feedFrom, id, isoDate, lastEventId, pageLimit, unknownField } from './common.ts';
import { EXTERNAL_ID_MAX, TODO_MAX_CONTENT, TODO_MAX_ITEMS } from './limits.ts';

export const todoStatuses = ['pending', 'in_progress', 'completed'] as const;
export const todoStatus = z.enum(todoStatuses, {
  error: (iss) => `Error: invalid todo: \`status\` must be one of pending, in_progress, completed (got ${shown(iss.input)}).`,
});
export type TodoStatus = z.infer<typeof todoStatus>;

export const NON_EMPTY_CONTENT_ERROR = 'Error: invalid todo: `content` must be a non-empty string.';

export const todoItem = z.strictObject(
  {
    content: z
      .string({ error: NON_EMPTY_CONTENT_ERROR })
      .trim()
      .max(TODO_MAX_CONTENT, {
        error: (iss) =>
          `Error: invalid todo: \`content\` must be at most ${TODO_MAX_CONTENT} characters (got ${typeof iss.input === 'string' ? [...iss.input].length : 0}).`,
      }),
    status: todoStatus,
  },
  {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `Error: invalid todo: unknown field ${shownKeys(iss.keys)}; an item is only its \`content\` and \`status\`.`
        : 'Error: invalid todo: each item must be an object { content, status }.',
  },
);
export type TodoItem = z.infer<typeof todoItem>;

export const todoList = z
  .array(todoItem, { error: 'Error: invalid todos: `todos` must be an array of { content, status } items.' })
  .max(TODO_MAX_ITEMS, {
    error: (iss) => `Error: invalid todos: at most ${TODO_MAX_ITEMS} items per list (got ${(iss.input as unknown[]).length}).`,
  });

export const todoWriteInput = z.strictObject(
  {
    todos: todoList,
    baseRevision: z
      .number({ error: 'Error: invalid input: `baseRevision` must be a whole number.' })
      .int({ error: 'Error: invalid input: `baseRevision` must be a whole number.' })
      .min(0, { error: 'Error: invalid input: `baseRevision` must be a whole number.' })
      .optional(),
  },
  {
    error: unknownField({ unlisted: ['baseRevision'] }),
  },
);
export type TodoWriteInput = z.infer<typeof todoWriteInput>;

export const todoCounts = z.object({
  pending: z.number().int(),
  inProgress: z.number().int(),
  completed: z.number().int(),
});
export type TodoCounts = z.infer<typeof todoCounts>;

export const todoWriteOutput = z.object({
  message: z.string(),
  revision: z.number().int(),
  counts: todoCounts,
});
export type TodoWriteOutput = z.infer<typeof todoWriteOutput>;

export const todoChanges = z.object({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  statusChanged: z.array(z.object({ content: z.string(), from: todoStatus, to: todoStatus })),
});
export type TodoChanges = z.infer<typeof todoChanges>;

/**
 * An item as recorded and shown: its text, its state and, for a list mirrored from another agent tool, the
 * `activeForm` that tool displays while the item is in progress ("Running tests"). Display only: it takes no part in
 * an item's identity, the duplicate check, the diff or the counts, and todo_write itself never sends it.
 */
export const todoDisplayItem = z.object({ content: z.string(), status: todoStatus, activeForm: z.string().optional() });
export type TodoDisplayItem = z.infer<typeof todoDisplayItem>;

export const todoCard = z.object({
  sessionId: z.string(),
  revision: z.number().int(),
  turnNumber: z.number().int(),
  items: z.array(todoDisplayItem),
  changes: todoChanges,
  counts: todoCounts,
  createdAt: isoDate,
});
export type TodoCard = z.infer<typeof todoCard>;

export const sessionRef = z.strictObject({ sessionId: id.optional() }).default({});

export const todoListView = z.object({
  sessionId: z.string(),
  revision: z.number().int(),
  items: z.array(todoDisplayItem),
  counts: todoCounts,
  updatedAt: isoDate.nullable(),
});
export type TodoListView = z.infer<typeof todoListView>;

export const todoHistoryInput = z
  .strictObject({
    sessionId: id.optional(),
    limit: pageLimit.default(20),
    before: z.number().int().min(1).optional().describe('Return cards with a revision lower than this one.'),
  })
  .prefault({});
export const todoHistoryOutput = z.object({
  cards: z.array(todoCard),
  nextBefore: z.number().int().nullable(),
});
export type TodoHistory = z.infer<typeof todoHistoryOutput>;

export const todoCardInput = z
  .strictObject(
    {
      sessionId: id.optional(),
      revision: z
        .number({ error: 'Error: invalid input: `revision` must be a whole number from 1.' })
        .int({ error: 'Error: invalid input: `revision` must be a whole number from 1.' })
        .min(1, { error: 'Error: invalid input: `revision` must be a whole number from 1.' })
        .optional()
        .describe('The update whose card to render; the latest when omitted.'),
    },
    { error: unknownField() },
  )
  .default({});
/** The "Update to-do list" card: the groups and what changed as data, and the same as text for models and terminals. */
export const todoCardView = z.object({
  sessionId: z.string(),
  revision: z.number().int(),
  groups: z.object({ pending: z.array(z.string()), inProgress: z.array(z.string()), completed: z.array(z.string()) }),
  changes: todoChanges,
  createdAt: isoDate,
  text: z.string(),
});
export type TodoCardView = z.infer<typeof todoCardView>;

export const todoWatchInput = z.strictObject({
  sessionId: id.optional(),
  from: feedFrom,
  lastEventId: lastEventId.optional().describe('Resume after this event (an update revision).'),
});

/**
 * A list kept by another agent tool (Claude Code's TodoWrite), recorded as that tool holds it: any number of items in
 * progress, repeated texts, any length (cut at a generous storage bound with a visible "…"), never refused for its
 * content. `activeForm` is kept for display. `forkOf` instead starts a new session from the list of the session it was
 * forked from.
 */
export const todoMirrorItem = z.strictObject(
  {
    content: z.string({ error: 'Error: invalid todo: `content` must be a string.' }),
    status: todoItem.shape.status,
    activeForm: z
      .string({ error: 'Error: invalid todo: `activeForm` must be a string.' })
      .optional()
      .describe('What the tool shows while the item is in progress, e.g. "Running tests".'),
  },
  {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `Error: invalid todo: unknown field ${shownKeys(iss.keys)}; a mirrored item is its \`content\`, \`status\` and \`activeForm\`.`
        : 'Error: invalid todo: each item must be an object { content, status, activeForm? }.',
  },
);
export const todoMirrorInput = z
  .strictObject(
    {
      todos: z
        .array(todoMirrorItem, { error: 'Error: invalid todos: `todos` must be an array of { content, status, activeForm? } items.' })
        .optional()
        .describe('The whole list, as the other tool holds it. It replaces the previous list.'),
      forkOf: z
        .string({ error: 'Error: invalid input: `forkOf` must be a string.' })
        .trim()
        .min(1, { error: 'Error: invalid input: `forkOf` must not be empty.' })
        .max(EXTERNAL_ID_MAX, { error: `Error: invalid input: \`forkOf\` must be at most ${EXTERNAL_ID_MAX} characters.` })
        .optional()
        .describe(
          "The external id of the session this one was forked from (opened with the same key): while this session has no list yet, it starts with that session's current list.",
        ),
    },
    {
      error: unknownField({ alternatives: true }),
    },
  )
  .refine((input) => (input.todos === undefined) !== (input.forkOf === undefined), {
    error: 'Error: invalid input: send either `todos` (the whole list) or `forkOf` (the session it was forked from).',
  });
export type TodoMirrorInput = z.infer<typeof todoMirrorInput>;
