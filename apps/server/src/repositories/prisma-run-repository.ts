// Prisma implementation of the domain's RunRepository: start attempts, runs (JSON columns; the checklist in a row of its
// own) and their steps.
import type { RunRecord, RunRepository, RunStartRecord, RunStepRecordData } from '@agent-tasks/core';
import { assignmentsOf, columnsOf, insertOf } from './raw-sql.ts';
import type { AfterCommit, Dialect, Tx } from './tx.ts';
import type { CommittedRunRows } from './run-rows.ts';
import { fromJson } from './json-column.ts';
import { type TextSplice, spliceOf, unsplice } from './text-splice.ts';
import { type ChecklistColumn, ChecklistColumns } from './checklist-columns.ts';
import { rawSql } from '../db/direct-sql.ts';
import { Prisma } from '../generated/prisma/client.ts';

const runSelect = {
  id: true,
  workspaceId: true,
  sessionId: true,
  parentRunId: true,
  startAttemptId: true,
  name: true,
  pendingName: true,
  executionNote: true,
  status: true,
  revising: true,
  attemptId: true,
  connections: true,
  notice: true,
  personNotes: true,
  cursor: true,
  checklistOutcome: true,
  executionOutcome: true,
  taskOutcomes: true,
  taskTimes: true,
  currentSince: true,
  blocker: true,
  revision: true,
  version: true,
  createdAt: true,
  updatedAt: true,
} as const;
/** The run's checklist, kept in its own row (RunChecklist): only intake and a revision change it. */
const checklistSelect = { taskContext: true, tasks: true, moves: true, remarks: true } as const;
const CHECKLIST_COLUMNS = Object.keys(checklistSelect) as ChecklistColumn[];
const CHECKLIST_FIELDS = new Set<string>(CHECKLIST_COLUMNS);
/** The run with its checklist (`FROM ${RUN_AND_CHECKLIST}`, the run as r). */
const RUN_COLUMNS = Prisma.sql`${columnsOf(runSelect, 'r')}, ${columnsOf(checklistSelect, 'c')}`;
const RUN_AND_CHECKLIST = Prisma.raw('"Run" r JOIN "RunChecklist" c ON c."runId" = r."id"');
/** The run's own columns for its checklist, where no older replica reads them (SQLite): empty. */
const NO_LEGACY_CHECKLIST = { taskContext: null, tasks: '[]', moves: '[]', remarks: '[]' } as const;
const startSelect = {
  id: true,
  workspaceId: true,
  sessionId: true,
  parentRunId: true,
  skipNotificationCheck: true,
  taskContext: true,
  runId: true,
  createdAt: true,
} as const;
const stepSelect = {
  runId: true,
  seq: true,
  kind: true,
  label: true,
  task: true,
  attemptId: true,
  evidence: true,
  outcome: true,
  at: true,
} as const;

/** The run's fields kept as JSON text. */
type JsonField = 'tasks' | 'moves' | 'remarks' | 'taskOutcomes' | 'taskTimes' | 'connections' | 'personNotes';
export type RunRow = Omit<RunRecord, JsonField | 'status' | 'taskContext'> & { status: string; taskContext: string | null } & Record<
    JsonField,
    string
  >;

/** Each run's checklist as last read in this process (every step reads and writes the same one). */
const checklists = new ChecklistColumns();
const checklistOf = <T>(row: RunRow, column: ChecklistColumn): T => checklists.parse<T>(row.id, column, row[column] as string);
/** A checklist column's text: the text read when it is the value read (frozen, so unchanged), else written anew. */
const checklistText = (run: RunRecord, column: ChecklistColumn) =>
  checklists.textOf(run.id, column, run[column]) ?? JSON.stringify(run[column]);

/**
 * The run of a row. Its checklist is parsed through the cache for the run as it is now (`kept`); a list of runs, or a
 * run at an older version, is parsed on its own, not to push the current runs' parses out.
 */
