-- Custom SQL migration (hand-written, like 0001-0007): the daily brief's
-- redaction is decided at read time (docs/brief.md#redaction). The brief
-- stores every contact and account it names, with its id (`mentions`), instead
-- of the names that were sensitive when it was written (`redactions`), and the
-- write-time flag `includes_sensitive` goes. Rows written before keep their
-- entries (without ids): the reader keeps those names hidden.
ALTER TABLE "daily_briefs" RENAME COLUMN "redactions" TO "mentions";
--> statement-breakpoint
ALTER TABLE "daily_briefs" DROP COLUMN IF EXISTS "includes_sensitive";
