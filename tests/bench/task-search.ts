// Bench section (`pnpm bench -- --only search`): full-text search (`tasks.search`) on one list of 10,000 tasks whose
// subjects, descriptions and comments draw on a vocabulary of 150 words (a word is in about 3% of the tasks, a prefix
// in a few percent), through the SDK over HTTP against the built server on SQLite (FTS5). Each query is one word, two
// words, or a prefix; the figure is the request's round trip, and the table says how many hits a query had. Target
// (issue 25): p50 ≤ 20 ms.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient, openSessionClient } from '@agent-tasks/sdk';
import { startAgentTasks } from './server-process.ts';
import { percentile } from './stats.ts';
import { fixed, textTable } from './text-table.ts';

export const SEARCH_P50_TARGET_MS = 20;
const TASKS = 10_000;
const PER_IMPORT = 2_000;
const NOUNS = ['deploy', 'billing', 'schema', 'router', 'cache', 'login', 'invoice', 'queue', 'metric', 'backup', 'search', 'upload'];
const MORE = [
  'token',
  'session',
  'export',
  'import',
  'webhook',
  'channel',
  'report',
  'account',
  'payment',
  'profile',
  'sync',
  'build',
  'release',
];
const SUFFIXES = ['', 'ed', 's', 'ing', 'er', 'able'];
const WORDS = [...NOUNS, ...MORE].flatMap((noun) => SUFFIXES.map((suffix) => `${noun}${suffix}`)).slice(0, 150);
// Spread over the vocabulary: consecutive tasks share no word.
const word = (n: number) => WORDS[(n * 37) % WORDS.length] as string;

export interface SearchBenchResult {
  tasks: number;
  queries: number;
  p50: number;
  p99: number;
  max: number;
  meanHits: number;
  /** For scale: `tasks.get` of one task, the same way (what any request costs here). */
  getP50: number;
}

export async function taskSearchBench(options: { queries: number; log: (line: string) => void }): Promise<SearchBenchResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-tasks-search-bench-'));
  const adminKey = `atk_${randomBytes(24).toString('hex')}`;
  const server = await startAgentTasks({ databaseFile: path.join(dir, 'search.db'), adminKey, workers: 1 });
  try {
    const admin = createClient({ url: server.url, token: adminKey });
    const { client } = await openSessionClient(admin, { title: 'search bench' });
    options.log(`importing ${TASKS} tasks into one list…`);
    for (let start = 0; start < TASKS; start += PER_IMPORT) {
      const files = Array.from({ length: PER_IMPORT }, (_, i) => {
        const n = start + i;
        const id = `T-bench-${n}`;
        const body = {
          id,
          subject: `Task ${n}: ${word(n)} ${word(n * 7 + 3)}`,
          description: `Check the ${word(n * 3 + 1)} and the ${word(n * 5 + 2)} before step ${n % 97}.`,
          status: 'pending',
          blocks: [],
          blockedBy: [],
        };
        return { name: `${id}.json`, content: JSON.stringify(body) };
      });
      await client.tasks.import({ listName: 'bench', format: 'sisyphus', files });
    }
    for (let n = 0; n < 200; n++) {
      await client.tasks.comment({ listName: 'bench', id: `T-bench-${n * 37}`, body: `A note about the ${word(n + 5)} rollout` });
    }
    const queries = Array.from({ length: options.queries }, (_, i) =>
      i % 3 === 0 ? word(i) : i % 3 === 1 ? `${word(i)} ${word(i * 7 + 3)}` : `${word(i)}`.slice(0, Math.max(4, word(i).length - 1)),
    );
    for (const q of queries.slice(0, 20)) await client.tasks.search({ listName: 'bench', query: q }); // warm-up
    const times: number[] = [];
    let hits = 0;
    for (const query of queries) {
      const start = performance.now();
      const result = await client.tasks.search({ listName: 'bench', query });
      times.push(performance.now() - start);
      hits += result.hits.length;
    }
    times.sort((a, b) => a - b);
    const gets: number[] = [];
    for (let i = 0; i < options.queries; i++) {
      const start = performance.now();
      await client.tasks.get({ listName: 'bench', id: `#${(i % TASKS) + 1}` });
      gets.push(performance.now() - start);
    }
    gets.sort((a, b) => a - b);
    return {
      getP50: percentile(gets, 50),
      tasks: TASKS,
      queries: times.length,
      p50: percentile(times, 50),
      p99: percentile(times, 99),
      max: times.at(-1) ?? Number.NaN,
      meanHits: hits / times.length,
    };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function reportTaskSearch(r: SearchBenchResult): string {
  return [
    `Full-text search (tasks.search over HTTP, SQLite FTS5) on a ${r.tasks.toLocaleString('en')}-task list, ${r.queries} queries:`,
    textTable(
      ['what', 'p50 ms', 'p99 ms', 'max ms', 'hits per query'],
      [
        ['tasks.search', fixed(r.p50), fixed(r.p99), fixed(r.max), fixed(r.meanHits, 1)],
        ['tasks.get (for scale)', fixed(r.getP50), '', '', ''],
      ],
    ),
    `Target (issue 25): p50 ≤ ${SEARCH_P50_TARGET_MS} ms — ${r.p50 <= SEARCH_P50_TARGET_MS ? 'met' : 'missed'}.`,
  ].join('\n');
}
