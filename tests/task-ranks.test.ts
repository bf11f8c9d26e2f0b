// Black-box tests of the cycle check kept fast by task ranks (a topological order the server maintains): random edge
// adds, forward and backward, against an in-test oracle; every edge in the database runs from a lower rank to a higher
// one; a list made before ranks existed (all ranks 0) is ranked on its next edge and stays correct.
import { refusalOf } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prng } from './bench/task-graph-seed.ts';
import { execute, queryRows } from './support/database.ts';
import { sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

/** What the database says: every edge of the list with its two ranks. */
function edgesWithRanks(listName: string) {
  return queryRows<{ blockerId: string; blockedId: string; blockerRank: number; blockedRank: number }>(
    server,
    `SELECT e."blockerId", e."blockedId", a."rank" AS "blockerRank", b."rank" AS "blockedRank"
     FROM "TaskEdge" e JOIN "Task" a ON a."id" = e."blockerId" JOIN "Task" b ON b."id" = e."blockedId"
     JOIN "TaskList" l ON l."id" = e."listId" WHERE l."name" = ?`,
    listName,
  );
}

type Client = Awaited<ReturnType<typeof sessionClient>>['client'];

/** Adds `count` random edges through the API and checks each answer against reachability computed here. */
async function randomEdges(client: Client, listName: string, ids: string[], blocks: Map<string, Set<string>>, seed: number, count: number) {
  const random = prng(seed);
  const reaches = (from: string, to: string) => {
    const seen = new Set([from]);
    for (const queue = [from]; queue.length;) {
      for (const next of blocks.get(queue.pop() as string) ?? []) {
        if (next === to) return true;
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return false;
  };
  let accepted = 0;
  let refused = 0;
  for (let n = 0; n < count; n++) {
    const blocker = ids[Math.floor(random() * ids.length)] as string;
    const blocked = ids[Math.floor(random() * ids.length)] as string;
    if (blocker === blocked || blocks.get(blocker)?.has(blocked)) continue;
    const closesCycle = reaches(blocked, blocker);
    try {
      await client.tasks.update({ listName, id: blocked, addBlockedBy: [blocker] });
      expect(closesCycle, `${blocker} -> ${blocked} was accepted but closes a cycle`).toBe(false);
      blocks.set(blocker, (blocks.get(blocker) ?? new Set()).add(blocked));
      accepted++;
    } catch (error) {
      const refusal = refusalOf(error);
      expect(closesCycle, `${blocker} -> ${blocked} was refused: ${refusal.message}`).toBe(true);
      expect(refusal.code).toBe('INVALID_DEPENDENCY');
      expect(refusal.message).toMatch(/would close a cycle/);
      refused++;
    }
  }
  return { accepted, refused };
}

async function expectTopologicalRanks(listName: string, edges: number) {
  const rows = await edgesWithRanks(listName);
  expect(rows).toHaveLength(edges);
  for (const row of rows) expect(row.blockerRank, `${row.blockerId} -> ${row.blockedId}`).toBeLessThan(row.blockedRank);
}

/** `n` task files in Claude Code's format, ids 1…n, task i (from 0) blocked by the ids `blockedBy(i)` names. */
const taskFiles = (n: number, subject: string, blockedBy: (i: number) => string[]) =>
  Array.from({ length: n }, (_, i) => ({
    name: `${i + 1}.json`,
    content: JSON.stringify({
      id: String(i + 1),
      subject: `${subject} ${i + 1}`,
      description: '',
      status: 'pending',
      blocks: [],
      blockedBy: blockedBy(i),
    }),
  }));

describe('edge adds against the kept topological order', () => {
  it('random edges, forward and backward in creation order: cycles refused, the rest accepted, ranks stay in order', async () => {
    const { client } = await sessionClient(server, 'ranks');
    const listName = 'ranked';
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) ids.push((await client.tasks.create({ listName, subject: `Task ${i}` })).id);
    const blocks = new Map<string, Set<string>>();
    const { accepted, refused } = await randomEdges(client, listName, ids, blocks, 42, 220);
    expect(accepted).toBeGreaterThan(30);
    expect(refused).toBeGreaterThan(10);
    await expectTopologicalRanks(listName, accepted);
  });

  it('an import whose dependencies run against file order is ranked in one pass; later edge adds stay correct', async () => {
    const { client } = await sessionClient(server, 'imported ranks');
    const listName = 'imported-ranked';
    // Task i is blocked by task i+1 (each blocker comes later in the files), and task 1 also by task 12.
    const files = taskFiles(12, 'Imported', (i) => [...(i < 11 ? [String(i + 2)] : []), ...(i === 0 ? ['12'] : [])]);
    expect((await client.tasks.import({ listName, format: 'claude', files })).imported).toBe(12);
    await expectTopologicalRanks(listName, 12);
    const ids = (await client.tasks.list({ listName })).tasks.map((t) => t.id);
    const blocks = new Map<string, Set<string>>();
    for (const e of await edgesWithRanks(listName)) blocks.set(e.blockerId, (blocks.get(e.blockerId) ?? new Set()).add(e.blockedId));
    const { accepted, refused } = await randomEdges(client, listName, ids, blocks, 11, 80);
    expect(refused).toBeGreaterThan(5);
    await expectTopologicalRanks(listName, 12 + accepted);
  });

  it('an import whose dependencies already follow file order moves no rank: each task keeps the rank of its place', async () => {
    const { client } = await sessionClient(server, 'imported in order');
    const listName = 'imported-in-order';
    // Chains of ten (task i blocked by task i-1): a breadth-first order would deal the ranks out chain-head first.
    const files = taskFiles(30, 'In order', (i) => (i % 10 !== 0 ? [String(i)] : []));
    expect((await client.tasks.import({ listName, format: 'claude', files })).imported).toBe(30);
    await expectTopologicalRanks(listName, 27);
    const rows = await queryRows<{ seq: number; rank: number }>(
      server,
      `SELECT t."seq", t."rank" FROM "Task" t JOIN "TaskList" l ON l."id" = t."listId" WHERE l."name" = ? ORDER BY t."seq"`,
      listName,
    );
    expect(rows.map((r) => [Number(r.seq), Number(r.rank)])).toEqual(Array.from({ length: 30 }, (_, i) => [i + 1, i + 1]));
  });

  it('a list from before ranks were kept (every rank 0) is ranked on its next edge, and stays correct', async () => {
    const { client } = await sessionClient(server, 'old list');
    const listName = 'unranked';
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) ids.push((await client.tasks.create({ listName, subject: `Old task ${i}` })).id);
    const blocks = new Map<string, Set<string>>();
    const first = await randomEdges(client, listName, ids, blocks, 7, 60);
    // As a database migrated from before ranks: the column exists, every value 0; a restart forgets what was ranked.
    await execute(server, ['UPDATE "Task" SET "rank" = 0 WHERE "listId" = (SELECT "id" FROM "TaskList" WHERE "name" = ?)', listName]);
    await server.restart();
    const { client: again } = await sessionClient(server, 'old list, later');
    const second = await randomEdges(again, listName, ids, blocks, 8, 120);
    expect(second.accepted + second.refused).toBeGreaterThan(20);
    await expectTopologicalRanks(listName, first.accepted + second.accepted);
  });
});
