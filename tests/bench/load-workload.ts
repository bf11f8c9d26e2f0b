// The load bench's workload, prepared once on one database file through the API (and a direct seed of the big task
// list): sessions, a 10,000-task list with ~20,000 edges, checklist runs ready to be stepped, and the requests wrk
// replays for each scenario.
import { type AgentTasksClient, createClient, openSessionClient } from '@agent-tasks/sdk';
import { startAgentTasks } from './server-process.ts';
import { drawBlockers, prng, seedTaskGraph } from './task-graph-seed.ts';
import { listAt, todoWrites } from './todo-lists.ts';
import type { Request } from './wrk.ts';

export interface Workload {
  todoWrites: Request[];
  todoWrites200: Request[];
  probeToken: string;
  taskUpdates: Request[];
  edgeAdds: Request[];
  readyPages: Request[];
  todoGets: Request[];
  runViews: Request[];
  /** Per connection, its runs ready for their first step (each worker count has its own runs). */
  runSteps(workers: number): { runId: string; attemptId: string; token: string }[][];
  describe: string;
}

const TASKS = 10_000;
const RUN_TASKS = 100;
const CONNECTIONS = 32;
/** The most steps per second the runs are prepared for (more would run out of runs and be refused). */
const MAX_STEPS_PER_SECOND = 8_000;

const query = (path: string, input: unknown) => `/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`;

async function sessions(agent: AgentTasksClient, count: number, title: string) {
  const opened: { id: string; token: string; client: AgentTasksClient }[] = [];
  for (let i = 0; i < count; i += 16) {
    opened.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(16, count - i) }, async (_, k) => {
          const { session, token, client } = await openSessionClient(agent, { title: `${title} ${i + k + 1}` });
          return { id: session.id, token, client };
        }),
      )),
    );
  }
  return opened;
}

const checklist = Array.from({ length: RUN_TASKS }, (_, i) => ({
  action: `Perform step ${i + 1} of the release checklist and record what was checked`,
  expected_result: `Step ${i + 1} is verified by its check`,
}));

/** A run named and given its checklist: its id and the attempt its first step answers. */
export async function readyRun(client: AgentTasksClient, name: string) {
  const { startAttemptId } = await client.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
  const run = await client.runs.execute({ startAttemptId });
  await client.runs.name({ runId: run.id, name });
  const ready = await client.runs.intake({ runId: run.id, tasks: checklist, progress_checklist_outcome: `${RUN_TASKS} tasks are ready` });
  return { runId: run.id, attemptId: ready.attemptId ?? '' };
}

