-- AlterTable
ALTER TABLE "RunStep" ADD COLUMN "prior" TEXT;
