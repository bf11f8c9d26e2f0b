// Token hashing: tokens are 256-bit random secrets, so one SHA-256 is enough to store them safely.
import crypto, { createHash } from 'node:crypto';
import type { TokenHasher } from '@agent-tasks/core';

/** Node's one-shot digest (20.12 and later): about a third of the time of a Hash object for a token, hashed per call. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string) => string }).hash;

export const sha256Hasher: TokenHasher = {
  hash: oneShot ? (token) => oneShot('sha256', token) : (token) => createHash('sha256').update(token).digest('hex'),
};
