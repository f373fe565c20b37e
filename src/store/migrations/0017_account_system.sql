-- Xero's SystemAccount of an account (DEBTORS, CREDITORS, GST, …): which
-- account is the receivables or payables control account, so that the
-- account balances can be told from the documents when the ledger's Journals
-- are not available to Cashline (docs/sync.md "What Xero may not let Cashline
-- read"). Null for the accounts Xero does not mark.
ALTER TABLE "accounts" ADD COLUMN IF NOT EXISTS "system_account" text;
--> statement-breakpoint
-- Accounts synced before this column have no SystemAccount stored: the next
-- sync fetches the chart whole (it is small) instead of only what changed.
UPDATE "sync_watermarks" SET "modified_since" = NULL WHERE "resource" = 'Accounts';
