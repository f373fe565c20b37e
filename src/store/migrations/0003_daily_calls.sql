-- Custom SQL migration: the legacy per-organisation daily quota as a counter.
-- KEEP THIS FILE when regenerating 0000_init.
--
-- One row per (organisation, UTC day): the charged calls of that day (answers
-- 2xx or 404 of any endpoint but /status; decisions.md), incremented in the
-- same statement that writes the call's audit row (src/store/audit.ts), so the
-- envelope reads one row instead of counting the day's audit rows.
CREATE TABLE "org_daily_calls" (
	"org_id" text NOT NULL,
	"day" date NOT NULL,
	"n" bigint NOT NULL,
	CONSTRAINT "org_daily_calls_pk" PRIMARY KEY ("org_id","day")
);
--> statement-breakpoint
INSERT INTO "org_daily_calls" ("org_id", "day", "n")
SELECT "org_id", ("at" AT TIME ZONE 'UTC')::date, count(*)
FROM "audit_log"
WHERE "org_id" IS NOT NULL AND ("status" BETWEEN 200 AND 299 OR "status" = 404) AND "route" <> '/api/agent/status'
GROUP BY 1, 2;
