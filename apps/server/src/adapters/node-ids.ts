// Ids and secret tokens from node:crypto.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Ids } from '@agent-tasks/core';

export const nodeIds: Ids = {
  id: (prefix) => `${prefix}_${randomUUID().replaceAll('-', '')}`,
  secret: (prefix) => `${prefix}_${randomBytes(32).toString('base64url')}`,
  uuid: () => randomUUID(),
};
