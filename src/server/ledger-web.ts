/**
 * Wires the API's ledger pages and webhook (src/api/routes/ledger-web.ts) to
 * the ledger side: the web consent (src/ledger/consent.ts) when XERO_CLIENT_ID
 * is set, and the prompt sync of the organisations a webhook names
 * (src/jobs/sync-trigger.ts) when the ledger can be synced from this process.
 */
import type { Config } from '../config.js';
import type { ConsentAnswer, ConsentFlow } from '../api/context.js';
import type { Logger } from '../log.js';
import type { Store } from '../store/db.js';
import { beginWebConsent, chooseWebTenant, finishWebConsent, type WebConsentContext } from '../ledger/consent.js';
import { ConsentError, type OAuthEndpoint, oauthEndpoint } from '../ledger/oauth.js';
import { loadKeyring, SealError } from '../ledger/seal.js';
import type { LedgerEndpoint, SyncResult } from '../ledger/sync/sync.js';
import { SyncTrigger } from '../jobs/sync-trigger.js';

/** A ledger-side refusal as the page shows it; anything else is a bug and propagates (a 500, logged). */
async function answer(fn: () => Promise<ConsentAnswer>): Promise<ConsentAnswer> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ConsentError) return { status: 'error', kind: err.kind, message: err.message };
    if (err instanceof SealError) return { status: 'error', kind: 'sealed', message: err.message };
    throw err;
  }
}

/** The web consent of this configuration, or undefined when XERO_CLIENT_ID is unset (the pages say so). */
export function consentFlow(config: Config, store: Store, logger: Logger, oauth?: OAuthEndpoint): ConsentFlow | undefined {
  let c: WebConsentContext;
  try {
    c = { db: store.db, ep: oauth ?? oauthEndpoint(config), keyring: loadKeyring(config), now: () => config.clock.now() };
  } catch (err) {
    logger.info({ reason: (err as Error).message }, 'web consent (GET /connect/xero) not configured');
    return undefined;
  }
  return {
    begin: (q, publicUrl) =>
      answer(async () => {
        const r = await beginWebConsent(c, q, publicUrl);
        return { status: 'redirect', url: r.redirect, state: r.state };
      }),
    finish: (q) =>
      answer(async () => {
        const r = await finishWebConsent(c, q);
        return r.status === 'connected' ? { status: 'connected', ...r.connected } : r;
      }),
    choose: (q) => answer(async () => ({ status: 'connected', ...(await chooseWebTenant(c, q)) })),
  };
}

/** The prompt sync of webhook-named organisations, when this process can sync (a ledger endpoint); undefined otherwise. */
export function webhookSyncs(
  config: Config,
  store: Store,
  logger: Logger,
  ledger: LedgerEndpoint | null,
  onSynced?: (r: SyncResult) => void,
): SyncTrigger | undefined {
  if (!ledger) return undefined;
  return new SyncTrigger({
    db: store.db,
    ledger,
    clock: config.clock,
    log: (level, msg, extra) => logger[level](extra ?? {}, msg),
    ...(onSynced ? { onSynced } : {}),
  });
}
