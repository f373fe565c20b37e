-- Hand-written (issue 21, "past one database"): named leases, the locks that
-- outlive one transaction without holding a session (a transaction pooler
-- such as PgBouncer gives each transaction any server connection, so a
-- session advisory lock would stay behind on a connection someone else then
-- uses). One row per lease held: its holder renews it while it runs and
-- deletes it when done; a holder that died leaves a row whose lease runs out
-- (or, on its own host, whose process is gone), and it is taken over.
-- The organisation's sync lock is one (`sync:<org id>`): src/store/claims.ts.
CREATE TABLE IF NOT EXISTS "leases" (
	"name" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"lease_until" timestamp with time zone NOT NULL,
	"acquired_at" timestamp with time zone NOT NULL
);
