// A write's task read with what surrounds it (PostgreSQL): the reads after it in the same write answer as the database
// would, each part read again or known once the write changes it — the same answers on every store.
import type { Repositories } from '@agent-tasks/core';
import { describe, expect, it } from 'vitest';
import { at, taskEdge, taskListRecord, taskRecord } from '../../../packages/core/test/record-builders.ts';
import { type StoreKind, memoryKind, postgresKind, prismaKind, withSeededStore } from './support/stores.ts';

/** What a write reads around task B of list tl_1. */
async function around(repos: Repositories, ids = ['B']) {
  // One at a time: a transaction's statements go over one connection.
  const edges = await repos.tasks.edgesOf('tl_1', ids);
  const evidence = await repos.trust.evidenceOf('tl_1', ids);
  const leases = await repos.trust.leasesOf('tl_1', ids);
  const requirements = await repos.trust.requirementsOf('tl_1', ids);
  const trust = await repos.trust.trustOf('tl_1', ids);
  return {
    edges,
    evidence: evidence.map((e) => e.body),
    leases,
    requirements,
    trust: { ...trust, evidence: trust.evidence.map((e) => e.body) },
  };
}

const evidence = (text: string, ms: number) => ({
  listId: 'tl_1',
  taskId: 'B',
  provenance: 'agent' as const,
  success: true,
  body: { kind: 'note' as const, text },
  at: at(ms),
});

describe.each([memoryKind, prismaKind(), postgresKind()] as StoreKind[])('reads around a task within one write on $name', (kind) => {
  it('answer what the database holds after each of the write’s own changes', () =>
    withSeededStore(kind, async ({ store }) => {
      await store.transaction(async (repos) => {
        await repos.tasks.createList(taskListRecord('tl_1'));
        for (const [i, id] of ['A', 'B', 'C'].entries()) await repos.tasks.insert(taskRecord(id, i + 1, { listId: 'tl_1' }));
        await repos.tasks.addEdge('tl_1', taskEdge('A', 'B'));
        await repos.trust.addEvidence([evidence('first look', 1)]);
        await repos.trust.putLease({ listId: 'tl_1', taskId: 'B', owner: 'ada', leaseMs: 1000, expiresAt: at(1000) });
        await repos.trust.setRequirements('tl_1', 'B', ['tool:browser', 'role:reviewer']);
      });
      const seen: unknown[] = [];
      await store.transaction(async (repos) => {
        expect(await repos.tasks.get('tl_1', 'B')).toMatchObject({ id: 'B', seq: 2 });
        seen.push(await around(repos));
        await repos.tasks.removeEdges('tl_1', [taskEdge('A', 'B')]);
        seen.push((await around(repos)).edges);
        await repos.tasks.addEdge('tl_1', taskEdge('B', 'C'));
        seen.push((await around(repos)).edges);
        await repos.trust.addEvidence([evidence('second look', 2)]);
        await repos.trust.putLease({ listId: 'tl_1', taskId: 'B', owner: 'ada', leaseMs: 1000, expiresAt: at(5000) });
        await repos.trust.setRequirements('tl_1', 'B', ['tool:shell']);
        seen.push(await around(repos));
        await repos.trust.dropLease('tl_1', 'B');
        const dropped = await around(repos);
        seen.push([dropped.leases, dropped.trust.leases]);
        // Two tasks at once, one of them never read here.
        seen.push(await around(repos, ['B', 'C']));
      });
      const lease = (ms: number) => ({ listId: 'tl_1', taskId: 'B', owner: 'ada', leaseMs: 1000, expiresAt: at(ms) });
      const note = (text: string) => ({ kind: 'note', text });
      expect(seen).toEqual([
        {
          edges: [taskEdge('A', 'B')],
          evidence: [note('first look')],
          leases: [lease(1000)],
          requirements: [
            { taskId: 'B', capability: 'role:reviewer' },
            { taskId: 'B', capability: 'tool:browser' },
          ],
          trust: {
            evidence: [note('first look')],
            leases: [lease(1000)],
            requirements: [
              { taskId: 'B', capability: 'role:reviewer' },
              { taskId: 'B', capability: 'tool:browser' },
            ],
          },
        },
        [],
        [taskEdge('B', 'C')],
        {
          edges: [taskEdge('B', 'C')],
          evidence: [note('first look'), note('second look')],
          leases: [lease(5000)],
          requirements: [{ taskId: 'B', capability: 'tool:shell' }],
          trust: {
            evidence: [note('first look'), note('second look')],
            leases: [lease(5000)],
            requirements: [{ taskId: 'B', capability: 'tool:shell' }],
          },
        },
        [[], []],
        {
          edges: [taskEdge('B', 'C')],
          evidence: [note('first look'), note('second look')],
          leases: [],
          requirements: [{ taskId: 'B', capability: 'tool:shell' }],
          trust: {
            evidence: [note('first look'), note('second look')],
            leases: [],
            requirements: [{ taskId: 'B', capability: 'tool:shell' }],
          },
        },
      ]);
    }));
});
