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

/** The organisation's name, base currency and plan (the brief's facts), or undefined. */
export async function briefOrg(db: Db, orgId: string) {
  const [org] = await rows<{ name: string; base_currency: string; plan: string | null }>(
    db,
    sql`select o.name, o.base_currency, b.plan from organisations o left join billing_accounts b on b.id = o.billing_account_id where o.id = ${orgId}`,
  );
  return org;
}

/** Per customer: what is overdue on its open AUTHORISED invoices at `asOf` (base currency, each invoice's own rate), how many, the oldest due date. */
export async function overdueByCustomer(db: Db, orgId: string, asOf: string) {
  return rows<{ id: string; name: string; sens: boolean; amount: string; n: number; oldest: string }>(
    db,
    sql`select c.id, c.name, c.is_sensitive as sens, sum(case when i.currency = o.base_currency or i.currency_rate is null or i.currency_rate = 0
            then i.amount_due else round(i.amount_due / i.currency_rate, 2) end)::text as amount,
          count(*)::int as n, min(i.due_date)::text as oldest
        from cash_items i join organisations o on o.id = i.org_id
        join contacts c on c.org_id = i.org_id and c.id = i.contact_id
        where i.org_id = ${orgId} and i.source = 'LEDGER_INVOICE' and i.ledger_status = 'AUTHORISED'
          and i.amount_due > 0 and i.due_date < ${asOf}
        group by c.id, c.name, c.is_sensitive`,
  );
}

/** The names of the organisation's contacts and accounts flagged sensitive now. */
export async function sensitiveNames(db: Db, orgId: string): Promise<{ name: string }[]> {
  return rows<{ name: string }>(
    db,
    sql`select name from contacts where org_id = ${orgId} and is_sensitive union select name from accounts where org_id = ${orgId} and is_sensitive`,
  );
}

/** Active organisations without a brief for `day`. */
export async function orgsWithoutBrief(db: Db, day: string): Promise<string[]> {
  const list = await rows<{ id: string }>(
    db,
    sql`select o.id from organisations o where o.active
          and not exists (select 1 from daily_briefs b where b.org_id = o.id and b.as_of_date = ${day})
        order by o.id`,
  );
  return list.map((r) => r.id);
}
