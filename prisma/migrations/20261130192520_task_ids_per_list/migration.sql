/*
  Warnings:

  - The primary key for the `Task` table will be changed. If it partially fails, the table could be left without primary key constraint.

*/
-- DropIndex
DROP INDEX "TaskChange_taskId_seq_idx";

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
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
    "version" INTEGER NOT NULL,
    "openBlockers" INTEGER NOT NULL DEFAULT 0,
    "rank" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("listId", "id"),
    CONSTRAINT "Task_listId_fkey" FOREIGN KEY ("listId") REFERENCES "TaskList" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Task" ("activeForm", "createdAt", "description", "id", "listId", "metadata", "openBlockers", "owner", "rank", "seq", "status", "subject", "threadId", "updatedAt", "version") SELECT "activeForm", "createdAt", "description", "id", "listId", "metadata", "openBlockers", "owner", "rank", "seq", "status", "subject", "threadId", "updatedAt", "version" FROM "Task";
DROP TABLE "Task";
ALTER TABLE "new_Task" RENAME TO "Task";
CREATE INDEX "Task_listId_status_seq_idx" ON "Task"("listId", "status", "seq");
CREATE INDEX "Task_listId_status_openBlockers_seq_idx" ON "Task"("listId", "status", "openBlockers", "seq");
CREATE UNIQUE INDEX "Task_listId_seq_key" ON "Task"("listId", "seq");
CREATE TABLE "new_TaskEdge" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "listId" TEXT NOT NULL,
    "blockerId" TEXT NOT NULL,
    "blockedId" TEXT NOT NULL,
    CONSTRAINT "TaskEdge_listId_blockerId_fkey" FOREIGN KEY ("listId", "blockerId") REFERENCES "Task" ("listId", "id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "TaskEdge_listId_blockedId_fkey" FOREIGN KEY ("listId", "blockedId") REFERENCES "Task" ("listId", "id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_TaskEdge" ("blockedId", "blockerId", "id", "listId") SELECT "blockedId", "blockerId", "id", "listId" FROM "TaskEdge";
DROP TABLE "TaskEdge";
ALTER TABLE "new_TaskEdge" RENAME TO "TaskEdge";
CREATE INDEX "TaskEdge_listId_blockedId_idx" ON "TaskEdge"("listId", "blockedId");
CREATE UNIQUE INDEX "TaskEdge_listId_blockerId_blockedId_key" ON "TaskEdge"("listId", "blockerId", "blockedId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "TaskChange_listId_taskId_seq_idx" ON "TaskChange"("listId", "taskId", "seq");
