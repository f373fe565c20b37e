/** The state one Xero-compatible server holds, shared by its request handlers. */
import type { ServerResponse } from 'node:http';
import type { XeroDataset } from './dataset.js';
import type { FaultQueue, RedirectHost } from './faults.js';
import type { RateLimiter } from './limits.js';
import type { TokenStore } from './tokens.js';
import type { WebhookSender } from './webhooks.js';

export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  at: number;
  /** Calls in flight (this one included) when it arrived. */
  inFlight: number;
  ifModifiedSince: string | null;
}

/** An authorisation code: single use, short-lived, bound to what the consent gave. */
export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  /** The S256 code_challenge of the authorise request. */
  challenge: string;
  scopes: string[];
  tenantIds: string[];
  expiresAt: number;
  used: boolean;
  /** The grant the code was exchanged for: a replay revokes it. */
  grantId: string | null;
}

/** An authorise request waiting for the user's decision on the consent page. */
export interface PendingConsent {
  clientId: string;
  redirectUri: string;
  state: string | null;
  challenge: string;
  scopes: string[];
  expiresAt: number;
}

/** How the identity service behaves (the server's options, resolved). */
export interface IdentityPolicy {
  autoConsent: boolean | 'deny';
  /** Which of the requested scopes the consent grants. */
  grantScopes: (requested: string[]) => string[];
  /** API paths the app may never call (403). */
  forbidden: string[];
  requireClientSecret: boolean;
  /** Redirect URIs accepted besides loopback ones. */
  redirectUris: string[];
}

export interface XeroState {
  host: string;
  clientId: string;
  clientSecret: string;
  /** The main dataset (the one tenant with books unless others were given with theirs). */
  data: XeroDataset;
  /** Every organisation the user may authorise, by tenant id (the dataset's first). */
  tenants: Map<string, XeroDataset>;
  tokens: TokenStore;
  codes: Map<string, CodeRecord>;
  pending: Map<string, PendingConsent>;
  policy: IdentityPolicy;
  faults: FaultQueue;
  limiter: RateLimiter;
  requests: RequestLogEntry[];
  /** Answers a `stall` fault keeps open (destroyed on close). */
  stalled: Set<ServerResponse>;
  /** The other host `redirect` faults point at. */
  redirectHost: RedirectHost;
  /** Where write events go (null without the `webhook` option). */
  webhooks: WebhookSender | null;
}
