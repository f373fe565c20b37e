CREATE TABLE "accounts" (
	"org_id" text NOT NULL,
	"id" text NOT NULL,
	"code" text,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"class" text,
	"status" text DEFAULT 'ACTIVE' NOT NULL,
	"currency" text,
	"bank_account_type" text,
	"is_sensitive" boolean DEFAULT false NOT NULL,
	"ledger_updated_at" timestamp with time zone,
	"last_synced_at" timestamp with time zone NOT NULL,
	CONSTRAINT "accounts_org_id_id_pk" PRIMARY KEY("org_id","id")
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"key_prefix" text NOT NULL,
	"kind" text NOT NULL,
	"secret_hash" text NOT NULL,
	"name" text NOT NULL,
	"scopes" text[] NOT NULL,
	"org_id" text,
	"user_id" text,
	"partner_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"org_id" text,
	"at" timestamp with time zone NOT NULL,
	"key_id" text,
	"key_prefix" text,
	"user_id" text,
	"partner_id" text,
	"method" text NOT NULL,
	"route" text NOT NULL,
	"status" integer NOT NULL,
	"tool" text,
	"request_id" text,
	"duration_ms" integer
);
--> statement-breakpoint
CREATE TABLE "bank_balances" (
	"org_id" text NOT NULL,
	"account_id" text NOT NULL,
	"reconciled_balance" numeric NOT NULL,
	"statement_balance" numeric,
	"balance_synced_at" timestamp with time zone NOT NULL,
	CONSTRAINT "bank_balances_org_id_account_id_pk" PRIMARY KEY("org_id","account_id")
);
--> statement-breakpoint
CREATE TABLE "bank_transactions" (
	"org_id" text NOT NULL,
	"id" text NOT NULL,
	"type" text NOT NULL,
	"contact_id" text,
	"bank_account_id" text NOT NULL,
	"date" date NOT NULL,
	"status" text NOT NULL,
	"is_reconciled" boolean DEFAULT false NOT NULL,
	"reference" text,
	"currency" text NOT NULL,
	"sub_total" numeric NOT NULL,
	"total_tax" numeric NOT NULL,
	"total" numeric NOT NULL,
	"lines" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"ledger_updated_at" timestamp with time zone,
	"last_synced_at" timestamp with time zone NOT NULL,
	CONSTRAINT "bank_transactions_org_id_id_pk" PRIMARY KEY("org_id","id")
);
--> statement-breakpoint
CREATE TABLE "billing_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"plan" text DEFAULT 'Free' NOT NULL,
	"subscription_status" text DEFAULT 'active' NOT NULL,
	"trial_ends_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "burst_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"route" text NOT NULL,
	"at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cash_item_lines" (
	"org_id" text NOT NULL,
	"item_id" text NOT NULL,
	"line_number" integer NOT NULL,
	"id" text NOT NULL,
	"description" text,
	"quantity" numeric,
	"unit_amount" numeric,
	"line_amount" numeric NOT NULL,
	"tax_amount" numeric NOT NULL,
	"tax_type" text,
	"account_code" text,
	"item_code" text,
	"discount_rate" numeric,
	"discount_amount" numeric,
	CONSTRAINT "cash_item_lines_org_id_item_id_line_number_pk" PRIMARY KEY("org_id","item_id","line_number")
);
--> statement-breakpoint
CREATE TABLE "cash_items" (
	"org_id" text NOT NULL,
	"id" text NOT NULL,
	"source" text NOT NULL,
	"ledger_type" text NOT NULL,
	"number" text,
	"reference" text,
	"contact_id" text,
	"ledger_status" text NOT NULL,
	"status" text NOT NULL,
	"currency" text NOT NULL,
	"currency_rate" numeric,
	"line_amount_types" text,
	"issue_date" date,
	"due_date" date,
	"paid_date" date,
	"sort_date" date NOT NULL,
	"sub_total" numeric NOT NULL,
	"total_tax" numeric NOT NULL,
	"total" numeric NOT NULL,
	"amount_due" numeric NOT NULL,
	"amount_paid" numeric NOT NULL,
	"amount_credited" numeric NOT NULL,
	"remaining_credit" numeric,
	"ledger_updated_at" timestamp with time zone,
	"last_synced_at" timestamp with time zone NOT NULL,
	CONSTRAINT "cash_items_org_id_id_pk" PRIMARY KEY("org_id","id")
);
--> statement-breakpoint
CREATE TABLE "cash_overrides" (
	"org_id" text PRIMARY KEY NOT NULL,
	"amount" numeric NOT NULL,
	"note" text,
	"set_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "contact_baselines" (
	"org_id" text NOT NULL,
	"contact_id" text NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"ltv" numeric,
	"abc_class" text,
	"cadence" text,
	"cadence_confidence" integer,
	"payment_delay_median_days" numeric,
	"revenue_all_time" numeric,
	"revenue_trailing_12m" numeric,
	"spend_all_time" numeric,
	"details" jsonb,
	CONSTRAINT "contact_baselines_org_id_contact_id_pk" PRIMARY KEY("org_id","contact_id")
);
--> statement-breakpoint
CREATE TABLE "contacts" (
	"org_id" text NOT NULL,
	"id" text NOT NULL,
	"name" text NOT NULL,
	"email" text,
	"contact_status" text DEFAULT 'ACTIVE' NOT NULL,
	"is_customer" boolean DEFAULT false NOT NULL,
	"is_supplier" boolean DEFAULT false NOT NULL,
	"is_sensitive" boolean DEFAULT false NOT NULL,
	"default_currency" text,
	"ledger_updated_at" timestamp with time zone,
	"last_synced_at" timestamp with time zone NOT NULL,
	CONSTRAINT "contacts_org_id_id_pk" PRIMARY KEY("org_id","id")
);
--> statement-breakpoint
CREATE TABLE "credit_events" (
	"org_id" text NOT NULL,
	"id" bigserial NOT NULL,
	"billing_account_id" text NOT NULL,
	"user_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "credit_events_org_id_id_pk" PRIMARY KEY("org_id","id")
);
--> statement-breakpoint
CREATE TABLE "credit_note_allocations" (
	"org_id" text NOT NULL,
	"credit_note_id" text NOT NULL,
	"seq" integer NOT NULL,
	"invoice_id" text,
	"invoice_number" text,
	"amount" numeric NOT NULL,
	"date" date,
	CONSTRAINT "credit_note_allocations_org_id_credit_note_id_seq_pk" PRIMARY KEY("org_id","credit_note_id","seq")
);
--> statement-breakpoint
CREATE TABLE "daily_briefs" (
	"org_id" text NOT NULL,
	"as_of_date" date NOT NULL,
	"generated_at" timestamp with time zone NOT NULL,
	"generator_tier" text NOT NULL,
	"includes_sensitive" boolean DEFAULT false NOT NULL,
	"payload" jsonb NOT NULL,
	CONSTRAINT "daily_briefs_org_id_as_of_date_pk" PRIMARY KEY("org_id","as_of_date")
);
--> statement-breakpoint
CREATE TABLE "derived_snapshots" (
	"org_id" text NOT NULL,
	"kind" text NOT NULL,
	"key" text DEFAULT '' NOT NULL,
	"engine_version" integer DEFAULT 1 NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"payload" jsonb NOT NULL,
	CONSTRAINT "derived_snapshots_org_id_kind_key_pk" PRIMARY KEY("org_id","kind","key")
);
--> statement-breakpoint
CREATE TABLE "forecast_scenarios" (
	"org_id" text NOT NULL,
	"id" text NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"adjustments" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "forecast_scenarios_org_id_id_pk" PRIMARY KEY("org_id","id")
);
--> statement-breakpoint
CREATE TABLE "forecast_snapshots" (
	"org_id" text NOT NULL,
	"id" text NOT NULL,
	"scenario_id" text NOT NULL,
	"engine_version" integer NOT NULL,
	"as_of_date" date NOT NULL,
	"computed_at" timestamp with time zone NOT NULL,
	"payload" jsonb NOT NULL,
	CONSTRAINT "forecast_snapshots_org_id_id_pk" PRIMARY KEY("org_id","id")
);
--> statement-breakpoint
CREATE TABLE "import_runs" (
	"org_id" text NOT NULL,
	"id" text NOT NULL,
	"kind" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone,
	"outcome" text,
	"counts" jsonb,
	CONSTRAINT "import_runs_org_id_id_pk" PRIMARY KEY("org_id","id")
);
--> statement-breakpoint
CREATE TABLE "journal_lines" (
	"org_id" text NOT NULL,
	"journal_id" text NOT NULL,
	"id" text NOT NULL,
	"journal_number" integer,
	"journal_date" date NOT NULL,
	"account_id" text,
	"account_code" text,
	"net_amount" numeric NOT NULL,
	"tax_amount" numeric NOT NULL,
	"source_type" text,
	"source_id" text,
	CONSTRAINT "journal_lines_org_id_journal_id_id_pk" PRIMARY KEY("org_id","journal_id","id")
);
--> statement-breakpoint
CREATE TABLE "ledger_connections" (
	"org_id" text PRIMARY KEY NOT NULL,
	"provider" text DEFAULT 'xero' NOT NULL,
	"tenant_id" text NOT NULL,
	"access_token" text,
	"access_token_expires_at" timestamp with time zone,
	"refresh_token" text,
	"token_state" text DEFAULT 'ok' NOT NULL,
	"breaker_state" text DEFAULT 'closed' NOT NULL,
	"breaker_opened_at" timestamp with time zone,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"last_successful_sync" timestamp with time zone,
	"last_attempt_at" timestamp with time zone,
	"last_error_at" timestamp with time zone,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "memberships" (
	"org_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text DEFAULT 'member' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "memberships_org_id_user_id_pk" PRIMARY KEY("org_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "organisations" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"timezone" text DEFAULT 'Australia/Sydney' NOT NULL,
	"base_currency" text DEFAULT 'AUD' NOT NULL,
	"fy_end_day" integer DEFAULT 30 NOT NULL,
	"fy_end_month" integer DEFAULT 6 NOT NULL,
	"billing_account_id" text,
	"ledger_tenant_id" text,
	"gross_margin_override" numeric,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "partner_links" (
	"partner_id" text NOT NULL,
	"org_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "partner_links_partner_id_org_id_pk" PRIMARY KEY("partner_id","org_id")
);
--> statement-breakpoint
CREATE TABLE "partners" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "payments" (
	"org_id" text NOT NULL,
	"id" text NOT NULL,
	"item_id" text,
	"bank_account_id" text,
	"date" date NOT NULL,
	"amount" numeric NOT NULL,
	"currency_rate" numeric,
	"payment_type" text,
	"status" text NOT NULL,
	"reference" text,
	"is_reconciled" boolean DEFAULT false NOT NULL,
	"ledger_updated_at" timestamp with time zone,
	"last_synced_at" timestamp with time zone NOT NULL,
	CONSTRAINT "payments_org_id_id_pk" PRIMARY KEY("org_id","id")
);
--> statement-breakpoint
CREATE TABLE "purchase_order_lines" (
	"org_id" text NOT NULL,
	"purchase_order_id" text NOT NULL,
	"line_number" integer NOT NULL,
	"description" text,
	"quantity" numeric,
	"unit_amount" numeric,
	"line_amount" numeric NOT NULL,
	"tax_amount" numeric,
	"account_code" text,
	"item_code" text,
	CONSTRAINT "purchase_order_lines_org_id_purchase_order_id_line_number_pk" PRIMARY KEY("org_id","purchase_order_id","line_number")
);
--> statement-breakpoint
CREATE TABLE "purchase_orders" (
	"org_id" text NOT NULL,
	"id" text NOT NULL,
	"number" text NOT NULL,
	"reference" text DEFAULT '' NOT NULL,
	"contact_id" text,
	"status" text NOT NULL,
	"currency" text NOT NULL,
	"issue_date" date,
	"delivery_date" date,
	"expected_arrival_date" date,
	"sort_date" date NOT NULL,
	"sub_total" numeric NOT NULL,
	"total_tax" numeric NOT NULL,
	"total" numeric NOT NULL,
	"suppressed_reason" text,
	"ledger_updated_at" timestamp with time zone,
	"last_synced_at" timestamp with time zone NOT NULL,
	CONSTRAINT "purchase_orders_org_id_id_pk" PRIMARY KEY("org_id","id")
);
--> statement-breakpoint
CREATE TABLE "sync_watermarks" (
	"org_id" text NOT NULL,
	"resource" text NOT NULL,
	"modified_since" timestamp with time zone,
	"next_page" integer DEFAULT 1 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sync_watermarks_org_id_resource_pk" PRIMARY KEY("org_id","resource")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_balances" ADD CONSTRAINT "bank_balances_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_transactions" ADD CONSTRAINT "bank_transactions_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cash_items" ADD CONSTRAINT "cash_items_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cash_overrides" ADD CONSTRAINT "cash_overrides_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contact_baselines" ADD CONSTRAINT "contact_baselines_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_events" ADD CONSTRAINT "credit_events_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "daily_briefs" ADD CONSTRAINT "daily_briefs_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "derived_snapshots" ADD CONSTRAINT "derived_snapshots_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forecast_scenarios" ADD CONSTRAINT "forecast_scenarios_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "forecast_snapshots" ADD CONSTRAINT "forecast_snapshots_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "import_runs" ADD CONSTRAINT "import_runs_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journal_lines" ADD CONSTRAINT "journal_lines_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ledger_connections" ADD CONSTRAINT "ledger_connections_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "organisations" ADD CONSTRAINT "organisations_billing_account_id_billing_accounts_id_fk" FOREIGN KEY ("billing_account_id") REFERENCES "public"."billing_accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_links" ADD CONSTRAINT "partner_links_partner_id_partners_id_fk" FOREIGN KEY ("partner_id") REFERENCES "public"."partners"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "partner_links" ADD CONSTRAINT "partner_links_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "purchase_orders" ADD CONSTRAINT "purchase_orders_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sync_watermarks" ADD CONSTRAINT "sync_watermarks_org_id_organisations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "accounts_code_idx" ON "accounts" USING btree ("org_id","code");--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_prefix_key" ON "api_keys" USING btree ("key_prefix");--> statement-breakpoint
CREATE INDEX "audit_log_org_idx" ON "audit_log" USING btree ("org_id","at");--> statement-breakpoint
CREATE INDEX "bank_transactions_date_idx" ON "bank_transactions" USING btree ("org_id","date");--> statement-breakpoint
CREATE INDEX "burst_events_window_idx" ON "burst_events" USING btree ("key_id","route","at");--> statement-breakpoint
CREATE INDEX "cash_items_list_idx" ON "cash_items" USING btree ("org_id","source","ledger_type","sort_date","id","ledger_status","currency","total","contact_id");--> statement-breakpoint
CREATE INDEX "cash_items_contact_idx" ON "cash_items" USING btree ("org_id","contact_id","source","sort_date","id");--> statement-breakpoint
CREATE INDEX "contacts_recent_idx" ON "contacts" USING btree ("org_id","last_synced_at","id");--> statement-breakpoint
CREATE INDEX "credit_events_window_idx" ON "credit_events" USING btree ("billing_account_id","user_id","at");--> statement-breakpoint
CREATE INDEX "forecast_snapshots_latest_idx" ON "forecast_snapshots" USING btree ("org_id","scenario_id","computed_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "journal_lines_account_idx" ON "journal_lines" USING btree ("org_id","account_id","journal_date");--> statement-breakpoint
CREATE INDEX "memberships_user_idx" ON "memberships" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "organisations_slug_key" ON "organisations" USING btree ("slug");--> statement-breakpoint
CREATE INDEX "partner_links_org_idx" ON "partner_links" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "payments_item_idx" ON "payments" USING btree ("org_id","item_id");--> statement-breakpoint
CREATE INDEX "payments_date_idx" ON "payments" USING btree ("org_id","date");--> statement-breakpoint
CREATE INDEX "purchase_orders_list_idx" ON "purchase_orders" USING btree ("org_id","sort_date","id","status","currency","total","contact_id");