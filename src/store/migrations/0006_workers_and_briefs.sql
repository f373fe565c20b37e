-- Hand-written (issue 6): the workers' claims, one row per (job, organisation),
-- and what a daily brief must rewrite for keys without READ_SENSITIVE.
-- docs/sync.md ("Workers") and docs/brief.md.
CREATE TABLE IF NOT EXISTS "worker_claims" (
	"job" text NOT NULL,
	"org_id" text NOT NULL REFERENCES "public"."organisations"("id"),
	"slot" text NOT NULL,
	"owner" text NOT NULL,
	"lease_until" timestamp with time zone NOT NULL,
	"done" boolean DEFAULT false NOT NULL,
	"claimed_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"error" text,
	CONSTRAINT "worker_claims_job_org_id_pk" PRIMARY KEY("job","org_id")
);
--> statement-breakpoint
ALTER TABLE "daily_briefs" ADD COLUMN IF NOT EXISTS "redactions" jsonb DEFAULT '[]'::jsonb NOT NULL;