function toRun(row: RunRow, kept = true): RunRecord {
  const checklist = <T>(column: ChecklistColumn): T => (kept ? checklistOf<T>(row, column) : fromJson<T>(row[column] as string));
  return {
    ...row,
    status: row.status as RunRecord['status'],
    tasks: checklist('tasks'),
    moves: checklist('moves'),
    remarks: checklist('remarks'),
    personNotes: fromJson(row.personNotes),
    taskOutcomes: fromJson(row.taskOutcomes),
    taskTimes: fromJson(row.taskTimes),
    taskContext: row.taskContext === null ? null : checklist('taskContext'),
    connections: fromJson<{ runId: string; name: string | null; at: string }[]>(row.connections).map((c) => ({ ...c, at: new Date(c.at) })),
  };
}
const fromRun = (run: RunRecord) => ({
  ...run,
  tasks: checklistText(run, 'tasks'),
  moves: checklistText(run, 'moves'),
  remarks: checklistText(run, 'remarks'),
  personNotes: JSON.stringify(run.personNotes),
  taskOutcomes: JSON.stringify(run.taskOutcomes),
  taskTimes: JSON.stringify(run.taskTimes),
  taskContext: run.taskContext === null ? null : checklistText(run, 'taskContext'),
  connections: JSON.stringify(run.connections),
});
const STEP_COLUMNS = columnsOf(stepSelect);
type StepRow = Omit<RunStepRecordData, 'kind'> & { kind: string };
type StartRow = Omit<RunStartRecord, 'taskContext'> & { taskContext: string | null };
const toStart = (row: StartRow | null): RunStartRecord | null =>
  row && { ...row, taskContext: row.taskContext === null ? null : fromJson(row.taskContext) };
const toStep = (row: Omit<RunStepRecordData, 'kind'> & { kind: string }): RunStepRecordData => ({
  ...row,
  kind: row.kind as RunStepRecordData['kind'],
});

/** The run's columns a step may change: all but its identity and creation time. */
type RunChanges = Omit<ReturnType<typeof fromRun>, 'id' | 'workspaceId' | 'sessionId' | 'parentRunId' | 'startAttemptId' | 'createdAt'>;
const DATE_COLUMNS = new Set(['currentSince', 'updatedAt']);
const sameValue = (a: unknown, b: unknown) => a === b || (a instanceof Date && b instanceof Date && a.getTime() === b.getTime());

/** A prior field kept as its column's difference from the value written (a TextSplice): `<column>:splice`. */
const SPLICED = ':splice';

/**
 * A step's prior fields: each column it changed, as it was. A long text column is kept as its difference from the value
 * written (`<column>:splice`), where every replica reads that form (SQLite); on PostgreSQL, whole for one release, as
 * an older replica rebuilding a run at a version reads it.
 */
function priorOf(before: RunRow, changed: Partial<RunChanges>, dialect: Dialect) {
  const prior: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(changed)) {
    const was = before[column as keyof RunRow];
    const splice = dialect === 'sqlite' && typeof was === 'string' && typeof value === 'string' ? spliceOf(was, value) : null;
    if (splice) prior[`${column}${SPLICED}`] = splice;
    else prior[column] = was;
  }
  return prior;
}

/**
 * The run's columns one version back: `then` (a row at some version) with a step's prior fields put back; false when
 * they do not fit it (a difference from a column that is not text).
 */
function putBack(then: Record<string, unknown>, prior: Record<string, unknown>): boolean {
  for (const [key, value] of Object.entries(prior)) {
    if (key.endsWith(SPLICED)) {
      const column = key.slice(0, -SPLICED.length);
      const after = then[column];
      if (typeof after !== 'string') return false;
      then[column] = unsplice(after, value as TextSplice);
    } else then[key] = DATE_COLUMNS.has(key) && typeof value === 'string' ? new Date(value) : value;
  }
  return true;
}

/**
 * The stored columns of each run read here, by record: a save writes only the columns its step changed and keeps their
 * values before it (the step's prior fields). Records are fresh per read (a retried or rolled-back transaction reads
 * its run again), so an entry lives as long as its record; one whose version is not the save's is not used.
 */
const storedRows = new WeakMap<RunRecord, RunRow>();
const read = (row: RunRow | undefined) => {
  if (!row) return null;
  const run = toRun(row);
  storedRows.set(run, row);
  return run;
};

/**
 * The run's checklist written to its own row (made or replaced). Where older replicas may run beside this version
 * (PostgreSQL, for one release), the callers write the run's own columns for it too, which those replicas read.
 */
async function writeChecklist(db: Tx, runId: string, checklist: Pick<RunRow, ChecklistColumn>) {
  const values = { runId, ...checklist };
  await rawSql(db).$executeRaw`INSERT INTO "RunChecklist" ${insertOf(values)}
    ON CONFLICT ("runId") DO UPDATE SET ${assignmentsOf(checklist)}`;
}

