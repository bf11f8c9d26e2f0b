// Record ids from node:crypto: random ones, and ones ordered by creation time for records appended on every call.
import { describe, expect, it } from 'vitest';
import { nodeIds } from '../src/adapters/node-ids.ts';

describe('node ids', () => {
  it('a random id and an ordered one have the same shape: the prefix and 32 hex digits', () => {
    expect(nodeIds.id('tdu')).toMatch(/^tdu_[0-9a-f]{32}$/);
    expect(nodeIds.ordered('tdu')).toMatch(/^tdu_[0-9a-f]{32}$/);
  });

  it('ordered ids sort as they were made (their first 12 digits are the time in ms), and never repeat', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push(nodeIds.ordered('tdu'));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect([...made].sort()).toEqual(made);
    const at = Number.parseInt(made[0]!.slice(4, 16), 16);
    expect(Math.abs(at - Date.now())).toBeLessThan(60_000);
    // Many pools' worth (409 ids a pool): each id its own random part, none repeated across refills.
    const many = Array.from({ length: 10_000 }, () => nodeIds.ordered('tdu'));
    expect(new Set(many).size).toBe(many.length);
    expect(new Set(many.map((id) => id.slice(16))).size).toBe(many.length);
  });
});
