-- A run's checklist in a row of its own (RunChecklist), out of the run's row that every step rewrites.
CREATE TABLE "RunChecklist" (
    "runId" TEXT NOT NULL PRIMARY KEY,
    "taskContext" TEXT,
    "tasks" TEXT NOT NULL,
    "moves" TEXT NOT NULL,
    "remarks" TEXT NOT NULL,
    CONSTRAINT "RunChecklist_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Each run's checklist moves to its own row.
INSERT INTO "RunChecklist" ("runId", "taskContext", "tasks", "moves", "remarks")
SELECT "id", "taskContext", "tasks", "moves", "remarks" FROM "Run";

-- The run's own columns for it stay one release, empty: no older version runs beside this one on SQLite.
UPDATE "Run" SET "taskContext" = NULL, "tasks" = '[]', "moves" = '[]', "remarks" = '[]';
