/**
 * The audit log: one row per authenticated API request (organisation, key,
 * user or partner, method, route template, status, X-Service-Tool when valid,
 * request id, duration). Recorded by src/api/observe.ts into an `AuditLog`,
 * which keeps the rows in memory and writes them in one multi-row insert per
 * interval (CASHLINE_AUDIT_FLUSH_MS) or per batch (CASHLINE_AUDIT_BATCH
 * rows), off the request path (issue 21); `close()` writes what is left, and
 * the server calls it on SIGTERM after the last answer. What a crash or an
 * unreachable database can lose: docs/reliability.md#audit-log.
 */
import { sql } from 'drizzle-orm';
import { type Db } from './db.js';

export interface AuditEntry {
  orgId: string | null;
  at: Date;
  keyId: string;
  keyPrefix: string;
  userId: string | null;
  partnerId: string | null;
  method: string;
  route: string;
  status: number;
  tool: string | null;
  requestId: string;
  durationMs: number;
}

/**
 * Writes audit rows in one statement with one parameter (the rows as a JSON
 * array, expanded by jsonb_to_recordset, in order): a batch of any size costs
 * one small statement to build and to plan, never a parameter per value.
 */
export async function writeAuditRows(db: Db, entries: readonly AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const json = JSON.stringify(
    entries.map((e) => ({
      org_id: e.orgId,
      at: e.at.toISOString(),
      key_id: e.keyId,
      key_prefix: e.keyPrefix,
      user_id: e.userId,
      partner_id: e.partnerId,
      method: e.method,
      route: e.route,
      status: e.status,
      tool: e.tool,
      request_id: e.requestId,
      duration_ms: e.durationMs,
    })),
  );
  await db.execute(
    sql`insert into audit_log (org_id, at, key_id, key_prefix, user_id, partner_id, method, route, status, tool, request_id, duration_ms)
        select r.org_id, r.at, r.key_id, r.key_prefix, r.user_id, r.partner_id, r.method, r.route, r.status, r.tool, r.request_id, r.duration_ms
        from rows from (jsonb_to_recordset(${json}::jsonb) as (org_id text, at timestamptz, key_id text, key_prefix text, user_id text,
          partner_id text, method text, route text, status integer, tool text, request_id text, duration_ms integer))
          with ordinality as r(org_id, at, key_id, key_prefix, user_id, partner_id, method, route, status, tool, request_id, duration_ms, n)
        order by r.n`,
  );
}

export interface AuditLogOptions {
  /** Longest a recorded row waits before it is written (ms). */
  flushMs: number;
  /** Rows per insert; a full batch is written at once. */
  batch: number;
  /** Rows kept while the database cannot take them; the oldest are dropped past it (and reported). */
  maxBuffered?: number;
  /** Told of a failed write (the rows stay buffered for the next) and of rows dropped. */
  onError?: (err: unknown, dropped: number) => void;
}

export class AuditLog {
  private buffer: AuditEntry[] = [];
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly opts: AuditLogOptions,
  ) {}

  /** Keeps the row for the next write; never waits and never throws. */
  record(e: AuditEntry): void {
    this.buffer.push(e);
    const max = this.opts.maxBuffered ?? 100_000;
    if (this.buffer.length > max) {
      const over = this.buffer.length - max;
      this.buffer.splice(0, over);
      this.opts.onError?.(new Error('audit buffer full'), over);
    }
    if (this.buffer.length >= this.opts.batch || this.closed) void this.flush();
    else this.schedule();
  }

  /** A write within `flushMs` (one timer at a time; none once closed). */
  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.opts.flushMs);
    this.timer.unref();
  }

  /** Writes every row recorded so far (one insert per batch); resolves when they are stored or the write failed. */
  flush(): Promise<void> {
    this.writing = this.writing.then(async () => {
      while (this.buffer.length > 0) {
        const rows = this.buffer.splice(0, this.opts.batch);
        try {
          await writeAuditRows(this.db, rows);
        } catch (err) {
          this.buffer.unshift(...rows); // kept for the next write
          this.opts.onError?.(err, 0);
          this.schedule();
          return;
        }
      }
    });
    return this.writing;
  }

  /** Writes what is left and stops the timer (the server's shutdown, after the last answer). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }
}
