-- AlterTable
ALTER TABLE "Task" ADD COLUMN     "fileKeyTail" TEXT,
ADD COLUMN     "parentId" TEXT,
ADD COLUMN     "repoUrl" TEXT;
