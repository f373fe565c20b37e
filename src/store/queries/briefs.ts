/**
 * The daily briefs' queries (docs/brief.md): the stored brief, the names a
 * brief might show, and which of them are sensitive at the time of a read.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';
import * as s from '../schema.js';
import type { DailyBriefPayload } from '../../domain/brief/types.js';
import type { BriefMention, NameCandidate, SensitiveNow } from '../../domain/brief/redact.js';

export interface StoredBrief {
  orgId: string;
  asOfDate: string;
  generatedAt: Date;
  generatorTier: 'rules' | 'llm';
  payload: DailyBriefPayload;
  /** Every contact and account the brief names, with its id (docs/brief.md#redaction). */
  mentions: BriefMention[];
}

/** The organisation's latest brief, or null. */
export async function latestBrief(db: Db, orgId: string): Promise<StoredBrief | null> {
  const [r] = await db.select().from(s.dailyBriefs).where(eq(s.dailyBriefs.orgId, orgId)).orderBy(desc(s.dailyBriefs.asOfDate)).limit(1);
  if (!r) return null;
  // Briefs stored before mentions were recorded hold {kind, key, displayName} of the names then sensitive: id null.
  const mentions = ((r.mentions as Partial<BriefMention>[] | null) ?? []).map((m) => ({ ...m, id: m.id ?? null }) as BriefMention);
  return { orgId: r.orgId, asOfDate: r.asOfDate, generatedAt: r.generatedAt, generatorTier: r.generatorTier as 'rules' | 'llm', payload: r.payload as DailyBriefPayload, mentions };
}

/** Whether the organisation's brief of `asOfDate` exists, and its tier. */
export async function briefTier(db: Db, orgId: string, asOfDate: string): Promise<'rules' | 'llm' | null> {
  const [r] = await db
    .select({ tier: s.dailyBriefs.generatorTier })
    .from(s.dailyBriefs)
    .where(and(eq(s.dailyBriefs.orgId, orgId), eq(s.dailyBriefs.asOfDate, asOfDate)));
  return (r?.tier as 'rules' | 'llm' | undefined) ?? null;
}

/** Stores the brief of a day unless the day has one (whatever the number of workers); true when this call wrote it. */
export async function insertBrief(
  db: Db,
  row: { orgId: string; asOfDate: string; generatedAt: Date; tier: 'rules' | 'llm'; payload: DailyBriefPayload; mentions: BriefMention[] },
): Promise<boolean> {
  const inserted = await db
    .insert(s.dailyBriefs)
    .values({ orgId: row.orgId, asOfDate: row.asOfDate, generatedAt: row.generatedAt, generatorTier: row.tier, payload: row.payload, mentions: row.mentions })
    .onConflictDoNothing()
    .returning({ orgId: s.dailyBriefs.orgId });
  return inserted.length === 1;
}

/** Every contact (as a customer) and account (as a category) of the organisation, by name: what a brief might name. */
export async function briefNameCandidates(db: Db, orgId: string): Promise<NameCandidate[]> {
  return rows<NameCandidate & Record<string, unknown>>(
    db,
    sql`select 'customer' as kind, id, name from contacts where org_id = ${orgId} and name <> ''
        union all
        select 'category' as kind, id, name from accounts where org_id = ${orgId} and name <> ''`,
  );
}

/** The organisation's contacts and accounts flagged sensitive now (ids and names). */
export async function sensitiveNow(db: Db, orgId: string): Promise<SensitiveNow> {
  const list = await rows<{ kind: 'customer' | 'category'; id: string; name: string }>(
    db,
    sql`select 'customer' as kind, id, name from contacts where org_id = ${orgId} and is_sensitive
        union all
        select 'category' as kind, id, name from accounts where org_id = ${orgId} and is_sensitive`,
  );
  return {
    contactIds: new Set(list.filter((r) => r.kind === 'customer').map((r) => r.id)),
    accountIds: new Set(list.filter((r) => r.kind === 'category').map((r) => r.id)),
    names: list.filter((r) => r.name.trim() !== '').map((r) => ({ kind: r.kind, name: r.name })),
  };
}
