/**
 * A real API server on 127.0.0.1 (port 0) over a fresh store, for tests that
 * go through HTTP. Its clock is a ManualClock the test can move.
 */
import { ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startServer, type RunningServer } from '../../src/api/server.js';
import type { Limiter } from '../../src/api/limits.js';
import type { StoreKind } from '../../src/store/db.js';
import { createKey, createOrg, createPartner, createUser, linkPartner, type CreateOrgInput } from '../../src/store/tenancy.js';
import { SCOPES, type Scope } from '../../src/domain/scopes.js';
import { freshStore, type TestStore } from './store.js';

/** A fetch Response whose json() is untyped, for terse assertions in tests. */
export type JsonResponse = Omit<Response, 'json'> & { json(): Promise<any> };

export interface TestApi {
  url: string;
  store: TestStore;
  clock: ManualClock;
  server: RunningServer;
  close(): Promise<void>;
  /** An organisation with its owner and billing account. */
  org(input?: Partial<Omit<CreateOrgInput, 'now'>>): Promise<{ orgId: string; userId: string; billingAccountId: string }>;
  user(orgId: string): Promise<string>;
  /** A user key (all scopes by default). */
  key(orgId: string, scopes?: readonly Scope[], userId?: string): Promise<string>;
  partner(orgIds: string[], scopes?: readonly Scope[]): Promise<{ partnerId: string; key: string }>;
  get(path: string, key?: string | null, headers?: Record<string, string>): Promise<JsonResponse>;
}

export async function startTestApi(
  kind: StoreKind,
  opts: { now?: string; env?: Record<string, string>; limiter?: (store: TestStore) => Limiter } = {},
): Promise<TestApi> {
  const store = await freshStore(kind);
  const clock = new ManualClock(opts.now ?? '2026-11-23T09:00:00Z');
  const config = loadConfig({ CASHLINE_LOG_LEVEL: 'silent', CASHLINE_CURSOR_SECRET: 'test-cursor-secret-0123456789', ...opts.env });
  const server = await startServer({
    store,
    config,
    clock,
    logger: createLogger(config),
    host: '127.0.0.1',
    port: 0,
    ...(opts.limiter ? { limiter: opts.limiter(store) } : {}),
  });
  const api: TestApi = {
    url: server.url,
    store,
    clock,
    server,
    async close() {
      await server.close();
      await store.close();
    },
    org: (input = {}) => createOrg(store.db, { name: 'Test Org', ...input, now: clock.now() }),
    user: async (orgId) => (await createUser(store.db, { orgId, now: clock.now() })).userId,
    key: async (orgId, scopes = SCOPES, userId) =>
      (await createKey(store.db, { orgId, userId, scopes: [...scopes], now: clock.now() })).key,
    async partner(orgIds, scopes = SCOPES) {
      const { partnerId } = await createPartner(store.db, { name: 'Practice', now: clock.now() });
      for (const orgId of orgIds) await linkPartner(store.db, { partnerId, orgId, now: clock.now() });
      const { key } = await createKey(store.db, { partnerId, scopes: [...scopes], now: clock.now() });
      return { partnerId, key };
    },
    get: (path, key, headers = {}) =>
      fetch(`${server.url}${path}`, { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } }),
  };
  return api;
}
