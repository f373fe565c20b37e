-- Custom SQL migration (drizzle-kit generate --custom): not expressible in schema.ts.
-- KEEP THIS FILE when regenerating 0000_init (docs/lists.md, "Counts and totals").
--
-- Two summaries of cash_items, kept in step by statement-level triggers in the
-- writing transaction (so they are exactly as visible as the rows themselves):
-- - cash_item_counts: per (organisation, source, ledger type, ledger status,
--   currency) the number of items and the exact sum of their totals;
-- - cash_item_day_counts: the same per sort date as well.
-- The lists read totalCount and totals from them (a handful of rows, or a few
-- thousand for a date range over years) instead of counting up to hundreds of
-- thousands of items on every page. A contactId filter counts the items.
CREATE TABLE "cash_item_counts" (
	"org_id" text NOT NULL,
	"source" text NOT NULL,
	"ledger_type" text NOT NULL,
	"ledger_status" text NOT NULL,
	"currency" text NOT NULL,
	"n" bigint NOT NULL,
	"amount" numeric NOT NULL,
	CONSTRAINT "cash_item_counts_pk" PRIMARY KEY ("org_id","source","ledger_type","ledger_status","currency")
);
--> statement-breakpoint
CREATE TABLE "cash_item_day_counts" (
	"org_id" text NOT NULL,
	"source" text NOT NULL,
	"ledger_type" text NOT NULL,
	"sort_date" date NOT NULL,
	"ledger_status" text NOT NULL,
	"currency" text NOT NULL,
	"n" bigint NOT NULL,
	"amount" numeric NOT NULL,
	CONSTRAINT "cash_item_day_counts_pk" PRIMARY KEY ("org_id","source","ledger_type","sort_date","ledger_status","currency")
);
--> statement-breakpoint
-- Applies signed changes (a JSON array of per-day groups built by the triggers
-- from their transition tables) to both summaries; ordered, so concurrent
-- writers lock summary rows in one order (no deadlocks).
CREATE FUNCTION cash_item_counts_apply(delta jsonb) RETURNS void LANGUAGE sql AS $$
  WITH d AS (
    SELECT x.org_id, x.source, x.ledger_type, x.sort_date, x.ledger_status, x.currency, x.n, x.amount
    FROM jsonb_to_recordset(delta) AS x(org_id text, source text, ledger_type text, sort_date date, ledger_status text,
      currency text, n bigint, amount numeric)
  ), days AS (
    INSERT INTO cash_item_day_counts AS c (org_id, source, ledger_type, sort_date, ledger_status, currency, n, amount)
      SELECT org_id, source, ledger_type, sort_date, ledger_status, currency, sum(n), sum(amount)
      FROM d GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) <> 0 OR sum(amount) <> 0 ORDER BY 1, 2, 3, 4, 5, 6
    ON CONFLICT (org_id, source, ledger_type, sort_date, ledger_status, currency)
      DO UPDATE SET n = c.n + excluded.n, amount = c.amount + excluded.amount
    RETURNING 1
  )
  INSERT INTO cash_item_counts AS c (org_id, source, ledger_type, ledger_status, currency, n, amount)
    SELECT org_id, source, ledger_type, ledger_status, currency, sum(n), sum(amount)
    FROM d GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0 OR sum(amount) <> 0 ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (org_id, source, ledger_type, ledger_status, currency)
    DO UPDATE SET n = c.n + excluded.n, amount = c.amount + excluded.amount;
$$;
--> statement-breakpoint
CREATE FUNCTION cash_item_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM cash_item_counts_apply((
    SELECT coalesce(jsonb_agg(g), '[]'::jsonb) FROM (
      SELECT org_id, source, ledger_type, sort_date, ledger_status, currency, count(*) AS n, sum(total) AS amount
      FROM new_rows GROUP BY 1, 2, 3, 4, 5, 6) g));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION cash_item_counts_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM cash_item_counts_apply((
    SELECT coalesce(jsonb_agg(g), '[]'::jsonb) FROM (
      SELECT org_id, source, ledger_type, sort_date, ledger_status, currency, -count(*) AS n, -sum(total) AS amount
      FROM old_rows GROUP BY 1, 2, 3, 4, 5, 6) g));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION cash_item_counts_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM cash_item_counts_apply((
    SELECT coalesce(jsonb_agg(g), '[]'::jsonb) FROM (
      SELECT org_id, source, ledger_type, sort_date, ledger_status, currency, sum(n) AS n, sum(amount) AS amount
      FROM (
        SELECT org_id, source, ledger_type, sort_date, ledger_status, currency, -1 AS n, -total AS amount FROM old_rows
        UNION ALL
        SELECT org_id, source, ledger_type, sort_date, ledger_status, currency, 1, total FROM new_rows
      ) u
      GROUP BY 1, 2, 3, 4, 5, 6
      HAVING sum(n) <> 0 OR sum(amount) <> 0) g));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION cash_item_counts_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM cash_item_counts;
  DELETE FROM cash_item_day_counts;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER cash_item_counts_ins AFTER INSERT ON cash_items
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cash_item_counts_add();
--> statement-breakpoint
CREATE TRIGGER cash_item_counts_upd AFTER UPDATE ON cash_items
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION cash_item_counts_change();
--> statement-breakpoint
CREATE TRIGGER cash_item_counts_del AFTER DELETE ON cash_items
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION cash_item_counts_remove();
--> statement-breakpoint
CREATE TRIGGER cash_item_counts_trunc AFTER TRUNCATE ON cash_items
  FOR EACH STATEMENT EXECUTE FUNCTION cash_item_counts_truncate();
--> statement-breakpoint
-- Rows present before this migration (none on a fresh store).
SELECT cash_item_counts_apply((
  SELECT coalesce(jsonb_agg(g), '[]'::jsonb) FROM (
    SELECT org_id, source, ledger_type, sort_date, ledger_status, currency, count(*) AS n, sum(total) AS amount
    FROM cash_items GROUP BY 1, 2, 3, 4, 5, 6) g));
