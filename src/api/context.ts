/** What the API's middleware and handlers share per request. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/db.js';
import type * as s from '../store/schema.js';
import type { Scope } from '../domain/scopes.js';
import type { BillingAlert, LedgerAlert } from '../schemas/common.js';
import type { Limiter, Usage } from './limits.js';
import type { SubscriptionInfo } from './envelope.js';

export interface Deps {
  store: Store;
  config: Config;
  clock: Clock;
  logger: Logger;
  limiter: Limiter;
  /** Signs list cursors (config CASHLINE_CURSOR_SECRET, else random per process). */
  cursorSecret: string;
}

export type OrgRow = typeof s.organisations.$inferSelect;
export type BillingRow = typeof s.billingAccounts.$inferSelect;

export interface AuthContext {
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
  /** The organisation this request reads (null for a partner's /status or /orgs without one). */
  orgId: string | null;
  org: OrgRow | null;
  billing: BillingRow | null;
  /** Who spends the credits: the user, or `partner:<id>`. */
  meterId: string;
  canSeeSensitive: boolean;
}

export interface Envelope {
  subscription: SubscriptionInfo | null;
  usage: Usage | null;
  quota: { limit: number; used: number; remaining: number; resetAt: Date } | null;
  billingAlert?: BillingAlert;
  ledgerAlert?: LedgerAlert;
}

export interface AppEnv {
  Variables: {
    deps: Deps;
    requestId: string;
    auth: AuthContext;
    envelope: Envelope;
    /** The endpoint's route template, e.g. /api/agent/contacts/:id */
    route: string;
  };
}

export type ApiApp = OpenAPIHono<AppEnv>;
