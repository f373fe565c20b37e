/**
 * The daily brief job (docs/brief.md): gathers the facts (latest BASE
 * forecast, overdue receivables, insight notes), writes the brief of the
 * UTC day with the rules tier, or with the LLM tier for premium plans when
 * CASHLINE_LLM_* is configured (falling back to rules for that day on any
 * failure), and stores it keyed by (org_id, as_of_date): a day never gets
 * two, whatever the number of workers. The read side (`readBrief`) rewrites
 * sensitive names for keys without READ_SENSITIVE.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { type Db, rows } from '../store/db.js';
import * as s from '../store/schema.js';
import { daysBetween } from '../domain/calendar.js';
import { dec } from '../domain/money.js';
import { latestSnapshot, sensitiveAccountIds } from '../store/queries/forecast.js';
import { type BriefCategory, type BriefFacts, cleanName, fitHeadline, rulesBrief, slugify } from '../domain/brief/rules.js';
import { forModel, type LlmConfig, LlmBriefError, llmBrief } from '../domain/brief/llm.js';
import { DailyBriefPayload, type Redaction } from '../schemas/brief.js';
import { SENSITIVE_ACCOUNT, SENSITIVE_CONTACT } from '../schemas/forecast.js';

/** Plans served by the LLM tier when it is configured (docs/brief.md). */
export const PREMIUM_PLANS = new Set(['Pocket', 'Wallet', 'Vault', 'Reserve']);
/** UTC hour from which the day's brief is due. */
export const BRIEF_UTC_HOUR = 6;

export const utcDate = (at: Date) => at.toISOString().slice(0, 10);

function uniqueKeys<T extends { key: string }>(list: T[]): T[] {
  const seen = new Map<string, number>();
  return list.map((x) => {
    const n = (seen.get(x.key) ?? 0) + 1;
    seen.set(x.key, n);
    return n === 1 ? x : { ...x, key: `${x.key}-${n}` };
  });
}

export async function loadBriefFacts(db: Db, orgId: string, now: Date): Promise<{ facts: BriefFacts; sensitiveNames: string[]; plan: string | null }> {
  const asOf = utcDate(now);
  const [org] = await rows<{ name: string; base_currency: string; plan: string | null }>(
    db,
    sql`select o.name, o.base_currency, b.plan from organisations o left join billing_accounts b on b.id = o.billing_account_id where o.id = ${orgId}`,
  );
  if (!org) throw new Error(`organisation ${orgId} not found`);
  const [snap, sensitiveAccounts, debtors, sensitive] = await Promise.all([
    latestSnapshot(db, orgId),
    sensitiveAccountIds(db, orgId),
    rows<{ id: string; name: string; sens: boolean; amount: string; n: number; oldest: string }>(
      db,
      sql`select c.id, c.name, c.is_sensitive as sens, sum(case when i.currency = o.base_currency or i.currency_rate is null or i.currency_rate = 0
              then i.amount_due else round(i.amount_due / i.currency_rate, 2) end)::text as amount,
            count(*)::int as n, min(i.due_date)::text as oldest
          from cash_items i join organisations o on o.id = i.org_id
          join contacts c on c.org_id = i.org_id and c.id = i.contact_id
          where i.org_id = ${orgId} and i.source = 'LEDGER_INVOICE' and i.ledger_status = 'AUTHORISED'
            and i.amount_due > 0 and i.due_date < ${asOf}
          group by c.id, c.name, c.is_sensitive`,
    ),
    rows<{ name: string }>(
      db,
      sql`select name from contacts where org_id = ${orgId} and is_sensitive union select name from accounts where org_id = ${orgId} and is_sensitive`,
    ),
  ]);
  const sortedDebtors = debtors.sort((a, b) => dec(b.amount).cmp(dec(a.amount)) || (a.id < b.id ? -1 : 1));
  const overdue = uniqueKeys(
    sortedDebtors.slice(0, 5).map((d) => ({
      key: slugify(d.name),
      name: d.name,
      sensitive: Boolean(d.sens),
      amount: dec(d.amount).toString(),
      invoices: Number(d.n),
      oldestDueDate: d.oldest,
      daysOverdue: daysBetween(d.oldest, asOf),
    })),
  );
  let forecast: BriefFacts['forecast'] = null;
  if (snap) {
    const p = snap.payload;
    const cats = new Map<string, { name: string; sensitive: boolean; inflow: ReturnType<typeof dec>; outflow: ReturnType<typeof dec> }>();
    for (const w of p.weeks) {
      for (const [accountId, c] of Object.entries(w.categories?.accounts ?? {})) {
        const e = cats.get(accountId) ?? { name: c.name, sensitive: sensitiveAccounts.has(accountId), inflow: dec(0), outflow: dec(0) };
        e.inflow = e.inflow.plus(c.inflow);
        e.outflow = e.outflow.plus(c.outflow);
        cats.set(accountId, e);
      }
    }
    const categories: BriefCategory[] = uniqueKeys(
      [...cats.entries()]
        .map(([id, c]) => ({ id, key: slugify(c.name), name: c.name, sensitive: c.sensitive, inflow: c.inflow.toString(), outflow: c.outflow.toString(), size: c.inflow.abs().plus(c.outflow.abs()) }))
        .sort((a, b) => b.size.cmp(a.size) || (a.id < b.id ? -1 : 1))
        .slice(0, 8),
    ).map(({ key, name, sensitive, inflow, outflow }) => ({ key, name, sensitive, inflow, outflow }));
    forecast = {
      startingCash: p.startingCash,
      endingCash: p.endingCash,
      minClosingCash: p.minClosingCash,
      minWeek: Math.min(13, Math.max(1, p.minClosingCashWeekIndex + 1)),
      weeks: p.weeks.slice(0, 13).map((w, i) => ({ n: i + 1, weekStart: w.weekStart, inflow: w.inflow, outflow: w.outflow, net: w.net, closing: w.closing })),
      categories,
    };
  }
  return {
    facts: {
      orgName: org.name,
      currency: snap?.payload.currency ?? org.base_currency,
      asOfDate: asOf,
      forecast,
      overdue,
      overdueTotal: debtors.reduce((a, d) => a.plus(d.amount), dec(0)).toString(),
      overdueCustomers: debtors.length,
      notes: snap?.payload.notesForAgent ?? [],
    },
    sensitiveNames: sensitive.map((r) => r.name).filter((n) => n.trim() !== ''),
    plan: org.plan,
  };
}

