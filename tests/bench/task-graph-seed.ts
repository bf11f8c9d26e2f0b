// Builds a task list of N tasks and ~2N edges (a DAG with locality) by inserting straight into the app's SQLite file.
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';

export interface GraphShape {
  /** Tasks in the list, the one created through the API included. */
  size: number;
  /** The first `roots` tasks (in creation order) have no blocker: the ready set the bench claims from. */
  roots: number;
  /** Every later task i gets 2 blockers among tasks i-window … i-1. */
  window: number;
  /** PRNG seed, so both sizes (and every run) draw the same kind of graph. */
  seed: number;
  /**
   * Mirrored: the last `roots` tasks have no blocker and every other task i is blocked by 2 of the `window` tasks
   * after it (a list planned top-down, the oldest tasks waiting on newer ones).
   */
  reversed?: boolean;
}

export interface SeededGraph {
  listId: string;
  /** Task ids by index (index = seq - 1). */
  ids: string[];
  /** Blocker indexes of each task (all smaller than the task's own index). */
  blockers: number[][];
  /** Dependants of each task (the reverse of `blockers`). */
  blocks: number[][];
  edges: number;
  /** Wall time of the seeding transaction, ms. */
  seedMs: number;
  /** How the server stored the API-created task's timestamps, checked before seeding. */
  timestampFormat: string;
}

/** A small deterministic PRNG (mulberry32), for reproducible graphs. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The blockers of every task: none for the first `roots`, else 2 distinct ones among the previous `window` tasks (or mirrored). */
export function drawBlockers(shape: GraphShape): number[][] {
  if (shape.reversed) {
    const mirrored = drawBlockers({ ...shape, reversed: false });
    const last = shape.size - 1;
    return mirrored.map((_, i) => mirrored[last - i]!.map((j) => last - j).sort((x, y) => x - y));
  }
  const random = prng(shape.seed);
  return Array.from({ length: shape.size }, (_, i) => {
    if (i < shape.roots) return [];
    const from = Math.max(0, i - shape.window);
    const span = i - from;
    const a = from + Math.floor(random() * span);
    let b = from + Math.floor(random() * (span - 1));
    if (b >= a) b++;
    return span > 1 ? [a, b].sort((x, y) => x - y) : [a];
  });
}

interface RawTask {
  id: string;
  listId: string;
  seq: number;
  status: string;
  sessionId: string;
  createdAt: unknown;
  updatedAt: unknown;
}

/**
 * Fills the list that holds `firstTaskId` (created through the API, so the list row exists, with seq 1) up to
 * `shape.size` tasks in one transaction: Task rows seq 2…N (pending, version 1, the first task's thread), their
 * TaskEdge rows, one 'created' TaskChange per task, and the list's taskSeq/changeSeq moved on to match.
 */
