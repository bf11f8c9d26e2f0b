// `agent-tasks serve`: starts the server from the configuration, prints the first-run key once, stops gracefully.
import { isDomainError } from '@agent-tasks/core';
import { startApp } from '../app.ts';
import { type ConfigInput, ConfigError, loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';

export interface ServeFlags {
  port?: string;
  host?: string;
  database?: string;
  publicUrl?: string;
  logLevel?: string;
}

export async function serve(flags: ServeFlags): Promise<void> {
  const given: Partial<Record<keyof ConfigInput, string>> = {
    PORT: flags.port,
    HOST: flags.host,
    DATABASE_URL: flags.database,
    AGENT_TASKS_PUBLIC_URL: flags.publicUrl,
    LOG_LEVEL: flags.logLevel,
  };
  let config;
  try {
    config = loadConfig(process.env, Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  const log = createLogger(config.log);
  let app;
  try {
    app = await startApp({ ...config, log });
  } catch (error) {
    if (isDomainError(error)) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    log.fatal({ err: error }, 'the server could not start');
    process.exit(1);
  }
  // The first-run key is a one-time banner on stdout, deliberately not a log line (logs are often shipped elsewhere).
  if (app.firstRun?.generated) {
    process.stdout.write(`First run: created workspace ${app.firstRun.workspaceId} with an admin key (shown only now):\n`);
    process.stdout.write(`  AGENT_TASKS_ADMIN_KEY=${app.firstRun.adminKey}\n`);
  } else if (app.firstRun) {
    process.stdout.write(`First run: created workspace ${app.firstRun.workspaceId}; its admin key is AGENT_TASKS_ADMIN_KEY.\n`);
  }
  // performance.now() counts from the process's start: the figure covers module loading, migrations and listening.
  const readyMs = Math.round(performance.now());
  log.info({ url: app.url, database: config.databaseFile, readyMs }, `agent-tasks listening on ${app.url} (ready in ${readyMs} ms)`);

  const stop = (signal: string) => {
    log.info({ signal }, 'shutting down');
    app.close().then(
      () => {
        log.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
