-- Custom SQL migration: every change of an organisation's ledger connection
-- notifies the channel `cashline_ledger_changed` with its organisation id (at
-- commit, and only if the change commits), whoever makes it: the sync, the
-- consent, an operator's SQL. API processes LISTEN there and drop the
-- connection's health from their cache (src/api/ledger-cache.ts; issue 21),
-- so that the envelope's ledgerAlert costs no query per request and is still
-- current within milliseconds. KEEP THIS FILE when regenerating 0000_init.
CREATE FUNCTION cashline_ledger_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('cashline_ledger_changed', CASE WHEN TG_OP = 'DELETE' THEN OLD.org_id ELSE NEW.org_id END);
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER ledger_connections_changed AFTER INSERT OR UPDATE OR DELETE ON ledger_connections
  FOR EACH ROW EXECUTE FUNCTION cashline_ledger_changed();
