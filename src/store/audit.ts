/**
 * The audit log: one row per authenticated API request (organisation, key,
 * user or partner, method, route template, status, X-Service-Tool when valid,
 * request id, duration). Written by src/api/observe.ts.
 */
import { type SQL, sql } from 'drizzle-orm';
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

const STATUS_ROUTE = '/api/agent/status';

/** Whether a call counts against the legacy daily bucket (decisions.md: what is charged). */
export const chargesDailyBucket = (e: Pick<AuditEntry, 'orgId' | 'status' | 'route'>) =>
  e.orgId !== null && ((e.status >= 200 && e.status <= 299) || e.status === 304 || e.status === 404) && e.route !== STATUS_ROUTE;

/** Writes the audit row and, for a charged call, counts it in the organisation's day (one statement). */
export async function writeAudit(db: Db, e: AuditEntry): Promise<void> {
  const audit = sql`insert into audit_log (org_id, at, key_id, key_prefix, user_id, partner_id, method, route, status, tool, request_id, duration_ms)
    values (${e.orgId}, ${e.at}, ${e.keyId}, ${e.keyPrefix}, ${e.userId}, ${e.partnerId}, ${e.method}, ${e.route}, ${e.status}, ${e.tool}, ${e.requestId}, ${e.durationMs})`;
  if (!chargesDailyBucket(e)) {
    await db.execute(audit);
    return;
  }
  await db.execute(sql`with a as (${audit})
    insert into org_daily_calls (org_id, day, n) values (${e.orgId}, (${e.at}::timestamptz at time zone 'UTC')::date, 1)
    on conflict (org_id, day) do update set n = org_daily_calls.n + 1`);
}

/**
 * Charged calls of an organisation on the UTC day of `day` (the legacy daily
 * bucket), from the counter that writeAudit keeps.
 */
export function chargedCallsSql(orgId: string, day: Date): SQL {
  return sql`select coalesce((select n from org_daily_calls where org_id = ${orgId} and day = (${day}::timestamptz at time zone 'UTC')::date), 0)::int8`;
}