/** The names of sensitive parties a payload shows (what keys without READ_SENSITIVE must not see). */
export function redactionsOf(payload: DailyBriefPayload, facts: BriefFacts, sensitiveNames: readonly string[]): Redaction[] {
  const out: Redaction[] = [];
  const text = JSON.stringify(payload);
  const seen = new Set<string>();
  for (const d of facts.overdue) {
    if (d.sensitive && text.includes(cleanName(d.name))) {
      out.push({ kind: 'customer', key: d.key, displayName: cleanName(d.name) });
      seen.add(cleanName(d.name));
    }
  }
  for (const c of facts.forecast?.categories ?? []) {
    if (c.sensitive && text.includes(cleanName(c.name))) {
      out.push({ kind: 'category', key: c.key, displayName: cleanName(c.name) });
      seen.add(cleanName(c.name));
    }
  }
  // Names that appear in text only (notes): rewritten as a contact.
  for (const n of sensitiveNames) {
    const c = cleanName(n);
    if (!seen.has(c) && text.includes(c)) {
      out.push({ kind: 'customer', key: slugify(n), displayName: c });
      seen.add(c);
    }
  }
  return out;
}

export interface BriefRunResult {
  orgId: string;
  asOfDate: string;
  /** false: the day already had its brief (another worker, or an earlier run). */
  created: boolean;
  tier: 'rules' | 'llm';
  /** Why the LLM tier was not used for a premium organisation (when it was tried). */
  fallback?: string;
}

export interface BriefOptions {
  llm?: LlmConfig | null;
  log?: (level: 'info' | 'warn', msg: string, extra?: Record<string, unknown>) => void;
}

