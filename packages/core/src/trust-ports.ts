// The store port of task trust: list settings, evidence rows, claim leases, requirements and capabilities, GitHub.
import type { EvidenceInput, EvidenceProvenance } from '@agent-tasks/schema';
import type { TaskListRecord } from './records.ts';

export interface TaskListSettingsRecord {
  requireEvidence: boolean;
  requireVerified: boolean;
  leaseMs: number | null;
}

export interface EvidenceRecord {
  listId: string;
  taskId: string;
  provenance: EvidenceProvenance;
  success: boolean;
  /** What was sent (its `kind` and that kind's fields). */
  body: EvidenceInput;
  at: Date;
}

export interface LeaseRecord {
  listId: string;
  taskId: string;
  owner: string;
  leaseMs: number;
  expiresAt: Date;
}

/** What a task's trust fields are made of. */
export interface TaskTrustRecords {
  evidence: EvidenceRecord[];
  leases: LeaseRecord[];
  requirements: { taskId: string; capability: string }[];
}

export interface TrustRepository {
  /** A list by id (a lease's, or a check's task's). */
  listOf(listId: string): Promise<TaskListRecord | null>;
  /** The list's settings; all off for a list that has none stored. */
  settings(listId: string): Promise<TaskListSettingsRecord>;
  saveSettings(listId: string, settings: TaskListSettingsRecord): Promise<void>;
  /** Evidence of these tasks, oldest first. */
  evidenceOf(listId: string, taskIds: readonly string[]): Promise<EvidenceRecord[]>;
  addEvidence(rows: readonly EvidenceRecord[]): Promise<void>;
  leasesOf(listId: string, taskIds: readonly string[]): Promise<LeaseRecord[]>;
  putLease(lease: LeaseRecord): Promise<void>;
  dropLease(listId: string, taskId: string): Promise<void>;
  /** Leases that ran out at `now` (any list, any workspace), soonest first. */
  dueLeases(now: Date, limit: number): Promise<LeaseRecord[]>;
  /** When the next lease runs out, or null. */
  nextLeaseExpiry(): Promise<Date | null>;
  requirementsOf(listId: string, taskIds: readonly string[]): Promise<{ taskId: string; capability: string }[]>;
  /** The evidence (oldest first), leases and requirements (by name) of these tasks, in one read: what TaskGet shows. */
  trustOf(listId: string, taskIds: readonly string[]): Promise<TaskTrustRecords>;
  setRequirements(listId: string, taskId: string, capabilities: readonly string[]): Promise<void>;
  /** The oldest task ready for `agent` (pending, unblocked, unowned or its own) whose requirements are all in `capabilities`. */
  firstReadyFor(listId: string, agent: string, capabilities: readonly string[]): Promise<string | null>;
  capabilitiesOf(sessionId: string): Promise<string[]>;
  setCapabilities(sessionId: string, capabilities: readonly string[]): Promise<void>;
  githubSecret(workspaceId: string): Promise<string | null>;
  setGithubSecret(workspaceId: string, secret: string, at: Date): Promise<void>;
  /** Records a delivery id once: false when it was recorded before (a replay). */
  recordDelivery(workspaceId: string, deliveryId: string, event: string, at: Date): Promise<boolean>;
  /** Tasks of the workspace's lists (not deleted) whose metadata may name this text (a cheap filter; callers check). */
  tasksMentioning(
    workspaceId: string,
    text: string,
  ): Promise<{ listId: string; taskId: string; metadata: Record<string, unknown>; labels: string[] }[]>;
}
