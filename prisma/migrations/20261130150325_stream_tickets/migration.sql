-- CreateTable
CREATE TABLE "StreamTicket" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tokenHash" TEXT NOT NULL,
    "sessionToken" BOOLEAN NOT NULL,
    "expiresAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "StreamTicket_expiresAt_idx" ON "StreamTicket"("expiresAt");
