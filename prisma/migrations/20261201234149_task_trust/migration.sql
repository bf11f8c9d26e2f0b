-- CreateTable
CREATE TABLE "TaskListSettings" (
    "listId" TEXT NOT NULL PRIMARY KEY,
    "requireEvidence" BOOLEAN NOT NULL DEFAULT false,
    "requireVerified" BOOLEAN NOT NULL DEFAULT false,
    "leaseMs" INTEGER
);

-- CreateTable
CREATE TABLE "TaskEvidence" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "listId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "provenance" TEXT NOT NULL,
    "success" BOOLEAN NOT NULL,
    "body" TEXT NOT NULL,
    "at" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "TaskLease" (
    "listId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "leaseMs" INTEGER NOT NULL,
    "expiresAt" DATETIME NOT NULL,

    PRIMARY KEY ("listId", "taskId")
);

-- CreateTable
CREATE TABLE "TaskRequirement" (
    "listId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "capability" TEXT NOT NULL,

    PRIMARY KEY ("listId", "taskId", "capability")
);

-- CreateTable
CREATE TABLE "SessionCapability" (
    "sessionId" TEXT NOT NULL,
    "capability" TEXT NOT NULL,

    PRIMARY KEY ("sessionId", "capability")
);

-- CreateTable
CREATE TABLE "GithubHookSecret" (
    "workspaceId" TEXT NOT NULL PRIMARY KEY,
    "secret" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "GithubDelivery" (
    "workspaceId" TEXT NOT NULL,
    "deliveryId" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "at" DATETIME NOT NULL,

    PRIMARY KEY ("workspaceId", "deliveryId")
);

-- CreateIndex
CREATE INDEX "TaskEvidence_listId_taskId_id_idx" ON "TaskEvidence"("listId", "taskId", "id");

-- CreateIndex
CREATE INDEX "TaskLease_expiresAt_idx" ON "TaskLease"("expiresAt");
