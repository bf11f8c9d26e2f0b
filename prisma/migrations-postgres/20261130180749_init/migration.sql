-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "Workspace" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "oneActiveRule" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Workspace_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "parentId" TEXT,
    "title" TEXT,
    "agentName" TEXT,
    "tokenHash" TEXT NOT NULL,
    "openedByKey" TEXT NOT NULL,
    "externalId" TEXT,
    "turnNumber" INTEGER NOT NULL DEFAULT 0,
    "turnState" TEXT NOT NULL DEFAULT 'none',
    "todoRevision" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SessionToken" (
    "tokenHash" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SessionToken_pkey" PRIMARY KEY ("tokenHash")
);

-- CreateTable
CREATE TABLE "TodoUpdate" (
    "id" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "turnNumber" INTEGER NOT NULL,
    "items" TEXT NOT NULL,
    "changes" TEXT NOT NULL,
    "pending" INTEGER NOT NULL,
    "inProgress" INTEGER NOT NULL,
    "completed" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TodoUpdate_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TaskList" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "taskSeq" INTEGER NOT NULL DEFAULT 0,
    "changeSeq" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TaskList_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Task" (
    "id" TEXT NOT NULL,
    "listId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "subject" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "activeForm" TEXT,
    "owner" TEXT,
    "metadata" TEXT NOT NULL,
    "threadId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "openBlockers" INTEGER NOT NULL DEFAULT 0,
    "rank" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Task_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TaskEdge" (
    "id" SERIAL NOT NULL,
    "listId" TEXT NOT NULL,
    "blockerId" TEXT NOT NULL,
    "blockedId" TEXT NOT NULL,

    CONSTRAINT "TaskEdge_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TaskChange" (
    "listId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "taskId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "sessionId" TEXT,
    "keyId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "changes" TEXT NOT NULL,
    "snapshot" TEXT NOT NULL,

    CONSTRAINT "TaskChange_pkey" PRIMARY KEY ("listId","seq")
);

-- CreateTable
CREATE TABLE "NotificationChannel" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'webhook',

    CONSTRAINT "NotificationChannel_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RunStart" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "parentRunId" TEXT,
    "skipNotificationCheck" BOOLEAN NOT NULL,
    "taskContext" TEXT,
    "runId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RunStart_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "parentRunId" TEXT,
    "startAttemptId" TEXT NOT NULL,
    "name" TEXT,
    "pendingName" TEXT,
    "executionNote" TEXT,
    "status" TEXT NOT NULL,
    "revising" BOOLEAN NOT NULL DEFAULT false,
    "attemptId" TEXT,
    "taskContext" TEXT,
    "connections" TEXT NOT NULL DEFAULT '[]',
    "notice" TEXT,
    "tasks" TEXT NOT NULL,
    "moves" TEXT NOT NULL,
    "remarks" TEXT NOT NULL,
    "cursor" INTEGER NOT NULL,
    "checklistOutcome" TEXT NOT NULL,
    "executionOutcome" TEXT NOT NULL,
    "taskOutcomes" TEXT NOT NULL,
    "taskTimes" TEXT NOT NULL,
    "currentSince" TIMESTAMP(3),
    "blocker" TEXT,
    "revision" INTEGER NOT NULL,
    "version" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "linkRevokedAt" TIMESTAMP(3),

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RunStep" (
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "task" INTEGER,
    "attemptId" TEXT,
    "evidence" TEXT,
    "outcome" TEXT,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RunStep_pkey" PRIMARY KEY ("runId","seq")
);

-- CreateTable
CREATE TABLE "OutboxMessage" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL,
    "nextAttemptAt" TIMESTAMP(3) NOT NULL,
    "deliveredAt" TIMESTAMP(3),
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "deadAt" TIMESTAMP(3),
    "retriedAt" TIMESTAMP(3),

    CONSTRAINT "OutboxMessage_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "McpSession" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "keyId" TEXT NOT NULL,
    "callerSessionId" TEXT,
    "agentSessionId" TEXT,
    "server" TEXT NOT NULL DEFAULT 'agent-tasks',
    "createdAt" TIMESTAMP(3) NOT NULL,
    "lastSeenAt" TIMESTAMP(3) NOT NULL,
    "closedAt" TIMESTAMP(3),

    CONSTRAINT "McpSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "StreamTicket" (
    "id" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "sessionToken" BOOLEAN NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "StreamTicket_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_tokenHash_key" ON "ApiKey"("tokenHash");

