-- AlterTable
ALTER TABLE "Run" ADD COLUMN "linkRevokedAt" DATETIME;
