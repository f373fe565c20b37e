/**
 * Key revocations as they happen (issue 21; docs/api.md#key-cache): every
 * revocation notifies PostgreSQL's channel `cashline_key_revoked` with the
 * key's prefix (inside the revoking statement's transaction, so it is sent
 * only if the revocation commits) and, after it, this process's listeners.
 * `watchRevocations` is how an API process hears of revocations made by any
 * other process on the same database (a LISTEN connection of its own), so
 * that its key cache drops the key within milliseconds; when that connection
 * is lost, the watcher says so (the cache is then emptied and relies on its
 * time-to-live until it is back).
 *
 * LISTEN needs a session of its own, which a transaction pooler does not
 * keep: behind PgBouncer the watcher listens on DATABASE_DIRECT_URL, a
 * connection straight to the server, or, without one, polls: every second it
 * asks which of the keys the process holds are revoked (or gone), so the
 * bound is a second whatever the cache's time-to-live (docs/scaling.md
 * "PgBouncer").
 *
 * The same watcher hears of changes to the organisations' ledger connections
 * (`cashline_ledger_changed`, notified by a trigger: migration 0020), which
 * the API caches for the envelope's ledgerAlert (src/api/ledger-cache.ts).
 */
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { type Db, rows } from './db.js';

export const REVOCATION_CHANNEL = 'cashline_key_revoked';
/** Notified (migration 0020, a trigger) with the organisation id on every change of its ledger connection. */
export const LEDGER_CHANNEL = 'cashline_ledger_changed';

/** This process's revocations (listeners: the key caches of the API instances it runs). */
const local = new EventEmitter();
local.setMaxListeners(0);

/** Tells this process's listeners and, on PostgreSQL, every other process: call inside the revoking transaction for the latter. */
export async function announceRevocations(db: Pick<Db, 'execute'>, prefixes: readonly string[]): Promise<void> {
  for (const p of prefixes) await db.execute(sql`select pg_notify(${REVOCATION_CHANNEL}, ${p})`);
}

/** After the revocation committed: this process's caches drop the keys at once. */
export function revokedHere(prefixes: readonly string[]): void {
  for (const p of prefixes) local.emit('revoked', p);
}

/**
 * After a change of the organisation's ledger connection made in this
 * process: its caches drop the connection's health at once (other processes
 * hear of it from the trigger's notification).
 */
export function ledgerChangedHere(orgId: string): void {
  local.emit('ledger', orgId);
}

export interface RevocationWatch {
  close(): Promise<void>;
}

/** Of these key prefixes, those whose key is revoked or no longer exists (one query, an index look-up each). */
export async function revokedAmong(db: Db, prefixes: readonly string[]): Promise<string[]> {
  if (prefixes.length === 0) return [];
  const got = await rows<{ prefix: string }>(
    db,
    sql`select p.value as prefix from jsonb_array_elements_text(${JSON.stringify(prefixes)}::jsonb) p
        where not exists (select 1 from api_keys k where k.key_prefix = p.value and k.revoked_at is null)`,
  );
  return got.map((r) => r.prefix);
}

export interface WatchOptions {
  /** A pool one of whose connections may be held for LISTEN (Store.listen). */
  listen?: pg.Pool | undefined;
  /**
   * Without `listen` on PostgreSQL (behind a transaction pooler): every
   * `everyMs` (default 1000), the keys of `cached()` that are revoked or gone
   * are reported.
   */
  poll?: { db: Db; cached: () => Iterable<string>; everyMs?: number } | undefined;
  onRevoked: (prefix: string) => void;
  /** An organisation's ledger connection changed (null: any may have: behind a pooler, after every poll). */
  onLedgerChanged?: (orgId: string | null) => void;
  onLost: (err: Error) => void;
  retryMs?: number;
}

/**
 * Calls `onRevoked(prefix)` for every revocation made in this process and,
 * with a `listen` pool, in any process on that database (one of the pool's
 * connections is held for LISTEN); `onLost(err)` when that connection is
 * lost (it is retried every `retryMs`, `onLost` called on each failure).
 * With `poll` instead, revocations elsewhere are found by asking the store
 * (a failed poll is `onLost` too; the next one catches up).
 */
export function watchRevocations(opts: WatchOptions): RevocationWatch {
  const here = (p: string) => opts.onRevoked(p);
  const ledgerHere = (orgId: string) => opts.onLedgerChanged?.(orgId);
  local.on('revoked', here);
  local.on('ledger', ledgerHere);
  const unhook = () => {
    local.off('revoked', here);
    local.off('ledger', ledgerHere);
  };
  if (!opts.listen && opts.poll) return pollRevocations(opts.poll, opts, unhook);
  let client: pg.PoolClient | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  const retry = (err: Error) => {
    if (closed) return;
    opts.onLost(err);
    timer = setTimeout(() => void connect(), opts.retryMs ?? 1000);
    timer.unref();
  };
  const connect = async () => {
    if (closed || !opts.listen) return;
    let c: pg.PoolClient;
    try {
      c = await opts.listen.connect();
    } catch (err) {
      return retry(err as Error);
    }
    const lost = (err: Error) => {
      if (client !== c) return;
      client = null;
      c.release(err);
      retry(err);
    };
    c.on('error', lost);
    c.on('end', () => lost(new Error('the LISTEN connection ended')));
    c.on('notification', (n) => {
      if (n.channel === REVOCATION_CHANNEL && n.payload) opts.onRevoked(n.payload);
      if (n.channel === LEDGER_CHANNEL && n.payload) opts.onLedgerChanged?.(n.payload);
    });
    client = c;
    try {
      await c.query(`LISTEN ${REVOCATION_CHANNEL}; LISTEN ${LEDGER_CHANNEL}`);
      if (closed) await release();
    } catch (err) {
      lost(err as Error);
    }
  };
  const release = async () => {
    const c = client;
    client = null;
    // Destroyed, never returned to the pool still listening.
    c?.release(true);
  };
  void connect();
  return {
    async close() {
      closed = true;
      unhook();
      if (timer) clearTimeout(timer);
      await release();
    },
  };
}

function pollRevocations(poll: NonNullable<WatchOptions['poll']>, opts: Pick<WatchOptions, 'onRevoked' | 'onLedgerChanged' | 'onLost'>, stop: () => void): RevocationWatch {
  let closed = false;
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (running) return; // the previous poll is still waiting for its answer
    running = (async () => {
      const cached = [...poll.cached()];
      try {
        for (const p of await revokedAmong(poll.db, cached)) if (!closed) opts.onRevoked(p);
        // No notification reaches a process behind a pooler: the ledger connections' health is read again.
        if (!closed) opts.onLedgerChanged?.(null);
      } catch (err) {
        if (!closed) opts.onLost(err as Error);
      } finally {
        running = null;
      }
    })();
  }, poll.everyMs ?? 1000);
  timer.unref();
  return {
    async close() {
      closed = true;
      stop();
      clearInterval(timer);
      await running;
    },
  };
}
