-- A step keeps the run fields it changed, as they were before it, instead of its whole answer.
ALTER TABLE "RunStep" ADD COLUMN "prior" TEXT;
