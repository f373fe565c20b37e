-- Custom SQL migration (hand-written, like 0001): not expressible in schema.ts
-- (an expression key with INCLUDE columns). KEEP THIS FILE when regenerating.
--
-- The revenue and expenses summaries (docs/analytics.md) aggregate PAID items
-- by payment date, coalesce(paid_date, sort_date), per contact and per day.
-- This index answers them with an index-only range scan of the window instead
-- of a scan of the organisation's items.
-- (paid_date and sort_date are included so the scan is index-only: PostgreSQL
-- needs the expression's own columns for that.)
CREATE INDEX IF NOT EXISTS "cash_items_paid_idx" ON "cash_items" ("org_id", "source", "ledger_status", (coalesce("paid_date", "sort_date")))
  INCLUDE ("contact_id", "currency", "currency_rate", "sub_total", "paid_date", "sort_date");
--> statement-breakpoint
-- Their other statuses (items issued in the window, by ledger status): an
-- index-only range scan per status instead of a scan of the organisation's items.
CREATE INDEX IF NOT EXISTS "cash_items_status_day_idx" ON "cash_items" ("org_id", "source", "ledger_status", "sort_date")
  INCLUDE ("currency", "currency_rate", "total", "amount_due");
