// The messages between the primary and its workers (node:cluster IPC): live-event interest and relay, revocations,
// the write lock's turns, where the writer worker listens, and the limits the workers share (credit lent from a pool,
// counts taken); and those on a worker's own socket to the writer: the
// writes handed to it and its answers (cluster/writer.ts).
import { type Actor, type LiveEvent, type RunViewSource, sourceOfView } from '@agent-tasks/core';
import { jsonWithKnown, lazyJson } from '../known-json.ts';

/** A mutation handed to the writer: authenticated and validated by the worker that took the request. */
export interface WriteCall {
  /** The calling worker's own number for the call (its answer carries it back on the same connection). */
  call: number;
  path: string;
  input: unknown;
  actor: Actor;
  requestId: string;
}

/**
 * The version of the lines between the workers and the writer: raised when their meaning changes (2: a run's view may
 * come as its source). A worker forked from newer code on disk, after an upgrade in place, may meet a writer of the
 * older code, or the other way round; the writer takes calls from workers of its own version only.
 */
export const WRITE_PROTOCOL = 2;

/** The first line of a worker's connection to the writer: the writer's secret, and the lines' version (none: 1). */
export interface WriteHello {
  hello: string;
  protocol?: number;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

export const isWriteHello = (value: unknown): value is WriteHello => isObject(value) && typeof value.hello === 'string';

/** A line read by the writer that has a call's shape (the worker that sent it validated the input). */
export const isWriteCall = (value: unknown): value is WriteCall =>
  isObject(value) &&
  typeof value.call === 'number' &&
  typeof value.path === 'string' &&
  typeof value.requestId === 'string' &&
  isObject(value.actor) &&
  typeof value.actor.workspaceId === 'string' &&
  typeof value.actor.keyId === 'string';

/** A line read by a worker that has an answer's shape. */
export const isWriteAnswer = (value: unknown): value is WriteAnswer =>
  isObject(value) &&
  typeof value.call === 'number' &&
  ((value.ok === true && (value.view === undefined || isViewSource(value.view))) || (value.ok === false && isObject(value.failure))) &&
  (value.revoked === undefined || Array.isArray(value.revoked));

/** What a mutation run by the writer threw, as it crosses processes. */
export type WriteFailure =
  | { kind: 'domain'; code: string; message: string; details?: Record<string, unknown>; reason?: 'busy' | 'unreachable' }
  | { kind: 'trpc'; code: string; message: string }
  | { kind: 'fault'; message: string; stack?: string };

/**
 * The writer's answer to one call: its result (not yet output-validated) or what it threw; and the revocations the
 * writer made while it ran (each a list of token hashes, or every token: null), which the calling worker applies
 * before it answers (the other workers hear of them through the primary).
 */
export type WriteAnswer = { call: number; revoked?: (string[] | null)[] } & (
  { ok: true; data: unknown } | { ok: true; view: RunViewSource } | { ok: false; failure: WriteFailure }
);

/** What the writer answers for a result: a run's view as what the worker needs to make it from the store (the run at a
 * version, a time: `viewFromSource`), not the view's 28 KB; anything else as it is. */
export function resultOf(data: unknown): { ok: true; data: unknown } | { ok: true; view: RunViewSource } {
  const view = sourceOfView(data);
  return view ? { ok: true, view } : { ok: true, data };
}

const isViewSource = (value: unknown): value is RunViewSource =>
  isObject(value) &&
  typeof value.workspaceId === 'string' &&
  typeof value.runId === 'string' &&
  typeof value.version === 'number' &&
  typeof value.at === 'number';

/** Where an answer's data starts in its line (`answerLine`): after its call, revocations (hex hashes), `then` and this. */
const DATA_AT = ',"ok":true,"data":';

/**
 * Whether `data`'s text may have a key `then` on top (what `await` asks for: without one, a worker's stand-in for it
 * answers without a parse): one of its own, or whatever its `toJSON` makes.
 */
const hasThen = (data: unknown) =>
  typeof data === 'object' && data !== null && (Object.hasOwn(data, 'then') || typeof (data as { toJSON?: unknown }).toJSON === 'function');

/**
 * An answer as its line: a result's data last, its text made with the known texts it holds (a run's checklist:
 * known-json.ts), so that the worker hands on that text as it came (`parseAnswerLine`).
 */
export function answerLine(answer: WriteAnswer): string {
  if (!answer.ok || 'view' in answer) return JSON.stringify(answer);
  const revoked = answer.revoked === undefined ? '' : `,"revoked":${JSON.stringify(answer.revoked)}`;
  // Data that JSON leaves out (undefined) is left out here too.
  if (answer.data === undefined) return `{"call":${answer.call}${revoked},"ok":true}`;
  const then = hasThen(answer.data) ? ',"then":true' : '';
  return `{"call":${answer.call}${revoked}${then}${DATA_AT}${jsonWithKnown(answer.data)}}`;
}

/**
 * A line made by `answerLine`, read: its head parsed, its data an object or array parsed only if something reads it
 * (`lazyJson`), as a worker hands it on as its text (a run's view: 28 KB not parsed for nothing). Other lines: JSON.parse.
 */
export function parseAnswerLine(line: string): unknown {
  const at = line.indexOf(DATA_AT);
  const first = line[at + DATA_AT.length];
  // A result's head holds no object (its call, revocations, `then`): the same words inside a failure's details are not
  // its data.
  if (at === -1 || line.lastIndexOf('{', at) !== 0 || (first !== '{' && first !== '[') || !line.endsWith('}')) return JSON.parse(line);
  const { then, ...head } = JSON.parse(`${line.slice(0, at)},"ok":true}`) as Record<string, unknown>;
  return { ...head, data: lazyJson(line.slice(at + DATA_AT.length, -1), then === true) };
}

/** Worker → primary. */
export type ToPrimary =
  /** This worker hears live-event messages now (announcements wait for the workers that do). */
  | { at: 'live:hello' }
  | { at: 'live:sub'; topic: string; ack: number }
  | { at: 'live:unsub'; topic: string }
  | { at: 'live:event'; event: LiveEvent; to: number[] }
  | { at: 'live:interest-ack'; ack: number }
  | { at: 'auth:revoked'; tokenHashes?: string[] }
  | { at: 'lock:want'; ticket: number }
  | { at: 'lock:cancel'; ticket: number }
  | { at: 'lock:release' }
  /** Where does the writer take calls? (A worker's question once it listens for the answer: told at once if known.) */
  | { at: 'write:where' }
  /** The writer takes calls at `address`, from connections that first send `secret` (once it listens there). */
  | { at: 'write:ready'; address: string; secret: string }
  /** This worker hears the limits' messages now (it is asked back from then on). */
  | { at: 'credit:hello' }
  /** Lend `amount` more of a pool (and up to `more` besides, if free): for a request in line (`wait`), or now or never. */
  | { at: 'credit:want'; pool: string; amount: number; more?: number; ask: number; wait: boolean }
  /** The request in line that asked no longer needs it (answered `ok: false` unless already lent). */
  | { at: 'credit:cancel'; pool: string; ask: number }
  /** Credit given back: what was spare (in answer to a round of asking back, with its number). */
  | { at: 'credit:return'; pool: string; amount: number; round?: number }
  /** Add one to each key's count unless one would pass its cap. */
  | { at: 'count:take'; ask: number; keys: string[]; caps: number[] }
  | { at: 'count:give'; keys: string[] };

/** Primary → worker. */
export type ToWorker =
  | { at: 'live:event'; event: LiveEvent }
  /** The other workers listening on `topic` (the receiver forwards its events on it to them). */
  | { at: 'live:interest'; topic: string; workers: number[]; ack: number }
  | { at: 'live:subscribed'; ack: number }
  | { at: 'auth:forget'; tokenHashes?: string[] }
  | { at: 'lock:granted'; ticket: number }
  /** Another worker waits for the write lock's turn (sent to the worker holding it). */
  | { at: 'lock:wanted' }
  /** Where the writer takes calls now, and the secret a connection sends first (null: no writer is up). */
  | { at: 'write:writer'; writer: { address: string; secret: string } | null }
  /** The answer to a `credit:want`: `amount` lent, or (one that cannot wait, or cancelled) refused; `ask` 0: a
   * worker's part of the pool, lent when it starts. */
  | { at: 'credit:grant'; pool: string; ask: number; ok: boolean; amount: number }
  /** Someone waits for a pool's units: give back what is spare (answering the round), and until calm what is freed
   * past `share` (the pool over the workers) at once and the rest once the worker's own line took what it can. */
  | { at: 'credit:reclaim'; pool: string; round: number; share: number }
  | { at: 'credit:calm'; pool: string }
  /** The answer to a `count:take`: -1, taken; else the index of the key whose cap it would pass, and its count. */
  | { at: 'count:answer'; ask: number; refused: number; count: number };

const KINDS = new Set([
  'live:hello',
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
  'write:where',
  'write:ready',
  'write:writer',
  'credit:hello',
  'credit:want',
  'credit:cancel',
  'credit:return',
  'credit:grant',
  'credit:reclaim',
  'credit:calm',
  'count:take',
  'count:give',
  'count:answer',
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
