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
 *
 * Named leases (`withLease`, the `leases` table) are the locks held across
 * transactions, such as the organisation's sync: rows, not session advisory
 * locks, so that they work through a transaction pooler.
 */
import { randomUUID } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { sql } from 'drizzle-orm';
import { type Db, rows } from './db.js';
import { processAlive } from './embedded-lock.js';

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

/** How long a lease lasts without its holder renewing it (renewed every third of it while held). */
export const LEASE_MS = 30_000;

/** A lease was taken over while its holder still ran (the holder stalled for longer than its lease). */
export class LeaseLostError extends Error {}

/** This process's host as leases name it: the host name and PID namespace, so that a PID is only ever checked where it means this process's neighbour. */
const LEASE_HOST = (() => {
  try {
    return `${hostname()}/${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return null; // no PID namespace to name (not Linux): a dead holder's lease is taken over once it runs out
  }
})();

async function takeLease(db: Db, name: string, owner: string, ttlMs: number, staleOwner: string | null): Promise<boolean> {
  const got = await rows<{ owner: string }>(
    db,
    sql`insert into leases (name, owner, host, pid, lease_until, acquired_at)
        values (${name}, ${owner}, ${LEASE_HOST ?? hostname()}, ${process.pid}, clock_timestamp() + ${ttlMs}::int * interval '1 millisecond', clock_timestamp())
        on conflict (name) do update set owner = excluded.owner, host = excluded.host, pid = excluded.pid,
          lease_until = excluded.lease_until, acquired_at = excluded.acquired_at
        where leases.lease_until < excluded.acquired_at or leases.owner = ${staleOwner}
        returning owner`,
  );
  return got.length === 1;
}

/** Takes the lease `name`: free, lapsed, or held by a process of this host that is gone; false when someone else holds it. */
async function acquireLease(db: Db, name: string, owner: string, ttlMs: number): Promise<boolean> {
  if (await takeLease(db, name, owner, ttlMs, null)) return true;
  if (!LEASE_HOST) return false;
  const [holder] = await rows<{ owner: string; host: string; pid: number }>(db, sql`select owner, host, pid from leases where name = ${name}`);
  if (!holder) return takeLease(db, name, owner, ttlMs, null); // released in between
  if (holder.host !== LEASE_HOST || holder.pid === process.pid || processAlive(holder.pid)) return false;
  return takeLease(db, name, owner, ttlMs, holder.owner);
}

/**
 * Runs `fn` holding the lease `name` (a row of `leases`, migration 0018);
 * null when another holder has it. The lease is renewed every third of
 * `ttlMs` while `fn` runs and deleted after it, all in statements of their
 * own: no session state, so it works through a transaction pooler
 * (docs/scaling.md "PgBouncer"). A holder that dies frees it by itself: at
 * once for a process on the same host (its PID is gone), within `ttlMs`
 * otherwise. `held()` throws a LeaseLostError once the lease was taken over
 * (this process stalled for longer than `ttlMs`): long runs call it between
 * steps. Both engines; times are the database server's. The sync's mutual
 * exclusion (`syncLockKey`): the workers, the webhook's prompt sync and the
 * operator's `cashline-server sync`.
 */
export async function withLease<T>(db: Db, name: string, fn: (held: () => void) => Promise<T>, opts: { ttlMs?: number; owner?: string } = {}): Promise<{ value: T } | null> {
  const ttlMs = opts.ttlMs ?? LEASE_MS;
  const owner = opts.owner ?? workerId();
  if (!(await acquireLease(db, name, owner, ttlMs))) return null;
  let lost: LeaseLostError | null = null;
  let renewing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = rows(db, sql`update leases set lease_until = clock_timestamp() + ${ttlMs}::int * interval '1 millisecond' where name = ${name} and owner = ${owner} returning owner`).then(
      (r) => {
        if (r.length === 0) lost ??= new LeaseLostError(`the lease ${name} was taken over: this process stalled for longer than ${ttlMs} ms`);
      },
      () => {}, // the database is unreachable: try again at the next beat (the lease lasts until then)
    );
  }, Math.max(1, Math.floor(ttlMs / 3)));
  timer.unref();
  try {
    return {
      value: await fn(() => {
        if (lost) throw lost;
      }),
    };
  } finally {
    clearInterval(timer);
    await renewing;
    await db.execute(sql`delete from leases where name = ${name} and owner = ${owner}`).catch(() => {});
  }
}

/** The lease of an organisation's sync. */
export const syncLockKey = (orgId: string) => `sync:${orgId}`;
