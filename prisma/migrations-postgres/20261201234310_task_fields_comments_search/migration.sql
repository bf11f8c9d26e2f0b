-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "personNotes" TEXT NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "Task" ADD COLUMN     "labels" TEXT NOT NULL DEFAULT '[]',
ADD COLUMN     "priority" INTEGER NOT NULL DEFAULT 5;

-- CreateTable
CREATE TABLE "TaskComment" (
    "id" SERIAL NOT NULL,
    "listId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "author" TEXT NOT NULL,
    "byPerson" BOOLEAN NOT NULL,
    "keyId" TEXT NOT NULL,
    "sessionId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "TaskComment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TaskSearchText" (
    "id" SERIAL NOT NULL,
    "listId" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "comments" TEXT NOT NULL,

    CONSTRAINT "TaskSearchText_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TaskNoteRead" (
    "sessionId" TEXT NOT NULL,
    "listId" TEXT NOT NULL,
    "lastCommentId" INTEGER NOT NULL,

    CONSTRAINT "TaskNoteRead_pkey" PRIMARY KEY ("sessionId","listId")
);

-- CreateIndex
CREATE INDEX "TaskComment_listId_taskId_id_idx" ON "TaskComment"("listId", "taskId", "id");

-- CreateIndex
CREATE INDEX "TaskComment_listId_byPerson_id_idx" ON "TaskComment"("listId", "byPerson", "id");

-- CreateIndex
CREATE UNIQUE INDEX "TaskSearchText_listId_taskId_key" ON "TaskSearchText"("listId", "taskId");

-- CreateIndex
CREATE INDEX "Task_listId_status_openBlockers_priority_seq_idx" ON "Task"("listId", "status", "openBlockers", "priority", "seq");

-- AddForeignKey
ALTER TABLE "TaskComment" ADD CONSTRAINT "TaskComment_listId_taskId_fkey" FOREIGN KEY ("listId", "taskId") REFERENCES "Task"("listId", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TaskSearchText" ADD CONSTRAINT "TaskSearchText_listId_taskId_fkey" FOREIGN KEY ("listId", "taskId") REFERENCES "Task"("listId", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TaskNoteRead" ADD CONSTRAINT "TaskNoteRead_sessionId_fkey" FOREIGN KEY ("sessionId") REFERENCES "Session"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Full-text search: a GIN index on the weighted tsvector of "TaskSearchText" (subject A, description B, comments C);
-- the search query names the same expression.
CREATE INDEX "TaskSearchText_document_idx" ON "TaskSearchText" USING GIN ((
    setweight(to_tsvector('simple', "subject"), 'A') ||
    setweight(to_tsvector('simple', "description"), 'B') ||
    setweight(to_tsvector('simple', "comments"), 'C')
));
