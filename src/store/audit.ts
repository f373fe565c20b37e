/** The audit log: one row per authenticated API request. */
import { sql } from 'drizzle-orm';
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

/** Charged calls of an organisation since `since` (the legacy daily bucket). */
export async function chargedCallsSince(db: Db, orgId: string, since: Date): Promise<number> {
  const [r] = await rows<{ n: number }>(
    db,
    sql`select count(*)::int8 as n from audit_log
        where org_id = ${orgId} and at >= ${since}
          and (status between 200 and 299 or status = 404) and route <> '/api/agent/status'`,
  );
  return Number(r?.n ?? 0);
}
