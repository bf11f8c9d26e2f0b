-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Task" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    CONSTRAINT "Task_listId_fkey" FOREIGN KEY ("listId") REFERENCES "TaskList" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Task" ("activeForm", "createdAt", "description", "id", "listId", "metadata", "openBlockers", "owner", "seq", "status", "subject", "threadId", "updatedAt", "version") SELECT "activeForm", "createdAt", "description", "id", "listId", "metadata", "openBlockers", "owner", "seq", "status", "subject", "threadId", "updatedAt", "version" FROM "Task";
DROP TABLE "Task";
ALTER TABLE "new_Task" RENAME TO "Task";
CREATE INDEX "Task_listId_status_seq_idx" ON "Task"("listId", "status", "seq");
CREATE INDEX "Task_listId_status_openBlockers_seq_idx" ON "Task"("listId", "status", "openBlockers", "seq");
CREATE UNIQUE INDEX "Task_listId_seq_key" ON "Task"("listId", "seq");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