export function seedTaskGraph(databaseFile: string, listName: string, firstTaskId: string, shape: GraphShape): SeededGraph {
  const started = performance.now();
  const db = new Database(databaseFile);
  try {
    db.pragma('busy_timeout = 5000');
    const first = db.prepare('SELECT * FROM "Task" WHERE "id" = ?').get(firstTaskId) as RawTask | undefined;
    if (!first) throw new Error(`task ${firstTaskId} is not in ${databaseFile}`);
    // The Prisma adapter runs with timestampFormat unixepoch-ms: DateTime columns hold integer epoch milliseconds.
    const stamp = first.createdAt;
    if (typeof stamp !== 'number' || !Number.isInteger(stamp) || Math.abs(stamp - Date.now()) > 10 * 60_000) {
      throw new Error(
        `Task.createdAt is stored as ${typeof stamp} ${JSON.stringify(stamp)}, not integer epoch ms; the seed would not match`,
      );
    }
    const list = db.prepare('SELECT "id", "taskSeq", "changeSeq" FROM "TaskList" WHERE "id" = ?').get(first.listId) as
      { id: string; taskSeq: number; changeSeq: number } | undefined;
    if (!list || first.seq !== 1 || list.taskSeq !== 1 || list.changeSeq !== 1) {
      throw new Error(`expected a list holding only the API-created task (got ${JSON.stringify({ list, seq: first.seq })})`);
    }

    const blockers = drawBlockers(shape);
    const blocks: number[][] = blockers.map(() => []);
    blockers.forEach((of, i) => {
      for (const j of of) blocks[j]!.push(i);
    });
    const ids = blockers.map((_, i) => (i === 0 ? firstTaskId : `T-${randomUUID()}`));
    const subject = (i: number) => `Bench task ${i + 1}`;
    const start = Date.now() - shape.size * 1000;
    const at = (i: number) => start + i * 1000;

    const insertTask = db.prepare(
      'INSERT INTO "Task" ("id", "listId", "seq", "subject", "description", "status", "activeForm", "owner", "metadata", "sessionId", "version", "createdAt", "updatedAt") ' +
        "VALUES (?, ?, ?, ?, '', 'pending', NULL, NULL, '{}', ?, 1, ?, ?)",
    );
    const insertEdge = db.prepare('INSERT INTO "TaskEdge" ("listId", "blockerId", "blockedId") VALUES (?, ?, ?)');
    const insertChange = db.prepare(
      'INSERT INTO "TaskChange" ("listId", "seq", "taskId", "kind", "sessionId", "keyId", "at", "changes", "snapshot") ' +
        'SELECT ?, ?, ?, \'created\', "sessionId", "keyId", ?, ?, ? FROM "TaskChange" WHERE "listId" = ? AND "seq" = 1',
    );
    let edges = 0;
    db.transaction(() => {
      for (let i = 1; i < shape.size; i++) insertTask.run(ids[i]!, list.id, i + 1, subject(i), first.sessionId, at(i), at(i));
      for (let i = 0; i < shape.size; i++) {
        const id = ids[i]!;
        const blockedBy = blockers[i]!.map((j) => ids[j]!);
        for (const blocker of blockedBy) {
          insertEdge.run(list.id, blocker, id);
          edges++;
        }
        if (i === 0) continue; // the API-created task has its own change row
        // As TaskCreate with blockedBy records it (later edges to this task are not replayed into the log).
        const changes = {
          subject: { from: null, to: subject(i) },
          description: { from: null, to: '' },
          status: { from: null, to: 'pending' },
          metadata: { from: null, to: {} },
          threadID: { from: null, to: first.sessionId },
          ...(blockedBy.length ? { blockedBy: { from: [], to: blockedBy } } : {}),
        };
        const iso = new Date(at(i)).toISOString();
        const snapshot = {
          id,
          listName,
          subject: subject(i),
          description: '',
          status: 'pending',
          blocks: [],
          blockedBy,
          metadata: {},
          threadID: first.sessionId,
          version: 1,
          createdAt: iso,
          updatedAt: iso,
        };
        const added = insertChange.run(list.id, i + 1, id, at(i), JSON.stringify(changes), JSON.stringify(snapshot), list.id);
        if (added.changes !== 1) throw new Error('the first task has no change row to copy the actor from');
      }
      // Ranks (the topological order the server keeps): blockers are always older, or always newer when mirrored.
      db.prepare(`UPDATE "Task" SET "rank" = ${shape.reversed ? `${shape.size + 1} - "seq"` : '"seq"'} WHERE "listId" = ?`).run(list.id);
      // The kept count of open blockers that readiness queries use, as the server maintains it.
      db.prepare(
        `UPDATE "Task" SET "openBlockers" = (SELECT COUNT(*) FROM "TaskEdge" e JOIN "Task" b ON b.id = e."blockerId"
           WHERE e."blockedId" = "Task".id AND b.status NOT IN ('completed', 'deleted')) WHERE "listId" = ?`,
      ).run(list.id);
      const moved = db
        .prepare('UPDATE "TaskList" SET "taskSeq" = ?, "changeSeq" = ? WHERE "id" = ? AND "taskSeq" = 1 AND "changeSeq" = 1')
        .run(shape.size, shape.size, list.id);
      if (moved.changes !== 1) throw new Error('the list moved on while seeding');
    })();
    return {
      listId: list.id,
      ids,
      blockers,
      blocks,
      edges,
      seedMs: performance.now() - started,
      timestampFormat: `integer epoch ms (createdAt ${stamp})`,
    };
  } finally {
    db.close();
  }
}
