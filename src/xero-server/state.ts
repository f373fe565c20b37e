/** The state one Xero-compatible server holds, shared by its request handlers. */
import type { ServerResponse } from 'node:http';
import type { XeroDataset } from './dataset.js';
import type { FaultQueue, RedirectHost } from './faults.js';
import type { RateLimiter } from './limits.js';
import type { TokenStore } from './tokens.js';

export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  at: number;
  /** Calls in flight (this one included) when it arrived. */
  inFlight: number;
  ifModifiedSince: string | null;
}

export interface XeroState {
  host: string;
  clientId: string;
  clientSecret: string;
  data: XeroDataset;
  tokens: TokenStore;
  faults: FaultQueue;
  limiter: RateLimiter;
  requests: RequestLogEntry[];
  /** Answers a `stall` fault keeps open (destroyed on close). */
  stalled: Set<ServerResponse>;
  /** The other host `redirect` faults point at. */
  redirectHost: RedirectHost;
}
