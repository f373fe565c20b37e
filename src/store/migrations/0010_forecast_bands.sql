-- Custom SQL migration (hand-written, like 0001-0009): the forecast's
-- calibration (docs/forecast.md#calibration), computed by the nightly job from
-- the organisation's replayed history and read by every forecast recompute,
-- and the organisation's cash buffer (the shortfall threshold; none: 0).
CREATE TABLE IF NOT EXISTS "forecast_calibrations" (
	"org_id" text PRIMARY KEY NOT NULL REFERENCES "organisations"("id"),
	"as_of" date NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"state" jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN IF NOT EXISTS "cash_buffer" numeric;
