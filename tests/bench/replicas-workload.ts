// The workload of `pnpm bench:replicas` and its interleaved A/B (replicas-interleaved.ts): 32 sessions writing their
// todo lists, and metadata updates on a 1,000-task list, made through the API of a server on the database.
import { type AgentTasksClient, createClient, openSessionClient } from '@agent-tasks/sdk';
import { startAgentTasks } from './server-process.ts';
import { todoWrites } from './todo-lists.ts';
import type { Request } from './wrk.ts';

const CONNECTIONS = 32;
const TASKS = 1_000;

export interface Workload {
  todoWrites: Request[];
  taskUpdates: Request[];
}

/** 32 sessions and a 1,000-task list, made through the API of a server on `database`; the requests wrk replays. */
export async function prepareReplicaWorkload(database: { file: string; url?: string }, adminKey: string): Promise<Workload> {
  const server = await startAgentTasks({
    databaseFile: database.file,
    ...(database.url ? { databaseUrl: database.url } : {}),
    adminKey: adminKey,
    workers: 1,
  });
  try {
    const admin = createClient({ url: server.url, token: adminKey });
    const agent = createClient({ url: server.url, token: (await admin.keys.create({ name: 'bench', role: 'agent' })).token });
    const sessions: { token: string; client: AgentTasksClient }[] = [];
    for (let i = 0; i < CONNECTIONS; i++) sessions.push(await openSessionClient(agent, { title: `writer ${i + 1}` }));
    const listName = 'bench-replicas';
    const ids: string[] = [];
    for (let i = 0; i < TASKS; i += 16) {
      const batch = Array.from({ length: 16 }, (_, k) =>
        sessions[k]!.client.tasks.create({ listName, subject: `Bench task ${i + k + 1}` }),
      );
      ids.push(...(await Promise.all(batch)).map((t) => t.id));
    }
    let seed = 11;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    return {
      todoWrites: todoWrites(sessions.map((s) => s.token)),
      taskUpdates: Array.from({ length: 4_000 }, (_, n) => ({
        method: 'POST' as const,
        path: '/trpc/tasks.update',
        token: sessions[n % CONNECTIONS]!.token,
        body: { listName, id: ids[Math.floor(random() * ids.length)], metadata: { bench: n } },
      })),
    };
  } finally {
    await server.stop();
  }
}
