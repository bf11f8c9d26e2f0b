-- DropForeignKey
ALTER TABLE "TaskEdge" DROP CONSTRAINT "TaskEdge_blockedId_fkey";

-- DropForeignKey
ALTER TABLE "TaskEdge" DROP CONSTRAINT "TaskEdge_blockerId_fkey";

-- DropIndex
DROP INDEX "TaskChange_taskId_seq_idx";

-- DropIndex
DROP INDEX "TaskEdge_blockedId_idx";

-- DropIndex
DROP INDEX "TaskEdge_blockerId_blockedId_key";

-- DropIndex
DROP INDEX "TaskEdge_listId_idx";

-- AlterTable
ALTER TABLE "Task" DROP CONSTRAINT "Task_pkey",
ADD CONSTRAINT "Task_pkey" PRIMARY KEY ("listId", "id");

-- CreateIndex
CREATE INDEX "TaskChange_listId_taskId_seq_idx" ON "TaskChange"("listId", "taskId", "seq");

-- CreateIndex
CREATE INDEX "TaskEdge_listId_blockedId_idx" ON "TaskEdge"("listId", "blockedId");

-- CreateIndex
CREATE UNIQUE INDEX "TaskEdge_listId_blockerId_blockedId_key" ON "TaskEdge"("listId", "blockerId", "blockedId");

-- AddForeignKey
ALTER TABLE "TaskEdge" ADD CONSTRAINT "TaskEdge_listId_blockerId_fkey" FOREIGN KEY ("listId", "blockerId") REFERENCES "Task"("listId", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TaskEdge" ADD CONSTRAINT "TaskEdge_listId_blockedId_fkey" FOREIGN KEY ("listId", "blockedId") REFERENCES "Task"("listId", "id") ON DELETE CASCADE ON UPDATE CASCADE;
