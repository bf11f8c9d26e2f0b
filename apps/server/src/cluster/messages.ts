// The messages between the primary and its workers (node:cluster IPC): live-event interest and relay, revocations.
import type { LiveEvent } from '@agent-tasks/core';

/** Worker → primary. */
export type ToPrimary =
  | { at: 'live:sub'; topic: string; ack: number }
  | { at: 'live:unsub'; topic: string }
  | { at: 'live:event'; event: LiveEvent; to: number[] }
  | { at: 'live:interest-ack'; ack: number }
  | { at: 'auth:revoked'; tokenHashes?: string[] }
  | { at: 'lock:want'; ticket: number }
  | { at: 'lock:cancel'; ticket: number }
  | { at: 'lock:release' };

/** Primary → worker. */
export type ToWorker =
  | { at: 'live:event'; event: LiveEvent }
  /** The other workers listening on `topic` (the receiver forwards its events on it to them). */
  | { at: 'live:interest'; topic: string; workers: number[]; ack: number }
  | { at: 'live:subscribed'; ack: number }
  | { at: 'auth:forget'; tokenHashes?: string[] }
  | { at: 'lock:granted'; ticket: number }
  /** Another worker waits for the write lock's turn (sent to the worker holding it). */
  | { at: 'lock:wanted' };

const KINDS = new Set([
  'live:sub',
  'live:unsub',
  'live:event',
  'live:interest-ack',
  'auth:revoked',
  'live:interest',
  'live:subscribed',
  'auth:forget',
  'lock:want',
  'lock:cancel',
  'lock:release',
  'lock:granted',
  'lock:wanted',
]);

/** Whether an IPC message is one of ours (node:cluster also carries its own). */
export const isOurs = (message: unknown): message is { at: string } =>
  typeof message === 'object' && message !== null && KINDS.has((message as { at?: unknown }).at as string);

/** One end of the IPC channel, as the worker sees it. */
export interface PrimaryLink {
  id: number;
  send(message: ToPrimary): void;
  onMessage(handler: (message: ToWorker) => void): void;
}
