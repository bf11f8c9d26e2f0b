// Ids and secret tokens from node:crypto.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Ids } from '@agent-tasks/core';

export const nodeIds: Ids = {
  id: (prefix) => `${prefix}_${randomUUID().replaceAll('-', '')}`,
  // The same 32 hex digits: 12 of the time in milliseconds, 20 random (80 bits).
  ordered: (prefix) => `${prefix}_${Date.now().toString(16).padStart(12, '0')}${randomBytes(10).toString('hex')}`,
  secret: (prefix) => `${prefix}_${randomBytes(32).toString('base64url')}`,
  uuid: () => randomUUID(),
};
