-- DropIndex
DROP INDEX "TaskEdge_listId_blockedId_idx";

-- AlterTable
ALTER TABLE "TaskList" ADD COLUMN     "staging" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "TaskEdge_listId_blockedId_blockerId_idx" ON "TaskEdge"("listId", "blockedId", "blockerId");
