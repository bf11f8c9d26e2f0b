-- CreateTable
CREATE TABLE "TaskComment" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "listId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "author" TEXT NOT NULL,
    "byPerson" BOOLEAN NOT NULL,
    "keyId" TEXT NOT NULL,
    "sessionId" TEXT,
    "createdAt" DATETIME NOT NULL,
    CONSTRAINT "TaskComment_listId_taskId_fkey" FOREIGN KEY ("listId", "taskId") REFERENCES "Task" ("listId", "id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "TaskSearchText" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "listId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "comments" TEXT NOT NULL,
    CONSTRAINT "TaskSearchText_listId_taskId_fkey" FOREIGN KEY ("listId", "taskId") REFERENCES "Task" ("listId", "id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "TaskNoteRead" (
    "sessionId" TEXT NOT NULL,
    "listId" TEXT NOT NULL,
    "lastCommentId" INTEGER NOT NULL,

    PRIMARY KEY ("sessionId", "listId"),
    CONSTRAINT "TaskNoteRead_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

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
    "personNotes" TEXT NOT NULL DEFAULT '[]',
    "revision" INTEGER NOT NULL,
    "version" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "linkRevokedAt" DATETIME,
    CONSTRAINT "Run_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Run" ("attemptId", "blocker", "checklistOutcome", "connections", "createdAt", "currentSince", "cursor", "executionNote", "executionOutcome", "id", "linkRevokedAt", "moves", "name", "notice", "parentRunId", "pendingName", "remarks", "revising", "revision", "sessionId", "startAttemptId", "status", "taskContext", "taskOutcomes", "taskTimes", "tasks", "updatedAt", "version", "workspaceId") SELECT "attemptId", "blocker", "checklistOutcome", "connections", "createdAt", "currentSince", "cursor", "executionNote", "executionOutcome", "id", "linkRevokedAt", "moves", "name", "notice", "parentRunId", "pendingName", "remarks", "revising", "revision", "sessionId", "startAttemptId", "status", "taskContext", "taskOutcomes", "taskTimes", "tasks", "updatedAt", "version", "workspaceId" FROM "Run";
DROP TABLE "Run";
ALTER TABLE "new_Run" RENAME TO "Run";
CREATE UNIQUE INDEX "Run_startAttemptId_key" ON "Run"("startAttemptId");
CREATE INDEX "Run_workspaceId_createdAt_idx" ON "Run"("workspaceId", "createdAt");
CREATE INDEX "Run_sessionId_idx" ON "Run"("sessionId");
CREATE TABLE "new_Task" (
    "id" TEXT NOT NULL,
    "listId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "subject" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "activeForm" TEXT,
    "owner" TEXT,
    "metadata" TEXT NOT NULL,
    "threadId" TEXT NOT NULL,
    "repoUrl" TEXT,
    "parentId" TEXT,
    "fileKeyTail" TEXT,
    "priority" INTEGER NOT NULL DEFAULT 5,
    "labels" TEXT NOT NULL DEFAULT '[]',
    "version" INTEGER NOT NULL,
    "openBlockers" INTEGER NOT NULL DEFAULT 0,
    "rank" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("listId", "id"),
    CONSTRAINT "Task_listId_fkey" FOREIGN KEY ("listId") REFERENCES "TaskList" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Task" ("activeForm", "createdAt", "description", "fileKeyTail", "id", "listId", "metadata", "openBlockers", "owner", "parentId", "rank", "repoUrl", "seq", "status", "subject", "threadId", "updatedAt", "version") SELECT "activeForm", "createdAt", "description", "fileKeyTail", "id", "listId", "metadata", "openBlockers", "owner", "parentId", "rank", "repoUrl", "seq", "status", "subject", "threadId", "updatedAt", "version" FROM "Task";
DROP TABLE "Task";
ALTER TABLE "new_Task" RENAME TO "Task";
CREATE INDEX "Task_listId_status_seq_idx" ON "Task"("listId", "status", "seq");
CREATE INDEX "Task_listId_status_openBlockers_seq_idx" ON "Task"("listId", "status", "openBlockers", "seq");
CREATE INDEX "Task_listId_status_openBlockers_priority_seq_idx" ON "Task"("listId", "status", "openBlockers", "priority", "seq");
CREATE UNIQUE INDEX "Task_listId_seq_key" ON "Task"("listId", "seq");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "TaskComment_listId_taskId_id_idx" ON "TaskComment"("listId", "taskId", "id");

-- CreateIndex
CREATE INDEX "TaskComment_listId_byPerson_id_idx" ON "TaskComment"("listId", "byPerson", "id");

-- CreateIndex
CREATE UNIQUE INDEX "TaskSearchText_listId_taskId_key" ON "TaskSearchText"("listId", "taskId");

-- Full-text search: an FTS5 index over "TaskSearchText" (external content), kept by these triggers in the same
-- transaction as every write to it. "listId" is indexed too, so a search is one MATCH within its list.
CREATE VIRTUAL TABLE "TaskSearch" USING fts5(
    "listId", "subject", "description", "comments",
    content = 'TaskSearchText', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER "TaskSearchText_ai" AFTER INSERT ON "TaskSearchText" BEGIN
    INSERT INTO "TaskSearch" ("rowid", "listId", "subject", "description", "comments") VALUES (new."id", new."listId", new."subject", new."description", new."comments");
END;
CREATE TRIGGER "TaskSearchText_ad" AFTER DELETE ON "TaskSearchText" BEGIN
    INSERT INTO "TaskSearch" ("TaskSearch", "rowid", "listId", "subject", "description", "comments") VALUES ('delete', old."id", old."listId", old."subject", old."description", old."comments");
END;
CREATE TRIGGER "TaskSearchText_au" AFTER UPDATE OF "listId", "subject", "description", "comments" ON "TaskSearchText" BEGIN
    INSERT INTO "TaskSearch" ("TaskSearch", "rowid", "listId", "subject", "description", "comments") VALUES ('delete', old."id", old."listId", old."subject", old."description", old."comments");
    INSERT INTO "TaskSearch" ("rowid", "listId", "subject", "description", "comments") VALUES (new."id", new."listId", new."subject", new."description", new."comments");
END;
