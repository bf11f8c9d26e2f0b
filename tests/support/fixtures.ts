// Shared test fixtures: clients, exact-refusal helpers, row counts (support/database.ts), todo lists, checklist tasks, run starts.
import { createClient, openSessionClient, refusalOf, type AgentTasksClient } from '@agent-tasks/sdk';
import type { ChecklistEntry } from '@agent-tasks/schema';
import { expect } from 'vitest';
import type { RunningServer } from './server.ts';

export function adminClient(server: RunningServer) {
  return createClient({ url: server.url, token: server.adminKey });
}

export async function keyClient(server: RunningServer, role: 'admin' | 'agent' | 'member' | 'viewer') {
  const { token } = await adminClient(server).keys.create({ name: `${role} key`, role });
  return createClient({ url: server.url, token });
}

export async function sessionClient(server: RunningServer, title?: string) {
  const agent = await keyClient(server, 'agent');
  return openSessionClient(agent, title ? { title } : {});
}

/** A fresh workspace on `server`: its admin, an agent key, a viewer key and an agent session, each as a client. */
export async function newWorkspace(server: RunningServer, name: string) {
  const created = await adminClient(server).workspaces.create({ name });
  const admin = createClient({ url: server.url, token: created.adminKey });
  const agent = createClient({ url: server.url, token: (await admin.keys.create({ name: `${name} agent`, role: 'agent' })).token });
  const viewer = createClient({ url: server.url, token: (await admin.keys.create({ name: `${name} viewer`, role: 'viewer' })).token });
  const { client: session } = await openSessionClient(agent, { title: name });
  return { id: created.workspace.id, admin, agent, viewer, session };
}

/** Awaits a refusal and returns it; fails the test when the call succeeded. */
export async function refused(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    return refusalOf(error);
  }
  expect.fail('expected the call to be refused, but it succeeded');
}

export { countRows } from './database.ts';

/** A todo item as todo_write takes it; pending unless told. */
export const todo = (content: string, status: 'pending' | 'in_progress' | 'completed' = 'pending') => ({ content, status });

/** A list with one item in each state: "Read the code" completed, "Write the fix" in progress, "Run tests" pending. */
export const oneOfEachState = [todo('Read the code', 'completed'), todo('Write the fix', 'in_progress'), todo('Run tests')];

export type { AgentTasksClient };

/** An agent session as sessionClient opens it: its client, token and session. */
export type Session = Awaited<ReturnType<typeof sessionClient>>;

/** Checklist task `n`: "Do step n", expected "Step n is done". */
export const stepTask = (n: number | string): ChecklistEntry => ({ action: `Do step ${n}`, expected_result: `Step ${n} is done` });

/** Prepares a start without the notification check (a top-level run unless told) and executes it: the run is in intake. */
export async function startQuietRun(s: Session, extra: { parentExecutionId?: string; taskContext?: { tasks: ChecklistEntry[] } } = {}) {
  const { startAttemptId } = await s.client.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true, ...extra });
  return s.client.runs.execute({ startAttemptId });
}

type RunIntake = Parameters<AgentTasksClient['runs']['intake']>[0];

/** Names a run (the naming call) and submits its checklist: the two calls the seed's intake takes. */
export async function nameAndIntake(client: AgentTasksClient, input: RunIntake & { name: string }) {
  const { name, ...intake } = input;
  await client.runs.name({ runId: input.runId, name });
  return client.runs.intake(intake);
}

/** Acknowledges the run's current task with the step attempt the run issued (read from the run first). */
export async function acknowledge(
  client: AgentTasksClient,
  runId: string,
  fields: { evidence: string; progress_execution_outcome: string; task?: number },
) {
  const { attemptId } = await client.runs.get({ runId });
  return client.runs.step({ runId, attemptId: attemptId ?? 'none', ...fields });
}
