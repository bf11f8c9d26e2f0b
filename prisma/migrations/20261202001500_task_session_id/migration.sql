-- The column holding the id of the session that created the task takes the one name of that concept (sessionId), and every row keeps its value.
ALTER TABLE "Task" RENAME COLUMN "threadId" TO "sessionId";
