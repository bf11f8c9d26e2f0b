// Prisma implementation of the domain's RunRepository: start attempts, runs (JSON columns) and their steps.
import type { RunRecord, RunRepository, RunStartRecord, RunStepRecordData } from '@agent-tasks/core';
import { assignmentsOf, columnsOf, insertOf } from './raw-sql.ts';
import type { Tx } from './tx.ts';
import { fromJson } from './json-column.ts';
import { rawSql } from '../db/direct-sql.ts';

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
  taskContext: true,
  connections: true,
  notice: true,
  tasks: true,
  moves: true,
  remarks: true,
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
const RUN_COLUMNS = columnsOf(runSelect);
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
type RunRow = Omit<RunRecord, JsonField | 'status' | 'taskContext'> & { status: string; taskContext: string | null } & Record<
    JsonField,
    string
  >;

const toRun = (row: RunRow): RunRecord => ({
  ...row,
  status: row.status as RunRecord['status'],
  tasks: fromJson(row.tasks),
  moves: fromJson(row.moves),
  remarks: fromJson(row.remarks),
  personNotes: fromJson(row.personNotes),
  taskOutcomes: fromJson(row.taskOutcomes),
  taskTimes: fromJson(row.taskTimes),
  taskContext: row.taskContext === null ? null : fromJson(row.taskContext),
  connections: fromJson<{ runId: string; name: string | null; at: string }[]>(row.connections).map((c) => ({ ...c, at: new Date(c.at) })),
});
const fromRun = (run: RunRecord) => ({
  ...run,
  tasks: JSON.stringify(run.tasks),
  moves: JSON.stringify(run.moves),
  remarks: JSON.stringify(run.remarks),
  personNotes: JSON.stringify(run.personNotes),
  taskOutcomes: JSON.stringify(run.taskOutcomes),
  taskTimes: JSON.stringify(run.taskTimes),
  taskContext: run.taskContext === null ? null : JSON.stringify(run.taskContext),
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

export const prismaRunRepository = (db: Tx): RunRepository => ({
  async createStart(start) {
    const taskContext = start.taskContext === null ? null : JSON.stringify(start.taskContext);
    await db.runStart.create({ data: { ...start, taskContext }, select: { id: true } });
  },
  getStart: async (workspaceId, id) => toStart(await db.runStart.findFirst({ where: { id, workspaceId }, select: startSelect })),
  markStartExecuted: async (id, runId) => (await db.runStart.updateMany({ where: { id, runId: null }, data: { runId } })).count === 1,
  async create(run) {
    await db.run.create({ data: fromRun(run), select: { id: true } });
  },
  async get(workspaceId, id) {
    // A step reads and writes the whole run: raw statements, the cheapest Prisma offers.
    const [row] = await rawSql(db).$queryRaw<
      RunRow[]
    >`SELECT ${RUN_COLUMNS} FROM "Run" WHERE "id" = ${id} AND "workspaceId" = ${workspaceId}`;
    return row ? toRun(row) : null;
  },
  async getAnywhere(id) {
    const row = await db.run.findFirst({ where: { id, linkRevokedAt: null }, select: runSelect });
    return row ? toRun(row) : null;
  },
  setLinkRevoked: async (workspaceId, id, at) =>
    (await db.run.updateMany({ where: { workspaceId, id }, data: { linkRevokedAt: at } })).count === 1,
  async update(run, fromVersion) {
    const { id, workspaceId, sessionId, parentRunId, startAttemptId, createdAt, ...fields } = fromRun(run);
    return (
      (await rawSql(db).$executeRaw`UPDATE "Run" SET ${assignmentsOf(fields)} WHERE "id" = ${id} AND "version" = ${fromVersion}`) === 1
    );
  },
  list: async (workspaceId, filter) =>
    (
      await db.run.findMany({
        where: { workspaceId, ...(filter.sessionId ? { sessionId: filter.sessionId } : {}) },
        orderBy: { createdAt: 'desc' },
        take: filter.limit,
        select: runSelect,
      })
    ).map(toRun),
  async appendStep(step) {
    await rawSql(db).$executeRaw`INSERT INTO "RunStep" ${insertOf(step)}`;
  },
  steps: async (runId) =>
    (await rawSql(db).$queryRaw<StepRow[]>`SELECT ${STEP_COLUMNS} FROM "RunStep" WHERE "runId" = ${runId} ORDER BY "seq" ASC`).map(toStep),
  async findStepByAttempt(runId, attemptId) {
    // Every step looks for its resend first: a raw statement, without Prisma's query pipeline.
    const [row] = await rawSql(db).$queryRaw<(StepRow & { fingerprint: string | null; answer: string | null })[]>`
      SELECT ${STEP_COLUMNS}, "fingerprint", "answer" FROM "RunStep" WHERE "runId" = ${runId} AND "attemptId" = ${attemptId} LIMIT 1`;
    return row ? toStep(row) : null;
  },
});
