-- CreateTable
CREATE TABLE "TaskListSettings" (
    "listId" TEXT NOT NULL,
    "requireEvidence" BOOLEAN NOT NULL DEFAULT false,
    "requireVerified" BOOLEAN NOT NULL DEFAULT false,
    "leaseMs" INTEGER,

    CONSTRAINT "TaskListSettings_pkey" PRIMARY KEY ("listId")
);

-- CreateTable
CREATE TABLE "TaskEvidence" (
    "id" SERIAL NOT NULL,
    "listId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "provenance" TEXT NOT NULL,
    "success" BOOLEAN NOT NULL,
    "body" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "TaskEvidence_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TaskLease" (
    "listId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "leaseMs" INTEGER NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "TaskLease_pkey" PRIMARY KEY ("listId","taskId")
);

-- CreateTable
CREATE TABLE "TaskRequirement" (
    "listId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "capability" TEXT NOT NULL,

    CONSTRAINT "TaskRequirement_pkey" PRIMARY KEY ("listId","taskId","capability")
);

-- CreateTable
CREATE TABLE "SessionCapability" (
    "sessionId" TEXT NOT NULL,
    "capability" TEXT NOT NULL,

    CONSTRAINT "SessionCapability_pkey" PRIMARY KEY ("sessionId","capability")
);

-- CreateTable
CREATE TABLE "GithubHookSecret" (
    "workspaceId" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "GithubHookSecret_pkey" PRIMARY KEY ("workspaceId")
);

-- CreateTable
CREATE TABLE "GithubDelivery" (
    "workspaceId" TEXT NOT NULL,
    "deliveryId" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "GithubDelivery_pkey" PRIMARY KEY ("workspaceId","deliveryId")
);

-- CreateIndex
CREATE INDEX "TaskEvidence_listId_taskId_id_idx" ON "TaskEvidence"("listId", "taskId", "id");

-- CreateIndex
CREATE INDEX "TaskLease_expiresAt_idx" ON "TaskLease"("expiresAt");
