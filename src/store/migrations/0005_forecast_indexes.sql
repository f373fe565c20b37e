-- Custom SQL migration (hand-written, like 0001; not in schema.ts): partial
-- indexes for the forecast's reads (docs/forecast.md#speed). KEEP THIS FILE
-- when regenerating 0000_init.
-- - the unreconciled payments and bank transactions behind the cash position
--   (a few rows out of hundreds of thousands);
-- - the open invoices and bills (receivables ageing, the engine's open items).
CREATE INDEX IF NOT EXISTS "payments_unreconciled_idx" ON "payments" ("org_id", "bank_account_id") WHERE NOT "is_reconciled";
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "bank_transactions_unreconciled_idx" ON "bank_transactions" ("org_id", "bank_account_id") WHERE NOT "is_reconciled";
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "cash_items_open_idx" ON "cash_items" ("org_id", "source", "due_date") WHERE "ledger_status" IN ('AUTHORISED', 'DRAFT', 'SUBMITTED');
