// The server's configuration: one zod schema for every environment variable and `serve` flag, with clear refusals.
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { databaseFileFrom } from './db/database-file.ts';

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
  .transform((s) => s.split(',').map((o) => o.trim()).filter(Boolean))
  .refine((list) => list.every((o) => o === '*' || /^https?:\/\/[^/\s]+$/.test(o)), {
    message: 'must be a comma-separated list of origins such as https://dash.example.com (scheme and host, no path), or *',
  });

/** Every setting, by its environment variable; `serve` flags map onto the same names. */
export const configSchema = z.object({
  DATABASE_URL: z
    .string()
    .trim()
    .refine((s) => s === '' || s.startsWith('file:') || !s.includes('://'), 'must be file:<path> (SQLite) or a file path')
    .optional(),
  PORT: integer(0, 65535).default(3000),
  HOST: z.string().trim().min(1, 'must be a host name or address').default('127.0.0.1'),
  AGENT_TASKS_ADMIN_KEY: optionalText,
  AGENT_TASKS_PUBLIC_URL: httpUrl.optional(),
  AGENT_TASKS_CORS_ORIGINS: origins.default([]),
  AGENT_TASKS_RETRY_BASE_MS: integer(1, 3_600_000).default(1_000),
  AGENT_TASKS_RETRY_MAX_MS: integer(1, 86_400_000).default(60_000),
  AGENT_TASKS_OUTBOX_POLL_MS: integer(10, 600_000).default(250),
  AGENT_TASKS_SHUTDOWN_TIMEOUT_MS: integer(0, 600_000).default(10_000),
  AGENT_TASKS_BUSY_TIMEOUT_MS: integer(0, 600_000).default(5_000),
  AGENT_TASKS_WORKERS: integer(1, 256).optional(),
  AGENT_TASKS_MAX_CONCURRENT: integer(1, 100_000).default(64),
  AGENT_TASKS_MAX_QUEUE_MS: integer(1, 600_000).default(5_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    error: 'must be one of fatal, error, warn, info, debug, trace, silent',
  }).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty'], { error: 'must be json or pretty' }).optional(),
});

export type ConfigInput = z.input<typeof configSchema>;

export interface Config {
  databaseFile: string;
  port: number;
  host: string;
  adminKey: string | undefined;
  publicUrl: string | undefined;
  corsOrigins: string[];
  delivery: { baseMs: number; maxMs: number; pollMs: number };
  shutdownTimeoutMs: number;
  busyTimeoutMs: number;
  /** Server processes sharing the port and the database file (1: a single process). */
  workers: number;
  maxConcurrent: number;
  maxQueueMs: number;
  log: { level: string; format: 'json' | 'pretty' };
}

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
  return {
    databaseFile: databaseFileFrom(c.DATABASE_URL || undefined),
    port: c.PORT,
    host: c.HOST,
    adminKey: c.AGENT_TASKS_ADMIN_KEY,
    publicUrl: c.AGENT_TASKS_PUBLIC_URL,
    corsOrigins: c.AGENT_TASKS_CORS_ORIGINS,
    delivery: { baseMs: c.AGENT_TASKS_RETRY_BASE_MS, maxMs: c.AGENT_TASKS_RETRY_MAX_MS, pollMs: c.AGENT_TASKS_OUTBOX_POLL_MS },
    shutdownTimeoutMs: c.AGENT_TASKS_SHUTDOWN_TIMEOUT_MS,
    busyTimeoutMs: c.AGENT_TASKS_BUSY_TIMEOUT_MS,
    workers: c.AGENT_TASKS_WORKERS ?? availableParallelism(),
    maxConcurrent: c.AGENT_TASKS_MAX_CONCURRENT,
    maxQueueMs: c.AGENT_TASKS_MAX_QUEUE_MS,
    log: { level: c.LOG_LEVEL, format: c.LOG_FORMAT ?? (process.stdout.isTTY ? 'pretty' : 'json') },
  };
}