/** The runs' rows as last committed through this store (run-rows.ts), and when what a transaction read or wrote is. */
export interface KeptRunRows {
  rows: CommittedRunRows<RunRow>;
  /** A write transaction's after-commit hook; outside one, never (a connection shared with a write may read its rows). */
  afterCommit: AfterCommit;
}

export function prismaRunRepository(db: Tx, dialect: Dialect, committed: KeptRunRows): RunRepository {
  /** The run of a row read whole, its row kept once the transaction commits, holding the checklist cache's texts. */
  const readAndKeep = (row: RunRow) => {
    const run = read(row) as RunRecord;
    const kept = { ...row };
    for (const column of CHECKLIST_COLUMNS) if (kept[column] !== null) kept[column] = checklistText(run, column);
    committed.afterCommit(() => committed.rows.remember(kept));
    return run;
  };
  return {
    async createStart(start) {
      const taskContext = start.taskContext === null ? null : JSON.stringify(start.taskContext);
      await db.runStart.create({ data: { ...start, taskContext }, select: { id: true } });
    },
    getStart: async (workspaceId, id) => toStart(await db.runStart.findFirst({ where: { id, workspaceId }, select: startSelect })),
    markStartExecuted: async (id, runId) => (await db.runStart.updateMany({ where: { id, runId: null }, data: { runId } })).count === 1,
    async create(run) {
      const { taskContext, tasks, moves, remarks, ...row } = fromRun(run);
      const checklist = { taskContext, tasks, moves, remarks };
      await db.run.create({ data: { ...row, ...(dialect === 'postgres' ? checklist : NO_LEGACY_CHECKLIST) }, select: { id: true } });
      await writeChecklist(db, run.id, checklist);
    },
    async get(workspaceId, id) {
      const last = committed.rows.get(id);
      if (last?.workspaceId === workspaceId) {
        // One statement: the run's whole row only when its version is not the kept row's (then its columns are NULL, and
        // the kept row is the run), so a run another replica moved on costs no second round trip.
        const [row] = await rawSql(db).$queryRaw<(RunRow | Record<keyof RunRow, null>)[]>`SELECT ${RUN_COLUMNS} FROM "Run" k
        LEFT JOIN "Run" r ON r."id" = k."id" AND r."version" <> ${last.version} LEFT JOIN "RunChecklist" c ON c."runId" = r."id"
        WHERE k."id" = ${id} AND k."workspaceId" = ${workspaceId}`;
        if (!row) return null;
        return row.id === null ? read(last) : readAndKeep(row);
      }
      // A step reads and writes the whole run: raw statements, the cheapest Prisma offers.
      const [row] = await rawSql(db).$queryRaw<
        RunRow[]
      >`SELECT ${RUN_COLUMNS} FROM ${RUN_AND_CHECKLIST} WHERE r."id" = ${id} AND r."workspaceId" = ${workspaceId}`;
      return row ? readAndKeep(row) : null;
    },
    async versionOf(workspaceId, id) {
      // A kept run view reads it on every request (core's ReadCache): one indexed column, no JSON.
      const [row] = await rawSql(db).$queryRaw<{ version: number | bigint }[]>`
      SELECT "version" FROM "Run" WHERE "id" = ${id} AND "workspaceId" = ${workspaceId}`;
      return row ? Number(row.version) : null;
    },
    async getAnywhere(id) {
      // One statement: the run and its checklist as of one moment (a revision between two reads would mismatch them).
      const [row] = await rawSql(db).$queryRaw<
        RunRow[]
      >`SELECT ${RUN_COLUMNS} FROM ${RUN_AND_CHECKLIST} WHERE r."id" = ${id} AND r."linkRevokedAt" IS NULL`;
      return row ? toRun(row) : null;
    },
    setLinkRevoked: async (workspaceId, id, at) =>
      (await db.run.updateMany({ where: { workspaceId, id }, data: { linkRevokedAt: at } })).count === 1,
    async save(run, fromVersion, step) {
      const { id, workspaceId, sessionId, parentRunId, startAttemptId, createdAt, ...fields } = fromRun(run);
      const kept = storedRows.get(run);
      const before =
        kept?.version === fromVersion
          ? kept
          : (
              await rawSql(db).$queryRaw<
                RunRow[]
              >`SELECT ${RUN_COLUMNS} FROM ${RUN_AND_CHECKLIST} WHERE r."id" = ${id} AND r."version" = ${fromVersion}`
            )[0];
      if (!before) return false;
      // The version is always written: the statement's compare-and-set.
      const changed: Partial<RunChanges> = { version: fields.version };
      const stepChanged: Partial<RunChanges> = {};
      let checklistChanged = false;
      for (const [column, value] of Object.entries(fields) as [keyof RunChanges, unknown][]) {
        if (sameValue(before[column], value)) continue;
        (stepChanged as Record<string, unknown>)[column] = value;
        const ofChecklist = CHECKLIST_FIELDS.has(column);
        checklistChanged ||= ofChecklist;
        // The run's own checklist columns: written only where older replicas read them.
        if (!ofChecklist || dialect === 'postgres') (changed as Record<string, unknown>)[column] = value;
      }
      const written = await rawSql(db)
        .$executeRaw`UPDATE "Run" SET ${assignmentsOf(changed)} WHERE "id" = ${id} AND "version" = ${fromVersion}`;
      if (written !== 1) return false;
      // Intake and revisions only: a step leaves the checklist's row as it is.
      const { taskContext, tasks, moves, remarks } = fields;
      if (checklistChanged) await writeChecklist(db, id, { taskContext, tasks, moves, remarks });
      await rawSql(db)
        .$executeRaw`INSERT INTO "RunStep" ${insertOf({ ...step, answer: null, prior: JSON.stringify(priorOf(before, stepChanged, dialect)) })}`;
      const after = { ...before, ...changed, taskContext, tasks, moves, remarks };
      storedRows.set(run, after);
      committed.afterCommit(() => committed.rows.remember(after));
      return true;
    },
    async atVersion(workspaceId, id, version) {
      const [row] = await rawSql(db).$queryRaw<
        RunRow[]
      >`SELECT ${RUN_COLUMNS} FROM ${RUN_AND_CHECKLIST} WHERE r."id" = ${id} AND r."workspaceId" = ${workspaceId}`;
      if (!row || row.version < version) return null;
      // Newest first: each step's prior fields turn the run at its version + 1 back into the run at its version. Only
      // the steps up to the row read: on PostgreSQL another replica may commit a later one between the two statements.
      const steps = await rawSql(db).$queryRaw<{ seq: number; prior: string | null }[]>`
      SELECT "seq", "prior" FROM "RunStep" WHERE "runId" = ${id} AND "seq" >= ${version} AND "seq" < ${row.version}
      ORDER BY "seq" DESC`;
      const then: Record<string, unknown> = { ...row };
      for (const step of steps) {
        if (step.prior === null || step.seq !== (then.version as number) - 1) return null;
        if (!putBack(then, JSON.parse(step.prior) as Record<string, unknown>)) return null;
      }
      return then.version === version ? toRun(then as RunRow, false) : null;
    },
    list: async (workspaceId, filter) =>
      (
        await rawSql(db).$queryRaw<RunRow[]>`SELECT ${RUN_COLUMNS} FROM ${RUN_AND_CHECKLIST}
        WHERE r."workspaceId" = ${workspaceId} ${filter.sessionId ? Prisma.sql`AND r."sessionId" = ${filter.sessionId}` : Prisma.empty}
        ORDER BY r."createdAt" DESC LIMIT ${filter.limit}`
      ).map((row) => toRun(row, false)),
    steps: async (runId) =>
      (await rawSql(db).$queryRaw<StepRow[]>`SELECT ${STEP_COLUMNS} FROM "RunStep" WHERE "runId" = ${runId} ORDER BY "seq" ASC`).map(
        toStep,
      ),
    async findStepByAttempt(runId, attemptId) {
      // Every step looks for its resend first: a raw statement, without Prisma's query pipeline.
      const [row] = await rawSql(db).$queryRaw<(StepRow & { fingerprint: string | null; answer: string | null })[]>`
      SELECT ${STEP_COLUMNS}, "fingerprint", "answer" FROM "RunStep" WHERE "runId" = ${runId} AND "attemptId" = ${attemptId} LIMIT 1`;
      return row ? toStep(row) : null;
    },
  };
}
