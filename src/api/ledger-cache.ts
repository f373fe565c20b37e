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

type Health = Awaited<ReturnType<typeof ledgerHealth>>;

/** At most this many organisations are kept (the oldest out first). */
const MAX_ORGS = 10_000;

export class LedgerHealthCache {
  private readonly entries = new Map<string, { health: Health; until: number }>();
  /** Bumped by every drop and clear: a read that began before one does not keep what it read (it may predate the change). */
  private generation = 0;
  hits = 0;
  misses = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The organisation's connection health (null without a connection), cached or read. */
  async lookup(db: Db, orgId: string): Promise<Health> {
    if (this.ttlMs <= 0) return ledgerHealth(db, orgId);
    const e = this.entries.get(orgId);
    if (e && e.until > this.now()) {
      this.hits++;
      return e.health;
    }
    this.misses++;
    const started = this.generation;
    const health = await ledgerHealth(db, orgId);
    if (started === this.generation) {
      this.entries.delete(orgId);
      this.entries.set(orgId, { health, until: this.now() + this.ttlMs });
      if (this.entries.size > MAX_ORGS) this.entries.delete(this.entries.keys().next().value!);
    }
    return health;
  }

  /** The organisation's connection changed (null: any may have). */
  drop(orgId: string | null): void {
    this.generation++;
    if (orgId === null) this.entries.clear();
    else this.entries.delete(orgId);
  }

  get size(): number {
    return this.entries.size;
  }
}
