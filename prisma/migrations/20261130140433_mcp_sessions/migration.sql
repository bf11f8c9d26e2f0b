-- CreateTable
CREATE TABLE "McpSession" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "keyId" TEXT NOT NULL,
    "callerSessionId" TEXT,
    "agentSessionId" TEXT,
    "createdAt" DATETIME NOT NULL,
    "lastSeenAt" DATETIME NOT NULL,
    "closedAt" DATETIME
);
