/**
 * The prompt sync a Xero webhook asks for (docs/sync.md "Webhooks"): the
 * serving process syncs each named organisation a moment after its events,
 * debounced so that a burst of events is one sync (`debounceMs` after the
 * last event, at most `maxWaitMs` after the first). A sync already running
 * for the organisation (here, in a worker, or the operator's `sync`) holds
 * its lease (src/store/claims.ts): the trigger waits and runs once more after it, since that run may
 * have started before the change. The webhook also marked the request in the
 * store, so a worker still syncs if this process dies first.
 */
import type { Clock } from '../clock.js';
import type { Db } from '../store/db.js';
import { syncLockKey, withLease } from '../store/claims.js';
import { type LedgerEndpoint, type SyncResult, syncOrganisation } from '../ledger/sync/sync.js';
import type { Log } from './worker.js';

export interface SyncTriggerOptions {
  db: Db;
  ledger: LedgerEndpoint;
  clock: Clock;
  debounceMs?: number;
  maxWaitMs?: number;
  log?: Log;
  /** After each prompt sync (tests, the demo's banner). */
  onSynced?: (r: SyncResult) => void;
}

interface Pending {
  timer: NodeJS.Timeout | null;
  firstAt: number;
  running: boolean;
  again: boolean;
}

export class SyncTrigger {
  private readonly pending = new Map<string, Pending>();
  private readonly runs = new Set<Promise<void>>();
  private closed = false;
  private readonly debounceMs: number;
  private readonly maxWaitMs: number;

  constructor(private readonly o: SyncTriggerOptions) {
    this.debounceMs = o.debounceMs ?? 1000;
    this.maxWaitMs = o.maxWaitMs ?? 5000;
  }

  /** The organisations' ledgers changed: sync each soon. */
  request(orgIds: readonly string[]): void {
    if (this.closed) return;
    for (const orgId of orgIds) {
      const p = this.pending.get(orgId) ?? { timer: null, firstAt: Date.now(), running: false, again: false };
      this.pending.set(orgId, p);
      if (p.running) {
        p.again = true;
        continue;
      }
      this.schedule(orgId, p);
    }
  }

  private schedule(orgId: string, p: Pending): void {
    if (p.timer) clearTimeout(p.timer);
    const wait = Math.max(0, Math.min(this.debounceMs, p.firstAt + this.maxWaitMs - Date.now()));
    p.timer = setTimeout(() => this.fire(orgId, p), wait);
  }

  private fire(orgId: string, p: Pending): void {
    p.timer = null;
    p.running = true;
    p.again = false;
    const run = this.sync(orgId).finally(() => {
      this.runs.delete(run);
      p.running = false;
      if (p.again && !this.closed) {
        p.firstAt = Date.now();
        this.schedule(orgId, p);
      } else {
        this.pending.delete(orgId);
      }
    });
    this.runs.add(run);
  }

  private async sync(orgId: string): Promise<void> {
    const { o } = this;
    try {
      const r = await withLease(o.db, syncLockKey(orgId), (held) =>
        syncOrganisation(o.db, orgId, { ...o.ledger, now: () => o.clock.now(), heartbeat: async () => held(), log: (l, m, x) => o.log?.(l, m, x) }),
      );
      if (!r) {
        // Another sync of this organisation is running; it may have read the ledger before the change.
        const p = this.pending.get(orgId);
        if (p) p.again = true;
        return;
      }
      o.log?.('info', 'webhook sync', { orgId, outcome: r.value.outcome, records: r.value.records, durationMs: r.value.durationMs });
      o.onSynced?.(r.value);
    } catch (err) {
      o.log?.('warn', 'webhook sync failed', { orgId, error: err instanceof Error ? err.message : String(err) });
    }
  }

  /** Stops scheduling and waits for the syncs under way. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.pending.values()) if (p.timer) clearTimeout(p.timer);
    await Promise.allSettled([...this.runs]);
  }
}
