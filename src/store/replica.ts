/**
 * The read replica (DATABASE_REPLICA_URL; docs/scaling.md "Read replica"): a
 * PostgreSQL streaming standby that answers the reads which tolerate seconds
 * of staleness. Writes, limits, keys and anything that must read its own
 * writes use the primary; `Store.readDb()` (db.ts) is the replica's handle
 * while the monitor below finds it up and within its lag bound, the
 * primary's otherwise.
 *
 * The monitor probes every 500 ms, with a 1 s timeout: the primary's
 * `pg_current_wal_lsn()` and, on a connection of its own to the replica,
 * `pg_is_in_recovery()` and `pg_last_wal_replay_lsn()`. The lag is how stale
 * the replica's answers may be, in seconds:
 * - 0 when the replica has replayed up to the primary's current position (so
 *   an idle primary never reads as lag, which `now() -
 *   pg_last_xact_replay_timestamp()` alone would: that grows while nothing is
 *   written);
 * - otherwise, the time since the primary was at the position the replica
 *   has replayed, from the monitor's own samples of the primary's position
 *   (this process's clock only, no skew between hosts); when the samples do
 *   not reach back that far (just started), the age of the last transaction
 *   the replica replayed, which bounds it from above.
 * Reads leave the replica when a probe fails or times out, when it is not a
 * standby (promoted, or the URL names a primary), or when the lag exceeds
 * the bound; they come back on the first probe that finds it within the bound.
 *
 * A query sent to the replica that fails for lack of the replica (refused,
 * reset, terminated, a recovery conflict) runs again on the primary, and a
 * query still waiting when the monitor gives the replica up is re-sent to the
 * primary at that moment: an answer never fails, or hangs past about 2 s,
 * because the replica died.
 */
import pg from 'pg';

export type ReplicaState = 'starting' | 'up' | 'lagging' | 'down' | 'not_standby';

/** What operators see (`cashline-server status`) and the serving process logs on each change. */
export interface ReplicaStatus {
  /** up: reads go there; starting: not probed yet; lagging: over the bound; down: unreachable; not_standby: not in recovery. */
  state: ReplicaState;
  readsGoTo: 'replica' | 'primary';
  /** How stale the replica's answers may be (null: unknown, e.g. while it is down). */
  lagSeconds: number | null;
  /** The primary's WAL position minus the replica's replayed one. */
  lagBytes: number | null;
  maxLagSeconds: number;
  /** The last probe's time (null: none yet). */
  checkedAt: string | null;
  /** Since when the state holds, in this process. */
  since: string;
  /** Why the replica is down or not used. */
  error?: string;
}

export const PROBE_INTERVAL_MS = 500;
export const PROBE_TIMEOUT_MS = 1_000;

const REPLICA_PROBE = `select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as replay,
  extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp())::float8 as replay_age`;