/** Generates and stores the organisation's brief for the UTC day of `now`, unless that day has one. */
export async function generateDailyBrief(db: Db, orgId: string, now: Date, opts: BriefOptions = {}): Promise<BriefRunResult> {
  const asOfDate = utcDate(now);
  const existing = await db
    .select({ tier: s.dailyBriefs.generatorTier })
    .from(s.dailyBriefs)
    .where(and(eq(s.dailyBriefs.orgId, orgId), eq(s.dailyBriefs.asOfDate, asOfDate)));
  if (existing[0]) return { orgId, asOfDate, created: false, tier: existing[0].tier as 'rules' | 'llm' };

  const { facts, sensitiveNames, plan } = await loadBriefFacts(db, orgId, now);
  let payload = rulesBrief(facts);
  let tier: 'rules' | 'llm' = 'rules';
  let fallback: string | undefined;
  if (opts.llm && plan && PREMIUM_PLANS.has(plan)) {
    const t = performance.now();
    try {
      payload = await llmBrief(forModel(facts, sensitiveNames), opts.llm, sensitiveNames);
      tier = 'llm';
      opts.log?.('info', 'daily brief written by the LLM tier', { orgId, asOfDate, ms: Math.round(performance.now() - t) });
    } catch (err) {
      fallback = err instanceof LlmBriefError ? `${err.reason}: ${err.message}` : (err as Error).message;
      opts.log?.('warn', 'LLM brief failed; the rules tier writes today\'s brief', { orgId, asOfDate, reason: fallback, ms: Math.round(performance.now() - t) });
    }
  }
  // The rules tier's own output must satisfy the schema too (a bug is loud, not served).
  DailyBriefPayload.parse(payload);
  const redactions = tier === 'rules' ? redactionsOf(payload, facts, sensitiveNames) : [];
  const inserted = await db
    .insert(s.dailyBriefs)
    .values({ orgId, asOfDate, generatedAt: now, generatorTier: tier, includesSensitive: redactions.length > 0, payload, redactions })
    .onConflictDoNothing()
    .returning({ orgId: s.dailyBriefs.orgId });
  return { orgId, asOfDate, created: inserted.length === 1, tier, ...(fallback ? { fallback } : {}) };
}

export interface StoredBrief {
  orgId: string;
  asOfDate: string;
  generatedAt: Date;
  generatorTier: 'rules' | 'llm';
  payload: DailyBriefPayload;
  redactions: Redaction[];
}

/** The organisation's latest brief, or null. */
export async function latestBrief(db: Db, orgId: string): Promise<StoredBrief | null> {
  const [r] = await db
    .select()
    .from(s.dailyBriefs)
    .where(eq(s.dailyBriefs.orgId, orgId))
    .orderBy(desc(s.dailyBriefs.asOfDate))
    .limit(1);
  if (!r) return null;
  return {
    orgId: r.orgId,
    asOfDate: r.asOfDate,
    generatedAt: r.generatedAt,
    generatorTier: r.generatorTier as 'rules' | 'llm',
    payload: r.payload as DailyBriefPayload,
    redactions: (r.redactions as Redaction[] | null) ?? [],
  };
}

/** The payload as a key without READ_SENSITIVE sees it: sensitive names rewritten, and how many were. */
export function redactBrief(payload: DailyBriefPayload, redactions: readonly Redaction[]): { payload: DailyBriefPayload; redacted: number } {
  if (!redactions.length) return { payload, redacted: 0 };
  const order = [...redactions].sort((a, b) => b.displayName.length - a.displayName.length);
  const placeholder = (r: Redaction) => (r.kind === 'category' ? SENSITIVE_ACCOUNT : SENSITIVE_CONTACT);
  const rewrite = (text: string) => {
    let out = text;
    for (const r of order) out = out.split(r.displayName).join(placeholder(r));
    return out;
  };
  let redacted = 0;
  const used = new Set<Redaction>();
  const fix = (sec: DailyBriefPayload['mainDriver']): DailyBriefPayload['mainDriver'] => {
    for (const r of order) if (sec.headline.includes(r.displayName) || sec.bodyMarkdown.includes(r.displayName)) used.add(r);
    return {
      headline: fitHeadline(rewrite(sec.headline)),
      bodyMarkdown: rewrite(sec.bodyMarkdown),
      refs: sec.refs.map((ref) => {
        if (ref.kind === 'week') return ref;
        const r = order.find((x) => x.kind === ref.kind && x.key === ref.key) ?? order.find((x) => x.displayName === ref.displayName);
        if (!r) return ref;
        used.add(r);
        return { kind: ref.kind, key: r.kind === 'category' ? 'sensitive-account' : 'sensitive-contact', displayName: placeholder(r) };
      }),
    };
  };
  const out = { mainDriver: fix(payload.mainDriver), riskSignal: fix(payload.riskSignal), recommendedAction: fix(payload.recommendedAction) };
  redacted = used.size;
  return { payload: out, redacted };
}

/** Active organisations whose brief for the UTC day of `now` is due (from 06:00 UTC) and missing. */
export async function briefsDue(db: Db, now: Date): Promise<string[]> {
  if (now.getUTCHours() < BRIEF_UTC_HOUR) return [];
  const day = utcDate(now);
  const list = await rows<{ id: string }>(
    db,
    sql`select o.id from organisations o where o.active
          and not exists (select 1 from daily_briefs b where b.org_id = o.id and b.as_of_date = ${day})
        order by o.id`,
  );
  return list.map((r) => r.id);
}
