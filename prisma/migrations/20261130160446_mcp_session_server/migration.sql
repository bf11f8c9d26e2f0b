-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_McpSession" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "keyId" TEXT NOT NULL,
    "callerSessionId" TEXT,
    "agentSessionId" TEXT,
    "server" TEXT NOT NULL DEFAULT 'agent-tasks',
    "createdAt" DATETIME NOT NULL,
    "lastSeenAt" DATETIME NOT NULL,
    "closedAt" DATETIME
);
INSERT INTO "new_McpSession" ("agentSessionId", "callerSessionId", "closedAt", "createdAt", "id", "keyId", "lastSeenAt", "workspaceId") SELECT "agentSessionId", "callerSessionId", "closedAt", "createdAt", "id", "keyId", "lastSeenAt", "workspaceId" FROM "McpSession";
DROP TABLE "McpSession";
ALTER TABLE "new_McpSession" RENAME TO "McpSession";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
