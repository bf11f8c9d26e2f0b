// The in-memory TrustRepository of the fake store: list settings, evidence, leases, requirements, capabilities, GitHub.
import type { Repositories, TaskListRecord, TaskRecord } from '../src/index.ts';
import type { EvidenceRecord, LeaseRecord, TaskListSettingsRecord, TrustRepository } from '../src/trust-ports.ts';

export interface MemoryTrustState {
  settings: Map<string, TaskListSettingsRecord>;
  evidence: EvidenceRecord[];
  leases: Map<string, LeaseRecord>;
  requirements: Map<string, string[]>;
  capabilities: Map<string, string[]>;
  githubSecrets: Map<string, string>;
  deliveries: Set<string>;
}

export const emptyTrustState = (): MemoryTrustState => ({
  settings: new Map(),
  evidence: [],
  leases: new Map(),
  requirements: new Map(),
  capabilities: new Map(),
  githubSecrets: new Map(),
  deliveries: new Set(),
});

const key = (listId: string, taskId: string) => `${listId}\u0000${taskId}`;
function copy<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) return value.map(copy) as T;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copy(v)])) as T;
}

export function memoryTrust(
  state: () => MemoryTrustState,
  lists: () => Map<string, TaskListRecord & { staging?: boolean }>,
  tasks: () => Map<string, TaskRecord>,
  taskRepo: () => Repositories['tasks'],
): TrustRepository {
  return {
    listOf: async (listId) => {
      const list = lists().get(listId);
      return list && !list.staging ? { id: list.id, workspaceId: list.workspaceId, name: list.name, createdAt: list.createdAt } : null;
    },
    settings: async (listId) => copy(state().settings.get(listId) ?? { requireEvidence: false, requireVerified: false, leaseMs: null }),
    saveSettings: async (listId, settings) => void state().settings.set(listId, copy(settings)),
    evidenceOf: async (listId, ids) => copy(state().evidence.filter((e) => e.listId === listId && ids.includes(e.taskId))),
    addEvidence: async (rows) => void state().evidence.push(...copy([...rows])),
    leasesOf: async (listId, ids) => copy([...state().leases.values()].filter((l) => l.listId === listId && ids.includes(l.taskId))),
    putLease: async (lease) => void state().leases.set(key(lease.listId, lease.taskId), copy(lease)),
    dropLease: async (listId, taskId) => void state().leases.delete(key(listId, taskId)),
    dueLeases: async (now, limit) =>
      copy(
        [...state().leases.values()]
          .filter((l) => l.expiresAt.getTime() <= now.getTime())
          .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime())
          .slice(0, limit),
      ),
    nextLeaseExpiry: async () => {
      const ends = [...state().leases.values()].map((l) => l.expiresAt.getTime());
      return ends.length ? new Date(Math.min(...ends)) : null;
    },
    requirementsOf: async (listId, ids) =>
      ids.flatMap((taskId) => (state().requirements.get(key(listId, taskId)) ?? []).map((capability) => ({ taskId, capability }))),
    async trustOf(listId, ids) {
      const evidence = copy(state().evidence.filter((e) => e.listId === listId && ids.includes(e.taskId)));
      const leases = copy([...state().leases.values()].filter((l) => l.listId === listId && ids.includes(l.taskId)));
      const requirements = ids.flatMap((taskId) =>
        (state().requirements.get(key(listId, taskId)) ?? []).map((capability) => ({ taskId, capability })),
      );
      return { evidence, leases, requirements };
    },
    setRequirements: async (listId, taskId, capabilities) => void state().requirements.set(key(listId, taskId), [...capabilities].sort()),
    async firstReadyFor(listId, agent, capabilities) {
      const ready = await taskRepo().list(listId, { statuses: ['pending'], readyFor: agent, limit: Number.MAX_SAFE_INTEGER });
      // Most urgent first (no priority after P4), then oldest: the list comes by creation order and the sort is stable.
      const urgency = (t: { priority: string | null }) => (t.priority === null ? 5 : Number(t.priority.slice(1)));
      const met = [...ready]
        .sort((a, b) => urgency(a) - urgency(b))
        .find((t) => (state().requirements.get(key(listId, t.id)) ?? []).every((c) => capabilities.includes(c)));
      return met?.id ?? null;
    },
    capabilitiesOf: async (sessionId) => [...(state().capabilities.get(sessionId) ?? [])],
    setCapabilities: async (sessionId, capabilities) => void state().capabilities.set(sessionId, [...capabilities].sort()),
    githubSecret: async (workspaceId) => state().githubSecrets.get(workspaceId) ?? null,
    setGithubSecret: async (workspaceId, secret) => void state().githubSecrets.set(workspaceId, secret),
    async recordDelivery(workspaceId, deliveryId) {
      const id = key(workspaceId, deliveryId);
      if (state().deliveries.has(id)) return false;
      state().deliveries.add(id);
      return true;
    },
    tasksMentioning: async (workspaceId, text) =>
      [...tasks().values()]
        .filter(
          (t) =>
            lists().get(t.listId)?.workspaceId === workspaceId &&
            t.status !== 'deleted' &&
            (JSON.stringify(t.metadata).includes(text) || JSON.stringify(t.labels).includes(text)),
        )
        .map((t) => ({ listId: t.listId, taskId: t.id, metadata: copy(t.metadata), labels: [...t.labels] })),
  };
}
