-- AlterTable
ALTER TABLE "Task" ADD COLUMN "fileKeyTail" TEXT;
ALTER TABLE "Task" ADD COLUMN "parentId" TEXT;
ALTER TABLE "Task" ADD COLUMN "repoUrl" TEXT;
