/**
 * The audit log: one row per authenticated API request (organisation, key,
 * user or partner, method, route template, status, X-Service-Tool when valid,
 * request id, duration). Written by src/api/observe.ts.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, rows } from './db.js';
import * as s from './schema.js';

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

export async function writeAudit(db: Db, e: AuditEntry): Promise<void> {
  await db.insert(s.auditLog).values(e);
}

/**
 * Charged calls of an organisation since `since` (the legacy daily bucket):
 * answers 2xx or 404 of any endpoint but /status (decisions.md: what is charged).
 */
export function chargedCallsSql(orgId: string, since: Date): SQL {
  return sql`select count(*)::int8 from audit_log
    where org_id = ${orgId} and at >= ${since}
      and (status between 200 and 299 or status = 404) and route <> '/api/agent/status'`;
}

export async function chargedCallsSince(db: Db, orgId: string, since: Date): Promise<number> {
  const [r] = await rows<{ n: number }>(db, sql`select (${chargedCallsSql(orgId, since)}) as n`);
  return Number(r?.n ?? 0);
}
