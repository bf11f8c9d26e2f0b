// Runs the app in the test's own process (startApp on port 0, real HTTP and SSE), configured from the same
// environment variables the command reads, with its log lines captured in memory for output(); optionally on a manual
// clock, its notifications then delivered only when the test calls deliver().
import { type App, createLogger, loadConfig, startApp } from '@agent-tasks/server';
import type { ManualClock } from './manual-clock.ts';
import type { RunningServer } from './server.ts';

/** Settings only a separate process can have: they are refused here rather than silently ignored. */
const needsProcess = ['NODE_OPTIONS'];

export async function startInProcess(
  databaseFile: string,
  adminKey: string | null,
  extraEnv: Record<string, string> = {},
  clock?: ManualClock,
  /** A postgresql://… database to run on instead of the SQLite file. */
  postgresUrl?: string,
): Promise<RunningServer> {
  const blocked = needsProcess.find((name) => extraEnv[name] !== undefined);
  if (blocked) throw new Error(`${blocked} needs a separate process: start the server with { process: true }`);
  // The same variables the child process would get (see spawnMain), minus the inherited environment.
  const env: NodeJS.ProcessEnv = {
    AGENT_TASKS_WORKERS: '1',
    AGENT_TASKS_CHANNEL_ALLOWLIST: '127.0.0.1',
    LOG_FORMAT: 'json',
    ...extraEnv,
    DATABASE_URL: postgresUrl ?? `file:${databaseFile}`,
    PORT: extraEnv.PORT ?? '0',
    HOST: '127.0.0.1',
    ...(adminKey ? { AGENT_TASKS_ADMIN_KEY: adminKey } : {}),
  };
  const config = loadConfig(env);
  if (config.workers > 1) throw new Error('--workers needs a separate process: start the server with { process: true }');
  let output = '';
  const sink = { write: (line: string) => void (output += line) };
  const boot = async () => {
    try {
      const time = clock ? { clock, delivery: { ...config.delivery, pollMs: null } } : {};
      return await startApp({ ...config, ...time, log: createLogger(config.log, sink) });
    } catch (error) {
      // The command prints a refusal's text and exits; tests of a refused start read the same text from the error.
      if (error instanceof Error) throw new Error(`server did not start:\n${error.message}\n${output}`, { cause: error });
      throw error;
    }
  };
  let app: App | null = await boot();
  const server: RunningServer = {
    url: app.url,
    adminKey: adminKey ?? '',
    databaseFile,
    databaseUrl: postgresUrl ?? `file:${databaseFile}`,
    output: () => output,
    ...(clock ? { clock } : {}),
    deliver: async () => {
      if (!app) throw new Error('the server is stopped');
      await app.deliver();
    },
    expireLeases: async () => {
      if (!app) throw new Error('the server is stopped');
      return app.expireLeases();
    },
    process: () => {
      throw new Error('this server runs in process: start it with { process: true } to reach its process');
    },
    async stop() {
      const closing = app;
      app = null;
      await closing?.close();
      return closing ? 0 : null;
    },
    async restart() {
      await server.stop();
      app = await boot();
      server.url = app.url;
    },
  };
  return server;
}
