// Contracts of workspace administration: API keys, settings and new workspaces.
import { z } from 'zod';
import { id, isoDate, role, unknownField } from './common.ts';
import { NAME_MAX } from './limits.ts';

const name = z
  .string({ error: 'Error: invalid input: `name` must be a string.' })
  .trim()
  .min(1, { error: 'Error: invalid input: `name` must not be empty.' })
  .max(NAME_MAX, { error: `Error: invalid input: \`name\` must be at most ${NAME_MAX} characters.` });

export const apiKey = z.object({
  id: z.string(),
  name: z.string(),
  role,
  createdAt: isoDate,
  revokedAt: isoDate.nullable(),
});
export type ApiKeyInfo = z.infer<typeof apiKey>;

export const keyCreateInput = z.strictObject({ name, role }, { error: unknownField() });
export const keyCreateOutput = z.object({
  key: apiKey,
  token: z.string().describe('The key itself; shown once, stored only as a hash.'),
});
export const keyRevokeInput = z.strictObject({ id }, { error: unknownField() });
export const keyListOutput = z.object({ keys: z.array(apiKey) });

export const settings = z.object({
  oneActiveRule: z.boolean().describe('At most one todo item may be in_progress.'),
});
export type Settings = z.infer<typeof settings>;
export const settingsUpdateInput = z.strictObject(
  { oneActiveRule: z.boolean({ error: 'Error: invalid input: `oneActiveRule` must be true or false.' }).optional() },
  { error: unknownField() },
);

export const workspace = z.object({ id: z.string(), name: z.string(), createdAt: isoDate });
export const workspaceCreateInput = z.strictObject({ name }, { error: unknownField() });
export const workspaceCreateOutput = z.object({
  workspace,
  adminKey: z.string().describe("The new workspace's first admin key; shown once."),
});
export const whoamiOutput = z.object({
  workspace,
  role,
  keyId: z.string().nullable(),
  sessionId: z.string().nullable(),
});
export const keyRevokeOutput = z.object({ key: apiKey });