/** PostgreSQL's `X/Y` WAL position as a number of bytes. */
export function parseLsn(lsn: string): bigint {
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

const message = (err: unknown) => (err instanceof Error ? err.message || err.name : String(err));

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

export class ReplicaMonitor {
  private state: ReplicaState = 'starting';
  private since = new Date();
  private checkedAt: Date | null = null;
  private lagSeconds: number | null = null;
  private lagBytes: number | null = null;
  private error: string | undefined;
  /** The primary's WAL position as sampled (time in ms of this process's clock), oldest first. */
  private samples: { at: number; lsn: bigint }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<ReplicaStatus> | null = null;
  private readonly downListeners = new Set<() => void>();
  private readonly changeListeners = new Set<(s: ReplicaStatus) => void>();

  constructor(
    private readonly primary: pg.Pool,
    /** One connection of the monitor's own, so that a busy read pool never delays a probe. */
    private readonly probes: pg.Pool,
    readonly maxLagSeconds: number,
  ) {}

  /** Reads may go to the replica. */
  get usable(): boolean {
    return this.state === 'up';
  }

  start(): void {
    void this.probe();
    this.timer = setInterval(() => void this.probe(), PROBE_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  status(): ReplicaStatus {
    return {
      state: this.state,
      readsGoTo: this.usable ? 'replica' : 'primary',
      lagSeconds: this.lagSeconds === null ? null : Math.round(this.lagSeconds * 1000) / 1000,
      lagBytes: this.lagBytes,
      maxLagSeconds: this.maxLagSeconds,
      checkedAt: this.checkedAt?.toISOString() ?? null,
      since: this.since.toISOString(),
      ...(this.error ? { error: this.error } : {}),
    };
  }

  /** Probes now (or joins the probe under way) and returns the status it leaves. */
  probe(): Promise<ReplicaStatus> {
    this.inFlight ??= this.measure()
      .catch((err) => this.set('down', message(err)))
      .then(() => this.status())
      .finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  /** Called once when reads leave the replica (returns the unsubscribe). */
  onDown(listener: () => void): () => void {
    this.downListeners.add(listener);
    return () => this.downListeners.delete(listener);
  }

  /** Called on every change of state. */
  onChange(listener: (s: ReplicaStatus) => void): void {
    this.changeListeners.add(listener);
  }

  /** A query found the replica unreachable: reads leave it now, and come back with the next good probe. */
  markDown(err: unknown): void {
    if (this.state === 'up') this.set('down', message(err));
  }

  private async measure(): Promise<void> {
    const at = Date.now();
    // Both at once: a probe takes one round trip; the order of the two readings moves the lag by at most that.
    const [primary, replica] = await Promise.allSettled([
      within(this.primary.query<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn'), PROBE_TIMEOUT_MS, 'the primary'),
      within(this.probes.query<{ standby: boolean; replay: string | null; replay_age: number | null }>(REPLICA_PROBE), PROBE_TIMEOUT_MS, 'the replica'),
    ]);
    this.checkedAt = new Date();
    if (replica.status === 'rejected') {
      this.lagSeconds = this.lagBytes = null;
      return this.set('down', message(replica.reason));
    }
    const r = replica.value.rows[0]!;
    if (!r.standby || !r.replay) {
      this.lagSeconds = this.lagBytes = null;
      return this.set('not_standby', 'the replica is not in recovery (promoted, or not a standby): reads stay on the primary');
    }
    // Without the primary's position there is no measure of the lag: the state stays as it is.
    if (primary.status === 'rejected') return;
    const lsn = parseLsn(primary.value.rows[0]!.lsn);
    this.samples.push({ at, lsn });
    const keepMs = Math.max(30_000, 3 * this.maxLagSeconds * 1000);
    while (this.samples.length > 1 && this.samples[0]!.at < at - keepMs) this.samples.shift();
    const replay = parseLsn(r.replay);
    if (replay >= lsn) {
      this.lagSeconds = 0;
      this.lagBytes = 0;
    } else {
      this.lagBytes = Number(lsn - replay);
      const reached = this.samples.findLast((s) => s.lsn <= replay);
      const bounds = [reached ? (at - reached.at) / 1000 : null, r.replay_age === null ? null : Math.max(0, r.replay_age)].filter((x) => x !== null);
      this.lagSeconds = bounds.length ? Math.min(...bounds) : null;
    }
    if (this.lagSeconds !== null && this.lagSeconds <= this.maxLagSeconds) return this.set('up');
    this.set('lagging', this.lagSeconds === null ? 'lag not known yet' : `lag ${this.lagSeconds.toFixed(1)} s over the bound of ${this.maxLagSeconds} s`);
  }

  private set(state: ReplicaState, error?: string): void {
    this.error = error;
    if (state === this.state) return;
    const wasUp = this.state === 'up';
    this.state = state;
    this.since = new Date();
    if (wasUp) for (const l of [...this.downListeners]) l();
    const s = this.status();
    for (const l of this.changeListeners) l(s);
  }
}

/** Errors that say the replica cannot answer now (not that the query is wrong): the query runs on the primary instead. */
function replicaUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  // No SQLSTATE: the driver's or the network's (refused, reset, terminated, a connect timeout).
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  // Connection exceptions, shutdown or not yet accepting connections, too many connections, recovery conflicts.
  return code.startsWith('08') || code.startsWith('57P') || code.startsWith('53') || code === '40001' || code === '40P01';
}

/** …and among them, those that say it is gone (reads leave it at once, without waiting for the next probe). */
function replicaGone(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code) || code.startsWith('08') || code.startsWith('57P');
}

const GAVE_UP = Symbol('replica given up');

type QueryArgs = Parameters<pg.Pool['query']>;

/**
 * What drizzle's node-postgres session calls on its client (`query`, and
 * `connect` for a transaction), over the replica with the primary behind it.
 * Named …Pool: drizzle tells a pool from a single client by its class's name.
 */
export class ReplicaReadPool {
  constructor(
    private readonly replica: pg.Pool,
    private readonly primary: pg.Pool,
    private readonly monitor: ReplicaMonitor,
  ) {}

  async query(...args: QueryArgs): Promise<pg.QueryResult> {
    const run = (pool: pg.Pool) => (pool.query as (...a: QueryArgs) => Promise<pg.QueryResult>).apply(pool, args);
    if (!this.monitor.usable) return run(this.primary);
    let off = () => {};
    const gaveUp = new Promise<typeof GAVE_UP>((resolve) => {
      off = this.monitor.onDown(() => resolve(GAVE_UP));
    });
    const attempt = run(this.replica);
    try {
      const r = await Promise.race([attempt, gaveUp]);
      if (r !== GAVE_UP) return r;
      attempt.catch(() => {}); // abandoned: its answer, or its error, no longer matters
    } catch (err) {
      if (!replicaUnavailable(err)) throw err;
      if (replicaGone(err)) this.monitor.markDown(err);
    } finally {
      off();
    }
    return run(this.primary);
  }

  /** A transaction runs on one server: the replica's while it is usable (the primary's if it refuses). */
  async connect(): Promise<pg.PoolClient> {
    if (!this.monitor.usable) return this.primary.connect();
    try {
      return await this.replica.connect();
    } catch (err) {
      if (!replicaUnavailable(err)) throw err;
      if (replicaGone(err)) this.monitor.markDown(err);
      return this.primary.connect();
    }
  }
}

export interface Replica {
  monitor: ReplicaMonitor;
  reads: ReplicaReadPool;
  close(): Promise<void>;
}

/** Opens the replica's pools (`config`: the primary's pool settings, with the replica's URL) and starts its monitor. */
export function openReplica(primary: pg.Pool, config: pg.PoolConfig, maxLagSeconds: number): Replica {
  // A replica that does not accept a connection within 2 s is down for this query (the monitor says so within 1.5 s anyway).
  const pool = new pg.Pool({ ...config, connectionTimeoutMillis: 2_000 });
  const probes = new pg.Pool({ ...config, max: 1, connectionTimeoutMillis: PROBE_TIMEOUT_MS, query_timeout: PROBE_TIMEOUT_MS });
  // An idle client losing its server must not crash the process.
  pool.on('error', () => {});
  probes.on('error', () => {});
  const monitor = new ReplicaMonitor(primary, probes, maxLagSeconds);
  monitor.start();
  return {
    monitor,
    reads: new ReplicaReadPool(pool, primary, monitor),
    async close() {
      monitor.stop();
      await Promise.all([probes.end(), pool.end()]);
    },
  };
}
