/**
 * The ledger connections' health as the envelope reads it (its ledgerAlert),
 * kept in process per organisation (issue 21; docs/api.md#key-cache): the
 * answer's pipeline then costs no query for it. Every change of a connection
 * drops its entry at once: in this process when made here
 * (`ledgerChangedHere`), in every other one within milliseconds (a trigger
 * notifies `cashline_ledger_changed`; store/key-revocations.ts listens).
 * Were that channel lost, the cache is emptied and each entry lives at most
 * its time-to-live (CASHLINE_KEY_CACHE_SECONDS, like the keys; 0: off);
 * behind a transaction pooler without DATABASE_DIRECT_URL it is emptied after
 * every poll (a second).
 */
import type { Db } from '../store/db.js';
import { ledgerHealth } from '../store/queries/connections.js';
import { ReadThroughCache } from './read-through-cache.js';

export class LedgerHealthCache extends ReadThroughCache<Awaited<ReturnType<typeof ledgerHealth>>> {
  /** The organisation's connection health (null without a connection), cached or read; drop(orgId) on a change, drop(null) when any may have changed. */
  lookup(db: Db, orgId: string) {
    return this.through(orgId, () => ledgerHealth(db, orgId));
  }
}
