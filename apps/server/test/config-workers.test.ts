// How many processes `serve` runs without --workers: a worker per core (at most four) on SQLite, one on PostgreSQL
// (replicas there), and what --workers (or AGENT_TASKS_WORKERS) says otherwise.
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_WORKERS, loadConfig } from '../src/config.ts';

describe('workers by default', () => {
  it('on SQLite: one per core, at most four', () => {
    expect(DEFAULT_WORKERS).toBe(Math.max(1, Math.min(os.availableParallelism(), 4)));
    expect(loadConfig({ DATABASE_URL: 'file:/tmp/x.db' }).workers).toBe(DEFAULT_WORKERS);
    expect(loadConfig({ DATABASE_URL: 'file:/tmp/x.db' }, { AGENT_TASKS_WORKERS: '1' }).workers).toBe(1);
    expect(loadConfig({ DATABASE_URL: 'file:/tmp/x.db', AGENT_TASKS_WORKERS: '3' }).workers).toBe(3);
  });

  it('on PostgreSQL: one, and more is refused with its text', () => {
    expect(loadConfig({ DATABASE_URL: 'postgresql://u:p@localhost:5432/db' }).workers).toBe(1);
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://u:p@localhost:5432/db' }, { AGENT_TASKS_WORKERS: '2' })).toThrow(
      new ConfigError('Error: invalid configuration: --workers (AGENT_TASKS_WORKERS) must be 1 with a PostgreSQL DATABASE_URL (got "2").'),
    );
  });
});