-- CreateIndex
CREATE INDEX "ApiKey_workspaceId_idx" ON "ApiKey"("workspaceId");

-- CreateIndex
CREATE UNIQUE INDEX "Session_tokenHash_key" ON "Session"("tokenHash");

-- CreateIndex
CREATE INDEX "Session_workspaceId_createdAt_idx" ON "Session"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "Session_parentId_idx" ON "Session"("parentId");

-- CreateIndex
CREATE UNIQUE INDEX "Session_workspaceId_externalId_key" ON "Session"("workspaceId", "externalId");

-- CreateIndex
CREATE INDEX "SessionToken_sessionId_createdAt_idx" ON "SessionToken"("sessionId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "TodoUpdate_sessionId_revision_key" ON "TodoUpdate"("sessionId", "revision");

-- CreateIndex
CREATE UNIQUE INDEX "TaskList_workspaceId_name_key" ON "TaskList"("workspaceId", "name");

-- CreateIndex
CREATE INDEX "Task_listId_status_seq_idx" ON "Task"("listId", "status", "seq");

-- CreateIndex
CREATE INDEX "Task_listId_status_openBlockers_seq_idx" ON "Task"("listId", "status", "openBlockers", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "Task_listId_seq_key" ON "Task"("listId", "seq");

-- CreateIndex
CREATE INDEX "TaskEdge_blockedId_idx" ON "TaskEdge"("blockedId");

-- CreateIndex
CREATE INDEX "TaskEdge_listId_idx" ON "TaskEdge"("listId");

-- CreateIndex
CREATE UNIQUE INDEX "TaskEdge_blockerId_blockedId_key" ON "TaskEdge"("blockerId", "blockedId");

-- CreateIndex
CREATE INDEX "TaskChange_taskId_seq_idx" ON "TaskChange"("taskId", "seq");

-- CreateIndex
CREATE INDEX "NotificationChannel_workspaceId_idx" ON "NotificationChannel"("workspaceId");

-- CreateIndex
CREATE UNIQUE INDEX "Run_startAttemptId_key" ON "Run"("startAttemptId");

-- CreateIndex
CREATE INDEX "Run_workspaceId_createdAt_idx" ON "Run"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "Run_sessionId_idx" ON "Run"("sessionId");

-- CreateIndex
CREATE UNIQUE INDEX "RunStep_runId_attemptId_key" ON "RunStep"("runId", "attemptId");

-- CreateIndex
CREATE UNIQUE INDEX "OutboxMessage_idempotencyKey_key" ON "OutboxMessage"("idempotencyKey");

-- CreateIndex
CREATE INDEX "OutboxMessage_deliveredAt_nextAttemptAt_idx" ON "OutboxMessage"("deliveredAt", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "OutboxMessage_channelId_deliveredAt_idx" ON "OutboxMessage"("channelId", "deliveredAt");

-- CreateIndex
CREATE INDEX "OutboxMessage_runId_idx" ON "OutboxMessage"("runId");

-- CreateIndex
CREATE INDEX "StreamTicket_expiresAt_idx" ON "StreamTicket"("expiresAt");

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Session" ADD CONSTRAINT "Session_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Session" ADD CONSTRAINT "Session_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Session"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SessionToken" ADD CONSTRAINT "SessionToken_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TodoUpdate" ADD CONSTRAINT "TodoUpdate_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TaskList" ADD CONSTRAINT "TaskList_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Task" ADD CONSTRAINT "Task_listId_fkey" FOREIGN KEY ("listId") REFERENCES "TaskList"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TaskEdge" ADD CONSTRAINT "TaskEdge_blockerId_fkey" FOREIGN KEY ("blockerId") REFERENCES "Task"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TaskEdge" ADD CONSTRAINT "TaskEdge_blockedId_fkey" FOREIGN KEY ("blockedId") REFERENCES "Task"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NotificationChannel" ADD CONSTRAINT "NotificationChannel_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RunStep" ADD CONSTRAINT "RunStep_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;
