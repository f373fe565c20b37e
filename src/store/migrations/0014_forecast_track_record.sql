-- Custom SQL migration (hand-written, like 0001-0013): issue 18's track record
-- and what changed (docs/forecast.md#accuracy, #changes).
--
-- forecast_track_record: what the forecast said of each of its 13 weeks, kept
-- long after the snapshot itself is pruned, so that GET /forecast/accuracy can
-- compare it with what then moved. One row per (organisation, kind, week of
-- the forecast's as-of date): kind 'stored' is the first BASE snapshot the
-- recompute stored that week (seeded: written by the demo from the replay of
-- the six months before it started); kind 'replayed' is a cut-off of the
-- nightly calibration's replay of the organisation's own history (the
-- fallback while there are too few stored ones). `weeks` holds, per week, its
-- dates and the point forecast with P10 and P90 of inflow, outflow and closing.
CREATE TABLE IF NOT EXISTS "forecast_track_record" (
	"org_id" text NOT NULL,
	"kind" text NOT NULL,
	"week_of" date NOT NULL,
	"as_of_date" date NOT NULL,
	"snapshot_id" text,
	"computed_at" timestamp with time zone NOT NULL,
	"seeded" boolean DEFAULT false NOT NULL,
	"starting_cash" numeric NOT NULL,
	"weeks" jsonb NOT NULL,
	CONSTRAINT "forecast_track_record_pk" PRIMARY KEY ("org_id", "kind", "week_of")
);
--> statement-breakpoint
-- forecast_recompute_documents: the open documents a recompute forecast (its
-- amount due, total, due date and status then), one row per document, shared
-- by the snapshots of every scenario stored at that instant and deleted with
-- the last of them. GET /forecast/changes compares two of them to tell a
-- payment from an edit, a void or a moved due date.
CREATE TABLE IF NOT EXISTS "forecast_recompute_documents" (
	"org_id" text NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"document_id" text NOT NULL,
	"kind" text NOT NULL,
	"contact_id" text,
	"status" text NOT NULL,
	"total" numeric NOT NULL,
	"amount_due" numeric NOT NULL,
	"due_date" date,
	CONSTRAINT "forecast_recompute_documents_pk" PRIMARY KEY ("org_id", "computed_at", "document_id")
);