export async function prepareWorkload(options: {
  databaseFile: string;
  adminKey: string;
  seconds: number;
  workers: number[];
  log: (line: string) => void;
}): Promise<Workload> {
  const server = await startAgentTasks({ databaseFile: options.databaseFile, adminKey: options.adminKey, workers: 1 });
  try {
    const admin = createClient({ url: server.url, token: options.adminKey });
    const agent = createClient({ url: server.url, token: (await admin.keys.create({ name: 'bench', role: 'agent' })).token });
    const writers = await sessions(agent, 200, 'writer');
    const probe = (await sessions(agent, 1, 'probe'))[0];
    if (!probe) throw new Error('no probe session');

    // The big list: one task through the API (so the list row is the server's own), the rest seeded.
    const listName = 'bench-10k';
    const graphOwner = writers[0] as (typeof writers)[number];
    const first = await graphOwner.client.tasks.create({ subject: 'Bench task 1', listName });
    const shape = { size: TASKS, roots: 145, window: 40, seed: 7 };
    const seeded = seedTaskGraph(options.databaseFile, listName, first.id, shape);
    options.log(`seeded ${TASKS} tasks and ${seeded.edges} edges in ${Math.round(seeded.seedMs)} ms`);
    // The seeding held this process's event loop longer than the server's keep-alive timeout: let the HTTP client see
    // the idle connections the server closed meanwhile before it sends on them again.
    await new Promise((resolve) => setTimeout(resolve, 100));

    const random = prng(11);
    const pick = () => seeded.ids[Math.floor(random() * TASKS)] as string;
    const taskUpdates: Request[] = Array.from({ length: 4_000 }, (_, n) => ({
      method: 'POST',
      path: '/trpc/tasks.update',
      token: writers[n % CONNECTIONS]?.token ?? '',
      body: { listName, id: pick(), metadata: { bench: n } },
    }));
    // New edges that run forward in creation order (a blocker older than the task it blocks), never repeated.
    const existing = drawBlockers(shape);
    const edgeAdds: Request[] = [];
    for (let i = shape.roots; i < TASKS && edgeAdds.length < 30_000; i++) {
      for (let j = Math.max(0, i - shape.window); j < i && edgeAdds.length < 30_000; j += 7) {
        if (existing[i]?.includes(j)) continue;
        edgeAdds.push({
          method: 'POST',
          path: '/trpc/tasks.update',
          token: graphOwner.token,
          body: { listName, id: seeded.ids[i], addBlockedBy: [seeded.ids[j]] },
        });
      }
    }
    edgeAdds.sort(() => random() - 0.5);

    // Runs: a few to view, and per worker count enough for every connection to step for the whole measurement.
    const runners = writers.slice(0, CONNECTIONS);
    const viewed = await Promise.all(runners.slice(0, 4).map((r, i) => readyRun(r.client, `Viewed run ${i}`)));
    for (const [i, { runId, attemptId: first }] of viewed.entries()) {
      const client = runners[i]?.client as AgentTasksClient;
      let attemptId = first;
      for (let task = 1; task <= 50; task++) {
        attemptId =
          (
            await client.runs.step({
              runId,
              attemptId,
              evidence: `check ${task} passed`,
              progress_execution_outcome: `step ${task} verified`,
            })
          ).attemptId ?? '';
      }
    }
    const perConnection = Math.ceil((MAX_STEPS_PER_SECOND * (options.seconds + 1)) / CONNECTIONS / RUN_TASKS) + 1;
    const runs = new Map<number, { runId: string; attemptId: string; token: string }[][]>();
    for (const workers of options.workers) {
      options.log(`preparing ${perConnection * CONNECTIONS} runs of ${RUN_TASKS} tasks for workers ${workers}…`);
      runs.set(
        workers,
        await Promise.all(
          runners.map(async (r, c) => {
            const ready: { runId: string; attemptId: string; token: string }[] = [];
            for (let k = 0; k < perConnection; k++)
              ready.push({ ...(await readyRun(r.client, `Bench run ${workers}.${c}.${k}`)), token: r.token });
            return ready;
          }),
        ),
      );
    }

    return {
      todoWrites: todoWrites(writers.slice(0, CONNECTIONS).map((s) => s.token)),
      todoWrites200: writers.map((s, i) => ({
        method: 'POST' as const,
        path: '/trpc/todos.write',
        token: s.token,
        body: { todos: listAt(i) },
      })),
      probeToken: probe.token,
      taskUpdates,
      edgeAdds,
      readyPages: runners.map((r) => ({
        method: 'GET' as const,
        path: query('tasks.list', { listName, readyOnly: true, limit: 50 }),
        token: r.token,
      })),
      todoGets: runners.map((r) => ({ method: 'GET' as const, path: '/trpc/todos.get', token: r.token })),
      runViews: viewed.map(({ runId }, i) => ({
        method: 'GET' as const,
        path: query('runs.get', { runId }),
        token: runners[i]?.token ?? '',
      })),
      runSteps: (workers) => runs.get(workers) ?? [],
      describe: `${TASKS} tasks / ${seeded.edges} edges (window ${shape.window}), 200 sessions, ${perConnection} runs of ${RUN_TASKS} tasks per connection and worker count`,
    };
  } finally {
    await server.stop();
  }
}
