-- AlterTable
ALTER TABLE "RunStart" ADD COLUMN "taskContext" TEXT;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Run" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "parentRunId" TEXT,
    "startAttemptId" TEXT NOT NULL,
    "name" TEXT,
    "pendingName" TEXT,
    "executionNote" TEXT,
    "status" TEXT NOT NULL,
    "revising" BOOLEAN NOT NULL DEFAULT false,
    "attemptId" TEXT,
    "taskContext" TEXT,
    "connections" TEXT NOT NULL DEFAULT '[]',
    "notice" TEXT,
    "tasks" TEXT NOT NULL,
    "moves" TEXT NOT NULL,
    "remarks" TEXT NOT NULL,
    "cursor" INTEGER NOT NULL,
    "checklistOutcome" TEXT NOT NULL,
    "executionOutcome" TEXT NOT NULL,
    "taskOutcomes" TEXT NOT NULL,
    "taskTimes" TEXT NOT NULL,
    "currentSince" DATETIME,
    "blocker" TEXT,
    "revision" INTEGER NOT NULL,
    "version" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Run_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Run" ("blocker", "checklistOutcome", "createdAt", "currentSince", "cursor", "executionNote", "executionOutcome", "id", "moves", "name", "parentRunId", "remarks", "revision", "sessionId", "startAttemptId", "status", "taskOutcomes", "taskTimes", "tasks", "updatedAt", "version", "workspaceId") SELECT "blocker", "checklistOutcome", "createdAt", "currentSince", "cursor", "executionNote", "executionOutcome", "id", "moves", "name", "parentRunId", "remarks", "revision", "sessionId", "startAttemptId", "status", "taskOutcomes", "taskTimes", "tasks", "updatedAt", "version", "workspaceId" FROM "Run";
DROP TABLE "Run";
ALTER TABLE "new_Run" RENAME TO "Run";
CREATE UNIQUE INDEX "Run_startAttemptId_key" ON "Run"("startAttemptId");
CREATE INDEX "Run_workspaceId_createdAt_idx" ON "Run"("workspaceId", "createdAt");
CREATE INDEX "Run_sessionId_idx" ON "Run"("sessionId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- Runs already under way get their current step attempt (completed runs take no more steps).
UPDATE "Run" SET "attemptId" = 'att_' || lower(hex(randomblob(12))) WHERE "status" != 'completed';
