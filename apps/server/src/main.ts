// Entry point: starts the server from the environment (DATABASE_URL, PORT, HOST, AGENT_TASKS_ADMIN_KEY).
import { isDomainError } from '@agent-tasks/core';
import { startApp } from './app.ts';
import { databaseFileFrom } from './db/database-file.ts';

const databaseFile = databaseFileFrom(process.env.DATABASE_URL);
try {
  const app = await startApp({
    databaseFile,
    port: Number(process.env.PORT ?? 3000),
    host: process.env.HOST ?? '127.0.0.1',
    adminKey: process.env.AGENT_TASKS_ADMIN_KEY || undefined,
    publicUrl: process.env.AGENT_TASKS_PUBLIC_URL || undefined,
    delivery: {
      baseMs: Number(process.env.AGENT_TASKS_RETRY_BASE_MS) || undefined,
      maxMs: Number(process.env.AGENT_TASKS_RETRY_MAX_MS) || undefined,
      pollMs: Number(process.env.AGENT_TASKS_OUTBOX_POLL_MS) || undefined,
    },
  });
  if (app.firstRun?.generated) {
    console.log(`First run: created workspace ${app.firstRun.workspaceId} with an admin key (shown only now):`);
    console.log(`  AGENT_TASKS_ADMIN_KEY=${app.firstRun.adminKey}`);
  } else if (app.firstRun) {
    console.log(`First run: created workspace ${app.firstRun.workspaceId}; its admin key is AGENT_TASKS_ADMIN_KEY.`);
  }
  console.log(`agent-tasks listening on ${app.url} (database ${databaseFile})`);
  const stop = () => void app.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  console.error(isDomainError(error) ? error.message : error);
  process.exit(1);
}
