/** What the API's middleware and handlers share per request (`c.get(...)`). */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Db, Store } from '../store/db.js';
import type { BillingRow, OrgRow } from '../store/rows.js';
import type { Scope } from '../domain/scopes.js';
import type { BillingAlert, LedgerAlert, Warning } from '../schemas/common.js';
import type { Limiter, SubscriptionStatus, Usage } from '../domain/plans.js';

import type { AuditLog } from '../store/audit.js';
import type { KeyCache } from './key-cache.js';
import type { LedgerHealthCache } from './ledger-cache.js';

export interface Deps {
  store: Store;
  config: Config;
  clock: Clock;
  logger: Logger;
  limiter: Limiter;
  /** Signs list cursors (config CASHLINE_CURSOR_SECRET, else random per process). */
  cursorSecret: string;
  /** Verified keys kept in process (key-cache.ts). */
  keys: KeyCache;
  /** The audit rows of this process, written in batches (store/audit.ts). */
  audit: AuditLog;
  /** The ledger connections' health the envelope reads, kept in process (ledger-cache.ts). */
  ledger: LedgerHealthCache;
  /** Where users reach the service (CASHLINE_PUBLIC_URL, else http://HOST:PORT): ledgerAlert links. */
  publicUrl: () => string;
  /** The web consent (GET /connect/xero), when the ledger is configured; wired by src/server (the API never talks to Xero itself). */
  consent?: ConsentFlow | undefined;
  /** Told which organisations a verified Xero webhook named (the serving process syncs them promptly); the store's request for a sync is made first. */
  onLedgerChanged?: ((orgIds: string[]) => void) | undefined;
}

/** A step of the web consent, as the pages show it. */
export type ConsentAnswer =
  | { status: 'redirect'; url: string; state: string }
  | { status: 'connected'; orgId: string; tenantId: string; tenantName: string; scopes: string[] }
  | { status: 'choose'; orgId: string; state: string; tenants: { tenantId: string; tenantName: string }[] }
  /** `kind` as the ledger side names it (bad_link, state_mismatch, access_denied, invalid_grant, …). */
  | { status: 'error'; kind: string; message: string };

/** The ledger side of the web consent (src/ledger/consent.ts, wired in src/server). */
export interface ConsentFlow {
  /** `publicUrl`: where this service is reached (the callback is /connect/xero/callback under it). */
  begin(q: { org?: string | undefined; expires?: string | undefined; sig?: string | undefined; tenant?: string | undefined }, publicUrl: string): Promise<ConsentAnswer>;
  finish(q: { state: string; code?: string | undefined; error?: string | undefined }): Promise<ConsentAnswer>;
  choose(q: { state: string; tenantId: string }): Promise<ConsentAnswer>;
}

export type { BillingRow, OrgRow };

/** The authenticated key, before tenancy (what the audit log records even when tenancy refuses). */
export interface KeyIdentity {
  keyId: string;
  keyPrefix: string;
  kind: 'USER' | 'PARTNER';
  scopes: Scope[];
  keyName: string;
  keyCreatedAt: Date;
  /** USER keys: the organisation the key is bound to. */
  keyOrgId: string | null;
  userId: string | null;
  partnerId: string | null;
  canSeeSensitive: boolean;
}

/** `c.get('auth')`: the key and the organisation this request reads. */
export interface AuthContext extends KeyIdentity {
  /** The target organisation (null for a partner key's /status or /orgs that names none). */
  orgId: string | null;
  org: OrgRow | null;
  /** The billing account owning the target organisation. */
  billing: BillingRow | null;
  /** Who spends the credits: the user id, or `partner:<partnerId>`. */
  meterId: string;
}

export interface SubscriptionInfo {
  status: SubscriptionStatus;
  plan: string;
  trialEndsAt: Date | null;
  /** Whole days left of the trial (rounded up), only while trialing. */
  trialDaysRemaining: number | null;
}

export interface QuotaInfo {
  limit: number;
  used: number;
  remaining: number;
  resetAt: Date;
}

/** `c.get('envelope')`: what every successful response reports (spec 2.1, 4.2). */
export interface Envelope {
  subscription: SubscriptionInfo;
  /** Null when the request targets no billing account (no credits are metered). */
  usage: Usage | null;
  /** The legacy daily bucket, as it stands before this call. */
  quota: QuotaInfo;
  billingAlert?: BillingAlert;
  ledgerAlert?: LedgerAlert;
}

export interface AppEnv {
  Variables: {
    deps: Deps;
    /** The store's handle (every route's queries take it). */
    db: Db;
    requestId: string;
    /** The endpoint's route template (Hono form), e.g. /api/agent/contacts/:id */
    route: string;
    /** Set once the bearer key is verified. */
    key: KeyIdentity;
    /** Internal: a user key's own organisation, read with the key. */
    keyOrg: { org: OrgRow; billing: BillingRow | null } | null;
    /** Set once tenancy has resolved the organisation. */
    auth: AuthContext;
    envelope: Envelope;
    /** What the request named that the answer ignores (folded into the body as `warnings` by withAlerts). */
    warnings: Warning[];
    /** Internal: whether the request reached the limits' admission (else its burst is counted after its refusal). */
    admitted: boolean;
    /** The credit window after this call's admission (null: no billing account behind the request). */
    usage: Usage | null;
    /** The legacy daily bucket's charged calls today, this one included when charged (null: no billing account behind the request). */
    dailyUsed: number | null;
    /** Internal: RateLimit-Policy / RateLimit items gathered for the response. */
    rateLimit: { policies: string[]; limits: string[] };
  };
}

export type ApiApp = OpenAPIHono<AppEnv>;
