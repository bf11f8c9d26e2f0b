-- A run's checklist in a row of its own (RunChecklist), out of the run's row that every step rewrites.
CREATE TABLE "RunChecklist" (
    "runId" TEXT NOT NULL,
    "taskContext" TEXT,
    "tasks" TEXT NOT NULL,
    "moves" TEXT NOT NULL,
    "remarks" TEXT NOT NULL,

    CONSTRAINT "RunChecklist_pkey" PRIMARY KEY ("runId")
);

ALTER TABLE "RunChecklist" ADD CONSTRAINT "RunChecklist_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- For one release the run's own columns for it stay and are still written, for replicas of the version before, which
-- read and write only them during a rolling upgrade: what such a replica writes there is carried to RunChecklist.
-- (Its body's semicolons are written \073: the migration runner splits its script at every semicolon.)
CREATE FUNCTION "run_checklist_from_run"() RETURNS trigger LANGUAGE plpgsql AS E'
BEGIN
  INSERT INTO "RunChecklist" ("runId", "taskContext", "tasks", "moves", "remarks")
  VALUES (NEW."id", NEW."taskContext", NEW."tasks", NEW."moves", NEW."remarks")
  ON CONFLICT ("runId") DO UPDATE SET "taskContext" = EXCLUDED."taskContext", "tasks" = EXCLUDED."tasks",
    "moves" = EXCLUDED."moves", "remarks" = EXCLUDED."remarks"\073
  RETURN NULL\073
END\073
';

CREATE TRIGGER "Run_checklist_to_RunChecklist" AFTER INSERT OR UPDATE OF "taskContext", "tasks", "moves", "remarks" ON "Run"
  FOR EACH ROW EXECUTE FUNCTION "run_checklist_from_run"();

-- Each run's checklist moves to its own row, after the trigger: the runner commits each statement on its own, and a
-- run an older replica made or revised meanwhile already has its row from the trigger, which is the newer one.
INSERT INTO "RunChecklist" ("runId", "taskContext", "tasks", "moves", "remarks")
SELECT "id", "taskContext", "tasks", "moves", "remarks" FROM "Run"
ON CONFLICT ("runId") DO NOTHING;
