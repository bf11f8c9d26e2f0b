-- DropIndex
DROP INDEX "TaskEdge_listId_blockedId_idx";

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_TaskList" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "taskSeq" INTEGER NOT NULL DEFAULT 0,
    "changeSeq" INTEGER NOT NULL DEFAULT 0,
    "staging" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "TaskList_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_TaskList" ("changeSeq", "createdAt", "id", "name", "taskSeq", "workspaceId") SELECT "changeSeq", "createdAt", "id", "name", "taskSeq", "workspaceId" FROM "TaskList";
DROP TABLE "TaskList";
ALTER TABLE "new_TaskList" RENAME TO "TaskList";
CREATE UNIQUE INDEX "TaskList_workspaceId_name_key" ON "TaskList"("workspaceId", "name");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "TaskEdge_listId_blockedId_blockerId_idx" ON "TaskEdge"("listId", "blockedId", "blockerId");
