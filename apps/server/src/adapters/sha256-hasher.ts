// Token hashing: tokens are 256-bit random secrets, so one SHA-256 is enough to store them safely.
import { createHash } from 'node:crypto';
import type { TokenHasher } from '@agent-tasks/core';

export const sha256Hasher: TokenHasher = {
  hash: (token) => createHash('sha256').update(token).digest('hex'),
};
