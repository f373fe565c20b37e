-- Custom SQL migration (hand-written, like 0001-0011): the lists' `q` search
-- (docs/lists.md#q). KEEP THIS FILE when regenerating 0000_init.
--
-- A search is a case- and accent-insensitive substring match:
--   cashline_search_fold(column) LIKE '%' || cashline_search_fold(q) || '%'
-- answered by trigram (pg_trgm) GIN indexes on the folded columns. unaccent()
-- is only STABLE (its dictionary could change), so an index cannot use it
-- directly: cashline_search_fold wraps its two-argument form, with the
-- dictionary named, in an IMMUTABLE function (the usual f_unaccent pattern).
-- PL/pgSQL rather than SQL: never inlined, so the queries' expression is the
-- indexes' expression, and a call costs half a non-inlined SQL function's
-- (what a search the indexes cannot narrow, one or two characters, pays per
-- row). The trigram indexes are not in schema.ts (drizzle-kit cannot express
-- an expression with an operator class).
--
-- Both extensions are trusted (PostgreSQL 13+): the database owner may create
-- them; PGlite loads them through openStore (src/store/db.ts). They go into
-- `public` and are named with it, so a store living in another schema (the
-- tests') finds them however its search_path is set.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
--> statement-breakpoint
CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION cashline_search_fold(t text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
BEGIN
  RETURN lower(public.unaccent('public.unaccent'::regdictionary, t));
END
$$;
--> statement-breakpoint
-- Invoices, bills and credit notes by number and reference.
CREATE INDEX IF NOT EXISTS "cash_items_search_idx" ON "cash_items" USING gin (
  cashline_search_fold("number") public.gin_trgm_ops,
  cashline_search_fold("reference") public.gin_trgm_ops
);
--> statement-breakpoint
-- Contacts by name and email (and the documents' search by contact name).
CREATE INDEX IF NOT EXISTS "contacts_search_idx" ON "contacts" USING gin (
  cashline_search_fold("name") public.gin_trgm_ops,
  cashline_search_fold("email") public.gin_trgm_ops
);
--> statement-breakpoint
-- Purchase orders by number.
CREATE INDEX IF NOT EXISTS "purchase_orders_search_idx" ON "purchase_orders" USING gin (
  cashline_search_fold("number") public.gin_trgm_ops
);
--> statement-breakpoint
-- Purchase orders by contact (the search by supplier name is `contact_id =
-- any(<the matching contacts>)`, OR-ed with the number: each side of the OR
-- needs an index for the two to be one bitmap scan). Also declared in schema.ts.
CREATE INDEX IF NOT EXISTS "purchase_orders_contact_idx" ON "purchase_orders" ("org_id", "contact_id");
