// The server's configuration: one zod schema for every environment variable and `serve` flag, with clear refusals.
import os from 'node:os';
import { z } from 'zod';
import { isAllowListEntry } from './adapters/receiver-address.ts';
import { databaseFileFrom } from './db/database-file.ts';
import { isPostgresUrl } from './db/postgres-schema.ts';

const integer = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be a whole number from ${min} to ${max}`);

const optionalText = z
  .string()
  .transform((s) => s.trim() || undefined)
  .optional();

const httpUrl = z
  .string()
  .trim()
  .refine((s) => {
    try {
      return ['http:', 'https:'].includes(new URL(s).protocol);
    } catch {
      return false;
    }
  }, 'must be an absolute http:// or https:// URL')
  .transform((s) => s.replace(/\/+$/, ''));

const origins = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  )
  .refine((list) => list.every((o) => o === '*' || /^https?:\/\/[^/\s]+$/.test(o)), {
    message: 'must be a comma-separated list of origins such as https://dash.example.com (scheme and host, no path), or *',
  });

const allowList = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean),
  )
  .refine((list) => list.every(isAllowListEntry), {
    message: 'must be a comma-separated list of IP addresses or CIDR ranges such as 127.0.0.1,10.0.0.0/8,::1',
  });

/** Every setting, by its environment variable; `serve` flags map onto the same names. */
export const configSchema = z.object({
  DATABASE_URL: z
    .string()
    .trim()
    .refine(
      (s) => s === '' || s.startsWith('file:') || !s.includes('://') || isPostgresUrl(s),
      'must be file:<path> (SQLite), a file path, or postgresql://… (PostgreSQL)',
    )
    .optional(),
  PORT: integer(0, 65535).default(3000),
  HOST: z.string().trim().min(1, 'must be a host name or address').default('127.0.0.1'),
  AGENT_TASKS_ADMIN_KEY: optionalText,
  AGENT_TASKS_PUBLIC_URL: httpUrl.optional(),
  AGENT_TASKS_CORS_ORIGINS: origins.default([]),
  AGENT_TASKS_RETRY_BASE_MS: integer(1, 3_600_000).default(1_000),
  AGENT_TASKS_RETRY_MAX_MS: integer(1, 86_400_000).default(60_000),
  AGENT_TASKS_OUTBOX_POLL_MS: integer(10, 600_000).default(250),
  AGENT_TASKS_DELIVERY_MAX_AGE_MS: integer(1_000, 2_592_000_000).default(86_400_000),
  AGENT_TASKS_DELIVERY_LANES: integer(1, 1_000).default(16),
  AGENT_TASKS_DELIVERY_LANES_PER_WORKSPACE: integer(1, 1_000).default(4),
  AGENT_TASKS_WEBHOOK_CONNECT_TIMEOUT_MS: integer(100, 600_000).default(3_000),
  AGENT_TASKS_WEBHOOK_TIMEOUT_MS: integer(100, 600_000).default(10_000),
  AGENT_TASKS_WEBHOOK_MAX_RESPONSE_BYTES: integer(0, 10_485_760).default(16_384),
  AGENT_TASKS_CHANNEL_ALLOWLIST: allowList.default([]),
  AGENT_TASKS_SHUTDOWN_TIMEOUT_MS: integer(0, 600_000).default(10_000),
  AGENT_TASKS_MAX_BATCH: integer(10, 1_000).default(50),
  AGENT_TASKS_MAX_CONCURRENT: integer(1, 100_000).default(64),
  AGENT_TASKS_MAX_QUEUE_MS: integer(1, 600_000).default(5_000),
  AGENT_TASKS_MAX_QUEUE: integer(0, 1_000_000).default(2_000),
  AGENT_TASKS_BUSY_TIMEOUT_MS: integer(0, 600_000).default(5_000),
  AGENT_TASKS_IMPORT_LEASE_MS: integer(1_000, 3_600_000).default(10_000),
  AGENT_TASKS_IMPORT_WAIT_MS: integer(0, 600_000).default(5_000),
  AGENT_TASKS_WORKERS: integer(1, 256).optional(),
  AGENT_TASKS_MCP_SESSIONS_PER_KEY: integer(1, 10_000).default(20),
  AGENT_TASKS_MCP_SESSIONS_PER_WORKSPACE: integer(1, 100_000).default(100),
  AGENT_TASKS_MCP_SESSIONS_MAX: integer(1, 100_000).default(500),
  AGENT_TASKS_STREAMS_PER_KEY: integer(1, 100_000).default(100),
  AGENT_TASKS_STREAMS_PER_WORKSPACE: integer(1, 1_000_000).default(500),
  AGENT_TASKS_STREAMS_MAX: integer(1, 1_000_000).default(2_000),
  AGENT_TASKS_MCP_IDLE_MS: integer(1_000, 86_400_000).default(600_000),
  AGENT_TASKS_HEADERS_TIMEOUT_MS: integer(1_000, 600_000).default(10_000),
  AGENT_TASKS_REQUEST_TIMEOUT_MS: integer(1_000, 3_600_000).default(30_000),
  AGENT_TASKS_KEEP_ALIVE_TIMEOUT_MS: integer(100, 600_000).default(5_000),
  AGENT_TASKS_AUTH_FAILURES_PER_ADDRESS: integer(1, 1_000_000).default(30),
  AGENT_TASKS_AUTH_FAILURES_PER_KEY_PREFIX: integer(1, 1_000_000).default(10),
  AGENT_TASKS_AUTH_FAILURE_WINDOW_S: integer(1, 86_400).default(60),
  AGENT_TASKS_AUTH_FAILURES_PER_SECOND: integer(1, 1_000_000).default(100),
  AGENT_TASKS_AUTH_IPV4_PREFIX: integer(1, 32).default(32),
  AGENT_TASKS_AUTH_IPV6_PREFIX: integer(1, 128).default(64),
  AGENT_TASKS_TRUSTED_PROXIES: allowList.default([]),
  AGENT_TASKS_UNAUTHENTICATED_MAX_CONCURRENT: integer(1, 100_000).default(8),
  AGENT_TASKS_UNAUTHENTICATED_MAX_BODIES: integer(1, 100_000).default(16),
  AGENT_TASKS_BODY_MIN_BYTES_PER_S: integer(1, 1_000_000_000).default(1_024),
  AGENT_TASKS_BODY_GRACE_MS: integer(100, 600_000).default(3_000),
  AGENT_TASKS_BODY_BUFFER_MAX_BYTES: integer(16_777_216, 68_719_476_736).default(268_435_456),
  AGENT_TASKS_STREAM_TICKET_TTL_MS: integer(1_000, 600_000).default(30_000),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty'], { error: 'must be json or pretty' }).optional(),
});

export type ConfigInput = z.input<typeof configSchema>;

export interface Config {
  /** The SQLite file; '' when DATABASE_URL names PostgreSQL. */
  databaseFile: string;
  /** DATABASE_URL when it is postgresql://… (or postgres://…). */
  postgresUrl?: string | undefined;
  port: number;
  host: string;
  adminKey: string | undefined;
  publicUrl: string | undefined;
  corsOrigins: string[];
  delivery: { baseMs: number; maxMs: number; pollMs: number; maxAgeMs: number; lanes: number; workspaceLanes: number };
  webhooks: { connectTimeoutMs: number; timeoutMs: number; maxResponseBytes: number; allowList: string[] };
  shutdownTimeoutMs: number;
  /** Most calls in one tRPC batch request. */
  maxBatch: number;
  /** Load shedding: requests at once, the longest wait in line, the longest line. */
  maxConcurrent: number;
  maxQueueMs: number;
  maxQueue: number;
  /** How long a write waits for another writer's lock before answering 503. */
  busyTimeoutMs: number;
  /** Task imports: the staging list's lease, and how long an import waits for another before 409. */
  imports: { leaseMs: number; waitMs: number };
  /** Server processes sharing the port and the database file (1: a single process). */
  workers: number;
  /** Open MCP sessions: per key, per workspace, in all, and how long an idle one stays. */
  mcp: { perKey: number; perWorkspace: number; total: number; idleMs: number };
  /** Open live streams: per key, per workspace, in all (every worker's together). */
  streams: { perKey: number; perWorkspace: number; total: number };
  /** Socket timeouts: headers, the whole request, idle keep-alive. */
  sockets: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number };
  /** The brake on failed authentications: per client address group and per token prefix in a window of seconds, in all
   * per second; the leading bits of an IPv4 / IPv6 address that name its group. */
  authFailures: { perAddress: number; perKeyPrefix: number; windowSeconds: number; perSecond: number; ipv4Bits: number; ipv6Bits: number };
  /** Proxies whose X-Forwarded-For names the client (addresses or CIDR ranges); none: the socket's peer is the client. */
  trustedProxies: string[];
  /** Requests not yet authenticated: worked on at once (their own line), and whose bodies are read at once. */
  unauthenticated: { maxConcurrent: number; maxBodies: number };
  /** Request bodies arrive at this many bytes per second at least, after a grace period (408 and closed otherwise);
   * the bytes of the bodies being read at once, all requests together (503 past it). */
  bodies: { minBytesPerSecond: number; graceMs: number; maxBufferedBytes: number };
  /** How long a stream ticket stays valid. */
  streamTicketTtlMs: number;
  log: { level: string; format: 'json' | 'pretty' };
}

/**
 * Processes `serve` runs on SQLite without --workers: one per core, at most four. One of them writes SQLite and the
 * others hand it their mutations over its socket; two measure faster than one on 2 cores (docs/performance.md), and
 * the operator's limits (admission, bodies, live streams) are kept by the primary for all of them. One process on a
 * single core, and on PostgreSQL (run replicas there). Above four, unmeasured: the one writer is the ceiling.
 */
export const DEFAULT_WORKERS = Math.max(1, Math.min(os.availableParallelism(), 4));

/** A refused configuration: the message names the variable (or flag) and what it accepts. */
export class ConfigError extends Error {}

/** Flag names of `serve` for each variable they set, so a refusal names what the operator typed. */
export const flagOf: Partial<Record<keyof ConfigInput, string>> = {
  PORT: '--port',
  HOST: '--host',
  DATABASE_URL: '--database',
  AGENT_TASKS_PUBLIC_URL: '--public-url',
  LOG_LEVEL: '--log-level',
  AGENT_TASKS_WORKERS: '--workers',
};

const quote = (value: unknown) => JSON.stringify(String(value).slice(0, 60));

/** Reads the configuration from the environment, with flags (already mapped to variable names) taking precedence. */
export function loadConfig(env: NodeJS.ProcessEnv, flags: Partial<Record<keyof ConfigInput, string>> = {}): Config {
  const known = Object.keys(configSchema.shape) as (keyof ConfigInput)[];
  const raw: Record<string, string> = {};
  for (const name of known) {
    const value = flags[name] ?? env[name];
    if (value !== undefined && !(value === '' && flags[name] === undefined)) raw[name] = value;
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0]) as keyof ConfigInput;
      const source = flags[name] !== undefined ? `${flagOf[name]} (${name})` : name;
      return `Error: invalid configuration: ${source} ${issue.message} (got ${quote(raw[name])}).`;
    });
    throw new ConfigError(lines.join('\n'));
  }
  const c = parsed.data;
  const postgres = isPostgresUrl(c.DATABASE_URL);
  // Several workers: one writes SQLite, the others hand it their mutations (cluster/writer.ts); not for PostgreSQL yet.
  if (postgres && (c.AGENT_TASKS_WORKERS ?? 1) > 1) {
    const source = flags.AGENT_TASKS_WORKERS !== undefined ? '--workers (AGENT_TASKS_WORKERS)' : 'AGENT_TASKS_WORKERS';
    throw new ConfigError(
      `Error: invalid configuration: ${source} must be 1 with a PostgreSQL DATABASE_URL (got ${quote(raw.AGENT_TASKS_WORKERS)}).`,
    );
  }
  return {
    databaseFile: postgres ? '' : databaseFileFrom(c.DATABASE_URL || undefined),
    postgresUrl: postgres ? c.DATABASE_URL : undefined,
    port: c.PORT,
    host: c.HOST,
    adminKey: c.AGENT_TASKS_ADMIN_KEY,
    publicUrl: c.AGENT_TASKS_PUBLIC_URL,
    corsOrigins: c.AGENT_TASKS_CORS_ORIGINS,
    delivery: {
      baseMs: c.AGENT_TASKS_RETRY_BASE_MS,
      maxMs: c.AGENT_TASKS_RETRY_MAX_MS,
      pollMs: c.AGENT_TASKS_OUTBOX_POLL_MS,
      maxAgeMs: c.AGENT_TASKS_DELIVERY_MAX_AGE_MS,
      lanes: c.AGENT_TASKS_DELIVERY_LANES,
      workspaceLanes: c.AGENT_TASKS_DELIVERY_LANES_PER_WORKSPACE,
    },
    webhooks: {
      connectTimeoutMs: c.AGENT_TASKS_WEBHOOK_CONNECT_TIMEOUT_MS,
      timeoutMs: c.AGENT_TASKS_WEBHOOK_TIMEOUT_MS,
      maxResponseBytes: c.AGENT_TASKS_WEBHOOK_MAX_RESPONSE_BYTES,
      allowList: c.AGENT_TASKS_CHANNEL_ALLOWLIST,
    },
    shutdownTimeoutMs: c.AGENT_TASKS_SHUTDOWN_TIMEOUT_MS,
    maxBatch: c.AGENT_TASKS_MAX_BATCH,
    maxConcurrent: c.AGENT_TASKS_MAX_CONCURRENT,
    maxQueueMs: c.AGENT_TASKS_MAX_QUEUE_MS,
    maxQueue: c.AGENT_TASKS_MAX_QUEUE,
    busyTimeoutMs: c.AGENT_TASKS_BUSY_TIMEOUT_MS,
    imports: { leaseMs: c.AGENT_TASKS_IMPORT_LEASE_MS, waitMs: c.AGENT_TASKS_IMPORT_WAIT_MS },
    workers: c.AGENT_TASKS_WORKERS ?? (postgres ? 1 : DEFAULT_WORKERS),
    mcp: {
      perKey: c.AGENT_TASKS_MCP_SESSIONS_PER_KEY,
      perWorkspace: c.AGENT_TASKS_MCP_SESSIONS_PER_WORKSPACE,
      total: c.AGENT_TASKS_MCP_SESSIONS_MAX,
      idleMs: c.AGENT_TASKS_MCP_IDLE_MS,
    },
    streams: {
      perKey: c.AGENT_TASKS_STREAMS_PER_KEY,
      perWorkspace: c.AGENT_TASKS_STREAMS_PER_WORKSPACE,
      total: c.AGENT_TASKS_STREAMS_MAX,
    },
    sockets: {
      headersTimeoutMs: c.AGENT_TASKS_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: c.AGENT_TASKS_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: c.AGENT_TASKS_KEEP_ALIVE_TIMEOUT_MS,
    },
    authFailures: {
      perAddress: c.AGENT_TASKS_AUTH_FAILURES_PER_ADDRESS,
      perKeyPrefix: c.AGENT_TASKS_AUTH_FAILURES_PER_KEY_PREFIX,
      windowSeconds: c.AGENT_TASKS_AUTH_FAILURE_WINDOW_S,
      perSecond: c.AGENT_TASKS_AUTH_FAILURES_PER_SECOND,
      ipv4Bits: c.AGENT_TASKS_AUTH_IPV4_PREFIX,
      ipv6Bits: c.AGENT_TASKS_AUTH_IPV6_PREFIX,
    },
    trustedProxies: c.AGENT_TASKS_TRUSTED_PROXIES,
    unauthenticated: {
      maxConcurrent: c.AGENT_TASKS_UNAUTHENTICATED_MAX_CONCURRENT,
      maxBodies: c.AGENT_TASKS_UNAUTHENTICATED_MAX_BODIES,
    },
    bodies: {
      minBytesPerSecond: c.AGENT_TASKS_BODY_MIN_BYTES_PER_S,
      graceMs: c.AGENT_TASKS_BODY_GRACE_MS,
      maxBufferedBytes: c.AGENT_TASKS_BODY_BUFFER_MAX_BYTES,
    },
    streamTicketTtlMs: c.AGENT_TASKS_STREAM_TICKET_TTL_MS,
    log: { level: c.LOG_LEVEL, format: c.LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json') },
  };
}
