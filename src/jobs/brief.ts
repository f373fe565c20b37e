/**
 * The daily brief job (docs/brief.md): gathers the facts (latest BASE
 * forecast, overdue receivables, insight notes), writes the brief of the
 * UTC day with the rules tier, or with the LLM tier for premium plans when
 * CASHLINE_LLM_* is configured (falling back to rules for that day on any
 * failure), and stores it keyed by (org_id, as_of_date): a day never gets
 * two, whatever the number of workers. With the brief it stores every
 * contact and account the brief names (its mentions, with ids); the read side
 * rewrites those sensitive at the time of the read (src/domain/brief/redact.ts).
 */
import type { Db } from '../store/db.js';
import { daysBetween } from '../domain/calendar.js';
import { dec } from '../domain/money.js';
import { latestSnapshot } from '../store/queries/forecast-snapshots.js';
import { contactsByIds, orgMeta, sensitiveAccountIds } from '../store/queries/organisation.js';
import { loadEngineInputs } from '../store/queries/forecast-input.js';
import { listScenarios } from '../store/queries/scenarios.js';
import { documentNumbers } from '../store/queries/cash-items.js';
import { prepareForecast } from '../domain/forecast/engine.js';
import { collections } from '../domain/forecast/collections.js';
import { type BriefCategory, type BriefCollect, type BriefFacts, rulesBrief } from '../domain/brief/rules.js';
import { slugify } from '../domain/slug.js';
import { forModel, type LlmConfig, LlmBriefError, llmBrief } from './brief-llm.js';
import { DailyBriefPayload } from '../schemas/brief.js';
import { PREMIUM_PLANS } from '../domain/plans.js';
import { findMentions } from '../domain/brief/redact.js';
import { briefNameCandidates, briefOrg, briefTier, insertBrief, orgsWithoutBrief, overdueByCustomer, sensitiveNames } from '../store/queries/briefs.js';

/** Plans served by the LLM tier when it is configured (docs/brief.md). */
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

/**
 * The collections ranking (GET /collections, the BASE forecast): each
 * customer's lift of collecting its open invoices on their due dates, and
 * the first invoice when one lifts the lowest week.
 */
async function collectionsFacts(db: Db, orgId: string, now: Date): Promise<{ lifts: Map<string, string>; top?: BriefCollect }> {
  const meta = await orgMeta(db, orgId);
  const base = (await listScenarios(db, orgId)).find((s) => s.kind === 'BASE');
  if (!meta || !base) return { lifts: new Map() };
  const { input } = await loadEngineInputs(db, meta, now);
  const r = collections(prepareForecast(input), base, now);
  const lifts = new Map(r.customers.map((c) => [c.contactId, c.lift]));
  const first = r.receivables[0];
  if (!first || !dec(first.lift).gt(0)) return { lifts };
  const contact = first.contactId ? (await contactsByIds(db, orgId, [first.contactId])).get(first.contactId) : undefined;
  const number = (await documentNumbers(db, orgId, [first.documentId])).get(first.documentId) ?? null;
  const name = contact?.name.trim() || 'a customer';
  return {
    lifts,
    top: { key: slugify(name), name, sensitive: contact?.sensitive ?? false, number, amount: first.amountDue, dueDate: first.dueDate, daysOverdue: first.daysOverdue, lift: first.lift },
  };
}

export async function loadBriefFacts(db: Db, orgId: string, now: Date): Promise<{ facts: BriefFacts; sensitiveNames: string[]; plan: string | null }> {
  const asOf = utcDate(now);
  const org = await briefOrg(db, orgId);
  if (!org) throw new Error(`organisation ${orgId} not found`);
  const [snap, sensitiveAccounts, debtors, sensitive] = await Promise.all([
    latestSnapshot(db, orgId),
    sensitiveAccountIds(db, orgId),
    overdueByCustomer(db, orgId, asOf),
    sensitiveNames(db, orgId),
  ]);
  const ranking = snap ? await collectionsFacts(db, orgId, now) : { lifts: new Map<string, string>() };
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
      ...(ranking.lifts.has(d.id) ? { lift: ranking.lifts.get(d.id)! } : {}),
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
      weeks: p.weeks
        .slice(0, 13)
        .map((w, i) => ({ n: i + 1, weekStart: w.weekStart, inflow: w.inflow, outflow: w.outflow, net: w.net, closing: w.closing, ...(w.bands ? { closingP10: w.bands.closing.p10 } : {}) })),
      categories,
      ...(p.shortfall
        ? {
            shortfall: {
              threshold: p.shortfall.threshold,
              probability: p.shortfall.probability,
              firstWeek: p.shortfall.firstLikelyWeekIndex === null ? null : p.shortfall.firstLikelyWeekIndex + 1,
              ...(p.shortfall.cushion90 !== undefined ? { cushion90: p.shortfall.cushion90 } : {}),
            },
          }
        : {}),
    };
  }
  return {
    facts: {
      orgName: org.name,
      currency: snap?.payload.currency ?? org.base_currency,
      asOfDate: asOf,
      forecast,
      overdue,
      ...(ranking.top ? { collect: ranking.top } : {}),
      overdueTotal: debtors.reduce((a, d) => a.plus(d.amount), dec(0)).toString(),
      overdueCustomers: debtors.length,
      notes: snap?.payload.notesForAgent ?? [],
    },
    sensitiveNames: sensitive.map((r) => r.name).filter((n) => n.trim() !== ''),
    plan: org.plan,
  };
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
  const existing = await briefTier(db, orgId, asOfDate);
  if (existing) return { orgId, asOfDate, created: false, tier: existing };

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
  // Every contact and account the brief names, with its id: whether each is hidden is decided at every read.
  const mentions = findMentions(payload, await briefNameCandidates(db, orgId), slugify);
  const created = await insertBrief(db, { orgId, asOfDate, generatedAt: now, tier, payload, mentions });
  return { orgId, asOfDate, created, tier, ...(fallback ? { fallback } : {}) };
}

/** Active organisations whose brief for the UTC day of `now` is due (from 06:00 UTC) and missing. */
export async function briefsDue(db: Db, now: Date): Promise<string[]> {
  if (now.getUTCHours() < BRIEF_UTC_HOUR) return [];
  const day = utcDate(now);
  return orgsWithoutBrief(db, day);
}
