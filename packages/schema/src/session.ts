// Contracts of sessions: opening one (or a subagent), turns, and the session's view of its list and standing plan.
import { z } from 'zod';
import { isoDate, unknownField } from './common.ts';
import { EXTERNAL_ID_MAX, TASK_OWNER_MAX, TITLE_MAX } from './limits.ts';
import { todoDisplayItem, todoListView } from './todo.ts';

export const turnState = z.enum(['none', 'running', 'ended']);
export type TurnState = z.infer<typeof turnState>;

export const session = z.object({
  id: z.string(),
  workspaceId: z.string(),
  parentId: z.string().nullable(),
  title: z.string().nullable(),
  agentName: z.string().describe('The name this session works under, e.g. as a task owner (default: the session id).'),
  turn: z.object({ number: z.number().int(), state: turnState }),
  externalId: z
    .string()
    .optional()
    .describe('The key another tool knows this session by (e.g. a Claude Code session id), when opened with one.'),
  createdAt: isoDate,
});
export type Session = z.infer<typeof session>;

export const sessionOpenInput = z
  .strictObject(
    {
      title: z
        .string({ error: 'Error: invalid input: `title` must be a string.' })
        .trim()
        .min(1, { error: 'Error: invalid input: `title` must not be empty.' })
        .max(TITLE_MAX, { error: `Error: invalid input: \`title\` must be at most ${TITLE_MAX} characters.` })
        .optional(),
      agentName: z
        .string({ error: 'Error: invalid input: `agentName` must be a string.' })
        .trim()
        .min(1, { error: 'Error: invalid input: `agentName` must not be empty.' })
        .max(TASK_OWNER_MAX, { error: `Error: invalid input: \`agentName\` must be at most ${TASK_OWNER_MAX} characters.` })
        .optional()
        .describe('Agent name, e.g. "researcher"; tasks this session claims are owned under it.'),
      externalId: z
        .string({ error: 'Error: invalid input: `externalId` must be a string.' })
        .trim()
        .min(1, { error: 'Error: invalid input: `externalId` must not be empty.' })
        .max(EXTERNAL_ID_MAX, { error: `Error: invalid input: \`externalId\` must be at most ${EXTERNAL_ID_MAX} characters.` })
        .optional()
        .describe(
          'A key another tool knows this session by (e.g. a Claude Code session id): the first open creates the session, a later open with the same key in the workspace returns it with a new token.',
        ),
    },
    {
      error: unknownField(),
    },
  )
  .default({});

export const sessionOpenOutput = z.object({
  session,
  token: z.string().describe('Session token: send it as the bearer token to act as this session.'),
});

export const sessionView = z.object({
  session,
  todo: todoListView,
  standingPlan: z
    .object({
      revision: z.number().int(),
      turnNumber: z.number().int(),
      items: z.array(todoDisplayItem),
    })
    .nullable()
    .describe('The plan the chat shows: the list recorded in the current turn; cleared when the next turn starts.'),
});
export type SessionView = z.infer<typeof sessionView>;

export const sessionListOutput = z.object({ sessions: z.array(session) });
export const sessionTurnOutput = z.object({ session });
