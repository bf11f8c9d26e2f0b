// Token hashing: SHA-256 in hex, as stored (keys, session tokens, stream tickets), whichever digest Node offers.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hasher } from '../src/adapters/sha256-hasher.ts';

describe('sha256Hasher', () => {
  it('is SHA-256 in lowercase hex: the known answer for "abc", and the same as a Hash object for tokens', () => {
    expect(sha256Hasher.hash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (const token of ['atk_x', 'ats_' + 'é'.repeat(40), '']) {
      expect(sha256Hasher.hash(token)).toBe(createHash('sha256').update(token).digest('hex'));
    }
  });
});
