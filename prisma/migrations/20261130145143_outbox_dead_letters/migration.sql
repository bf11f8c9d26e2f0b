-- AlterTable
ALTER TABLE "OutboxMessage" ADD COLUMN "deadAt" DATETIME;
ALTER TABLE "OutboxMessage" ADD COLUMN "retriedAt" DATETIME;

-- CreateIndex
CREATE INDEX "OutboxMessage_channelId_deliveredAt_idx" ON "OutboxMessage"("channelId", "deliveredAt");
