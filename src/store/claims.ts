/**
 * Claims of the workers (docs/sync.md, "Workers"): one `worker_claims` row
 * per (job, organisation) names the slot being run (a sync bucket, a date),
 * its owner and a lease. Taking a slot is one conditional upsert, atomic on
 * both engines, so of several workers ticking together exactly one runs it:
 * - a later slot is taken once the previous one is done or its lease ran out;
 * - the same slot is taken over only when unfinished and its lease ran out
 *   (a crashed or killed worker);
 * - a failed run releases its slot for a retry after a delay.
 * Leases use wall-clock time (not the service clock, which CASHLINE_NOW may freeze).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { sql } from 'drizzle-orm';
import { type Db, rows } from './db.js';

export const DEFAULT_LEASE_MS = 10 * 60_000;

/** This process's owner name in claims. */
export const workerId = () => `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

export interface ClaimInput {
  job: string;
  orgId: string;
  slot: string;
  owner: string;
  leaseMs?: number;
}

export async function claim(db: Db, c: ClaimInput): Promise<boolean> {
  const now = new Date();
  const lease = new Date(now.getTime() + (c.leaseMs ?? DEFAULT_LEASE_MS));
  const got = await rows<{ job: string }>(
    db,
    sql`insert into worker_claims (job, org_id, slot, owner, lease_until, done, claimed_at)
        values (${c.job}, ${c.orgId}, ${c.slot}, ${c.owner}, ${lease.toISOString()}::timestamptz, false, ${now.toISOString()}::timestamptz)
        on conflict (job, org_id) do update set slot = excluded.slot, owner = excluded.owner, lease_until = excluded.lease_until,
          done = false, claimed_at = excluded.claimed_at, finished_at = null, error = null
        where (worker_claims.slot < excluded.slot and (worker_claims.done or worker_claims.lease_until < excluded.claimed_at))
           or (worker_claims.slot = excluded.slot and not worker_claims.done and worker_claims.lease_until < excluded.claimed_at)
        returning job`,
  );
  return got.length === 1;
}

/** Extends the lease of a claim this owner holds; false when it was taken over. */
export async function renew(db: Db, c: ClaimInput): Promise<boolean> {
  const lease = new Date(Date.now() + (c.leaseMs ?? DEFAULT_LEASE_MS));
  const got = await rows<{ job: string }>(
    db,
    sql`update worker_claims set lease_until = ${lease.toISOString()}::timestamptz
        where job = ${c.job} and org_id = ${c.orgId} and slot = ${c.slot} and owner = ${c.owner} and not done returning job`,
  );
  return got.length === 1;
}

/** Marks the slot done, or (with an error) releases it for a retry after `retryMs`. */
export async function finish(db: Db, c: ClaimInput, error: string | null = null, retryMs = 5 * 60_000): Promise<void> {
  const now = new Date();
  if (error === null) {
    await db.execute(
      sql`update worker_claims set done = true, finished_at = ${now.toISOString()}::timestamptz, error = null
          where job = ${c.job} and org_id = ${c.orgId} and slot = ${c.slot} and owner = ${c.owner}`,
    );
  } else {
    await db.execute(
      sql`update worker_claims set done = false, lease_until = ${new Date(now.getTime() + retryMs).toISOString()}::timestamptz,
            finished_at = ${now.toISOString()}::timestamptz, error = ${error.slice(0, 500)}
          where job = ${c.job} and org_id = ${c.orgId} and slot = ${c.slot} and owner = ${c.owner}`,
    );
  }
}

/** Runs `fn` under a claim of (job, org, slot); null when another worker holds it or it is done. */
export async function withClaim<T>(db: Db, c: ClaimInput, fn: (heartbeat: () => Promise<void>) => Promise<T>, retryMs?: number): Promise<{ value: T } | null> {
  if (!(await claim(db, c))) return null;
  try {
    const value = await fn(async () => {
      await renew(db, c);
    });
    await finish(db, c, null);
    return { value };
  } catch (err) {
    await finish(db, c, err instanceof Error ? err.message : String(err), retryMs).catch(() => {});
    throw err;
  }
}

/**
 * Runs `fn` holding a PostgreSQL session advisory lock on `key` (one
 * dedicated connection of the pool); null when another session holds it. The
 * server releases the lock when the holder's connection ends, so a killed
 * process never leaves it behind (the sync's mutual exclusion: the operator's
 * `sync` and the workers). Without a pool (the embedded store, which one
 * process opens at a time) `fn` just runs.
 */
export async function withSessionLock<T>(pool: import('pg').Pool | undefined, key: string, fn: () => Promise<T>): Promise<{ value: T } | null> {
  if (!pool) return { value: await fn() };
  const client = await pool.connect();
  try {
    const r = await client.query<{ ok: boolean }>('select pg_try_advisory_lock(hashtext($1)) as ok', [key]);
    if (!r.rows[0]?.ok) return null;
    try {
      return { value: await fn() };
    } finally {
      await client.query('select pg_advisory_unlock(hashtext($1))', [key]).catch(() => {});
    }
  } finally {
    client.release();
  }
}

/** The key of an organisation's sync lock. */
export const syncLockKey = (orgId: string) => `cashline:sync:${orgId}`;
