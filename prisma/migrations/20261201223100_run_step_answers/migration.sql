-- AlterTable
ALTER TABLE "RunStep" ADD COLUMN "answer" TEXT;
ALTER TABLE "RunStep" ADD COLUMN "fingerprint" TEXT;
