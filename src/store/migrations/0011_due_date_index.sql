-- Custom SQL migration (hand-written, like 0001-0010): invoices and bills by
-- due date (the lists' dueFrom, dueTo and overdue filters, docs/lists.md).
CREATE INDEX IF NOT EXISTS "cash_items_due_idx" ON "cash_items" ("org_id", "source", "ledger_type", "due_date");
