-- Custom SQL migration (hand-written, like 0001-0012): what makes up each week
-- of a stored forecast snapshot (docs/forecast.md#items), written with the
-- snapshot by the recompute and read by GET /api/agent/forecast/items. One row
-- per (week, item, direction): its amount (the week's inflow and outflow are
-- exactly the sums of its rows), kind, document, contact, expected date,
-- probability and reason (an id into forecast_snapshot_reasons, which holds
-- each distinct wording of the snapshot once: an invoice spread over 13 weeks
-- has one wording, its `{chance}` filled in at read time from the row's
-- probability; storing the text per row made the write of a large ledger's
-- 45,000 rows four times slower). `seq` ranks the rows of a week (amount descending,
-- then item id, then in before out): the primary key is the page order.
-- Rows go with their snapshot (pruned, replaced, or its scenario removed),
-- deleted by the statements that delete it (no foreign key: checking one per
-- row tripled the cost of writing the tens of thousands of a large ledger).
-- forecast_snapshots.item_count: how many rows the snapshot stored; null for a
-- snapshot stored before this migration (its items are unknown: recompute).
ALTER TABLE "forecast_snapshots" ADD COLUMN IF NOT EXISTS "item_count" integer;
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "forecast_snapshot_items" (
	"org_id" text NOT NULL,
	"snapshot_id" text NOT NULL,
	"week_index" smallint NOT NULL,
	"seq" integer NOT NULL,
	"item_id" text NOT NULL,
	"direction" text NOT NULL,
	"kind" text NOT NULL,
	"document_id" text,
	"contact_id" text,
	"amount" numeric NOT NULL,
	"expected_date" date NOT NULL,
	"probability" double precision NOT NULL,
	"reason_code" text NOT NULL,
	"reason_id" integer NOT NULL,
	CONSTRAINT "forecast_snapshot_items_pk" PRIMARY KEY ("org_id", "snapshot_id", "week_index", "seq")
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "forecast_snapshot_reasons" (
	"org_id" text NOT NULL,
	"snapshot_id" text NOT NULL,
	"reason_id" integer NOT NULL,
	"template" text NOT NULL,
	CONSTRAINT "forecast_snapshot_reasons_pk" PRIMARY KEY ("org_id", "snapshot_id", "reason_id")
);
