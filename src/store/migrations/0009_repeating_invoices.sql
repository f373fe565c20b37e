-- Custom SQL migration (hand-written, like 0001-0008): Xero's repeating
-- invoices and bills, the schedules the forecast projects
-- (docs/forecast.md#schedules). Overpayments and prepayments need no table:
-- they are cash items (sources LEDGER_OVERPAYMENT and LEDGER_PREPAYMENT) with
-- their allocations in credit_note_allocations (docs/import.md).
CREATE TABLE IF NOT EXISTS "repeating_invoices" (
	"org_id" text NOT NULL REFERENCES "organisations"("id"),
	"id" text NOT NULL,
	"ledger_type" text NOT NULL,
	"contact_id" text,
	"status" text NOT NULL,
	"reference" text,
	"period" integer NOT NULL,
	"unit" text NOT NULL,
	"due_day" integer NOT NULL,
	"due_date_type" text NOT NULL,
	"start_date" date,
	"end_date" date,
	"next_scheduled_date" date,
	"currency" text NOT NULL,
	"line_amount_types" text,
	"sub_total" numeric NOT NULL,
	"total_tax" numeric NOT NULL,
	"total" numeric NOT NULL,
	"account_code" text,
	"last_synced_at" timestamp with time zone NOT NULL,
	CONSTRAINT "repeating_invoices_org_id_id_pk" PRIMARY KEY("org_id","id")
);
