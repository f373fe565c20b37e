-- The Xero connection made by consent (docs/sync.md "Connect your Xero"):
-- what the consent granted and where the connection lives at Xero, the
-- resources the app may not read (a scope not granted, an endpoint Xero keeps
-- for other tiers of app), a webhook's request for a sync, and a disconnect.
ALTER TABLE "ledger_connections" ADD COLUMN IF NOT EXISTS "connection_id" text;
--> statement-breakpoint
ALTER TABLE "ledger_connections" ADD COLUMN IF NOT EXISTS "tenant_name" text;
--> statement-breakpoint
ALTER TABLE "ledger_connections" ADD COLUMN IF NOT EXISTS "scopes" text;
--> statement-breakpoint
ALTER TABLE "ledger_connections" ADD COLUMN IF NOT EXISTS "unavailable" jsonb DEFAULT '[]'::jsonb NOT NULL;
--> statement-breakpoint
ALTER TABLE "ledger_connections" ADD COLUMN IF NOT EXISTS "sync_requested_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "ledger_connections" ADD COLUMN IF NOT EXISTS "disconnected_at" timestamp with time zone;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "ledger_connections_tenant_idx" ON "ledger_connections" ("tenant_id");
--> statement-breakpoint
-- A consent under way on the web (GET /connect/xero): the PKCE verifier
-- (sealed), the redirect address, and once Xero answered with several
-- organisations, the tokens (sealed) and the organisations to choose from.
-- One use: deleted when the connection is made; expired rows are ignored.
CREATE TABLE IF NOT EXISTS "ledger_consents" (
	"org_id" text NOT NULL REFERENCES "organisations"("id"),
	"state" text NOT NULL,
	"verifier" text NOT NULL,
	"redirect_uri" text NOT NULL,
	"tenant_hint" text,
	"tokens" text,
	"tenants" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "ledger_consents_pk" PRIMARY KEY ("org_id", "state")
);
