-- AlterTable
ALTER TABLE "RunStep" ADD COLUMN     "answer" TEXT,
ADD COLUMN     "fingerprint" TEXT;
