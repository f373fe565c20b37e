-- Custom SQL migration (hand-written, like 0001-0006; not in schema.ts): the
-- key a bill's reference is matched to a purchase order's number or
-- reference by when the forecast picks the bills that may match an order
-- (docs/forecast.md#history): lower-cased, without whitespace. An index on
-- it for bills, so that the pick is an index probe per order key instead of
-- computing the key of every bill. KEEP THIS FILE when regenerating 0000_init.
CREATE OR REPLACE FUNCTION cashline_reference_key(ref text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT translate(lower(ref), E' \t\n\r\f\x0b\u00a0\u2028\u2029\ufeff', '') $$;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "cash_items_bill_reference_key_idx" ON "cash_items" ("org_id", cashline_reference_key("reference")) WHERE "ledger_type" = 'ACCPAY';
