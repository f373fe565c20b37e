/**
 * GET /api/agent/cash-position, /api/agent/forecast (READ_FORECAST) and
 * /api/agent/daily-summary (READ_SUMMARY): spec 2.2, 2.3, 2.8, 4.6 and
 * decisions.md. Thin: the forecast and the cash position are read from the
 * latest stored snapshot (written by the forecast job with engineVersion and
 * computedAt); the daily summary adds today's movements, receivables ageing
 * and the narrative. Names of sensitive accounts (forecast categories, cash
 * position accounts) and contacts (daily summary top movements) are rewritten
 * for keys without READ_SENSITIVE; amounts are never masked. docs/forecast.md.
 */
import type { z } from '@hono/zod-openapi';
import { addDays, dateIn } from '../../domain/calendar.js';
import { ANOMALY_FACTOR, ANOMALY_HISTORY_DAYS, ANOMALY_MIN_HISTORY, forecast13w, last7d } from '../../domain/forecast/daily.js';
import type { CashPosition, ForecastPayload, ForecastWeek } from '../../domain/forecast/types.js';
import { horizonTotals, type HorizonTotals } from '../../domain/forecast/totals.js';
import { narrative, narrativeShortfall } from '../../domain/narrative.js';
import { redactNotes } from '../../domain/sensitive.js';
import { canonical, dec } from '../../domain/money.js';
import { isWhatIf, runWhatIf } from '../../domain/forecast/what-if.js';
import { forecastModel } from '../forecast-model.js';
import { CashPositionResponse, DailySummaryResponse, ForecastQuery, ForecastResponse, ScenariosResponse, SENSITIVE_ACCOUNT, SENSITIVE_CONTACT } from '../../schemas/forecast.js';
import { liveCashPosition } from '../../store/queries/cash-position.js';
import {
  countBankAccounts,
  countPendingAnomalies,
  arAgeingInStore,
  unallocatedCredit,
  loadCashEvents,
} from '../../store/queries/daily-summary.js';
import { cashPositionOfSnapshot, outlookOfSnapshot, latestSnapshotRef, snapshotPayload } from '../../store/queries/forecast-snapshots.js';
import { sensitiveIds, type OrgMeta } from '../../store/queries/organisation.js';
import { latestHeadlines, listScenarios, scenarioExists } from '../../store/queries/scenarios.js';
import { AnswerCache, jsonText } from '../answer-cache.js';
import type { Db } from '../../store/db.js';
import type { ApiApp } from '../context.js';
import { ApiError } from '../errors.js';
import { agentRoute, withAlerts } from '../route.js';
import { callerOrg, json, listCaller, notFoundResponse } from '../lists.js';

export const cashPositionRoute = agentRoute('READ_FORECAST', {
  path: '/api/agent/cash-position',
  summary: 'Opening cash: reconciled total, override, adjustment and the effective starting cash',
  description:
    'The opening cash of the latest BASE forecast snapshot (computedAt says when), or, before any forecast is computed, the same figures computed now. ' +
    "ledgerReconciledTotal sums the reconciled balances of the RECONCILED accounts; effectiveStartingCash is the operator's override (source manual) plus the movements since it was set, " +
    'else each account\'s statement balance (STATEMENT) or reconciled balance plus unreconciled movements (RECONCILED). Sensitive account names are rewritten without READ_SENSITIVE.',
  responses: { 200: json(CashPositionResponse, 'Cash position') },
});

export const forecastRoute = agentRoute('READ_FORECAST', {
  path: '/api/agent/forecast',
  summary: 'The latest 13-week cash forecast of a scenario',
  description:
    "Weekly buckets from the Monday of the current week in the organisation's time zone: opening, inflow (guaranteedInflow + forecastInflow), outflow, net and closing, " +
    'with closing = opening + inflow - outflow exactly. Served from the latest snapshot of the scenario (default BASE). 404 not_found when the scenario does not exist or has no forecast yet.',
  request: { query: ForecastQuery },
  responses: { 200: json(ForecastResponse, 'Forecast'), ...notFoundResponse },
});

export const scenariosRoute = agentRoute('READ_FORECAST', {
  path: '/api/agent/scenarios',
  summary: "The organisation's forecast scenarios and their latest headline",
  description:
    'Every scenario (id, name, kind, what it changes) with the headline of its latest forecast (ending cash, lowest closing cash, shortfall probability): compares scenarios in one call; GET /forecast?scenarioId= gives the weeks.',
  responses: { 200: json(ScenariosResponse, 'Scenarios') },
});

export const dailySummaryRoute = agentRoute('READ_SUMMARY', {
  path: '/api/agent/daily-summary',
  summary: 'How is the business going today: cash, last 7 days, receivables, 13-week outlook, narrative',
  description:
    "One call for today (the organisation's time zone): cash today, bank account count, the last 7 days' movements with the top 5 each way, receivables ageing, " +
    'the 13-week outlook of the latest BASE forecast, pending anomalies, a deterministic narrative and notes for the agent. Sensitive contacts in the top lists are renamed without READ_SENSITIVE.',
  responses: { 200: json(DailySummaryResponse, 'Daily summary') },
});

function cashPositionBody(cp: CashPosition, hidden: Set<string>, computedAt: string | null) {
  let redacted = 0;
  const accounts = cp.accounts.map((a) => {
    if (!hidden.has(a.id)) return a;
    redacted++;
    return { ...a, name: SENSITIVE_ACCOUNT };
  });
  return {
    asOfDate: cp.asOfDate,
    startingCash: cp.startingCash,
    source: cp.source,
    ledgerReconciledTotal: cp.ledgerReconciledTotal,
    effectiveStartingCash: cp.effectiveStartingCash,
    adjustment: cp.adjustment,
    currency: cp.currency,
    ...(computedAt ? { computedAt } : {}),
    accounts,
    redactedItemCount: redacted,
  };
}

/**
 * The stored payload as a ForecastResponse: the first `n` weeks (endingCash,
 * minClosingCash and the totals over them), and sensitive accounts' names
 * rewritten in each week's categories, counted per (week, account) pair.
 */
export function shapeForecast(p: ForecastPayload, n: number, hiddenIds: Hidden, detail: 'full' | 'summary' = 'full') {
  const hidden = hiddenIds.accounts;
  const notes = redactNotes(p.notesForAgent ?? [], hiddenIds.contacts);
  let redacted = notes.redacted;
  const weeks: (Omit<ForecastWeek, 'itemIds'> & { itemIds?: string[] })[] = p.weeks.slice(0, n).map((w) => {
    if (detail === 'summary') {
      const { itemIds: _i, overdueItemIds: _o, categories: _c, ...figures } = w;
      return figures;
    }
    if (!w.categories || hidden.size === 0) return w;
    const accounts: NonNullable<ForecastWeek['categories']>['accounts'] = {};
    for (const [id, entry] of Object.entries(w.categories.accounts)) {
      if (hidden.has(id)) {
        redacted++;
        accounts[id] = { ...entry, name: SENSITIVE_ACCOUNT };
      } else accounts[id] = entry;
    }
    return { ...w, categories: { accounts } };
  });
  return {
    scenarioId: p.scenarioId,
    scenarioName: p.scenarioName,
    scenarioKind: p.scenarioKind,
    engineVersion: p.engineVersion,
    computedAt: p.computedAt,
    asOfDate: p.asOfDate,
    currency: p.currency,
    weeks,
    startingCash: p.startingCash,
    // The engine's own totals when every week is returned; over the first n otherwise (the same definition).
    ...(n >= p.weeks.length ? pickTotals(p) : horizonTotals(p.startingCash, weeks)),
    redactedItemCount: redacted,
    notesForAgent: notes.notes,
    ...(p.shortfall ? { shortfall: p.shortfall } : {}),
    ...(p.calibration !== undefined ? { calibration: p.calibration } : {}),
  };
}

/** What a read without READ_SENSITIVE renames: sensitive accounts (categories, bank accounts) and contacts (notes that name one). */
type Hidden = { accounts: Set<string>; contacts: Set<string> };
const NOTHING_HIDDEN: Hidden = { accounts: new Set(), contacts: new Set() };
const NONE_HIDDEN: Promise<Hidden> = Promise.resolve(NOTHING_HIDDEN);

/**
 * A what-if (issue 18, docs/forecast.md#what-if): the scenario computed now
 * from the books with the request's changes on top, and without them, for
 * this request only; nothing is stored or cached.
 */
async function whatIfForecast(db: Db, org: OrgMeta, q: z.output<typeof ForecastQuery>, hidden: Hidden, now: Date) {
  const scenarios = await listScenarios(db, org.id);
  const scenario = q.scenarioId === undefined ? scenarios.find((x) => x.kind === 'BASE') : scenarios.find((x) => x.id === q.scenarioId);
  if (!scenario) throw new ApiError(404, 'not_found', `No scenario ${q.scenarioId ?? 'base'} in this organisation.`, { parameter: 'scenarioId' });
  const model = await forecastModel(db, org, now);
  const run = runWhatIf(model.prepared, scenario, q, now, model.inputs);
  const body = shapeForecast(run.payload, q.weeks, hidden, q.detail);
  const baseline = shapeForecast(run.baseline, q.weeks, NOTHING_HIDDEN, 'summary');
  const minOf = (b: { minClosingCash?: string; endingCash: string }) => b.minClosingCash ?? b.endingCash;
  return {
    ...body,
    whatIf: {
      computed: 'this_request' as const,
      receiptsDelayDays: q.receiptsDelayDays ?? 0,
      excludeContact: q.excludeContact,
      excludedReceiptCount: run.excludedReceiptCount,
      inflowPercent: q.inflowPercent ?? 100,
      outflowPercent: q.outflowPercent ?? 100,
      oneOff: run.oneOff,
      baseline: { endingCash: baseline.endingCash, minClosingCash: minOf(baseline), minClosingCashWeekIndex: baseline.minClosingCashWeekIndex ?? 0 },
      change: { endingCash: canonical(dec(body.endingCash).minus(baseline.endingCash)), minClosingCash: canonical(dec(minOf(body)).minus(minOf(baseline))) },
    },
  };
}

const pickTotals = (p: ForecastPayload): HorizonTotals => ({
  endingCash: p.endingCash,
  minClosingCash: p.minClosingCash,
  minClosingCashWeekIndex: p.minClosingCashWeekIndex,
  totalInflow: p.totalInflow,
  totalOutflow: p.totalOutflow,
});

/** The shaped /forecast answers of this process (src/api/answer-cache.ts). */
const forecastAnswers = new AnswerCache<Buffer>();
/**
 * Parts of the latest BASE snapshot (its outlook, its cash position) for this
 * process, by snapshot id: the id is read on every request (a recompute is
 * seen at once), the part itself (a read that makes PostgreSQL detoast a
 * payload of megabytes on a large ledger) once per snapshot.
 */
const snapshotParts = new AnswerCache(8 * 1024 * 1024);

async function fromLatestSnapshot<T>(db: Db, orgId: string, part: string, load: (snapshotId: string) => Promise<T | null>): Promise<T | null> {
  const ref = await latestSnapshotRef(db, orgId);
  if (!ref) return null;
  const key = `${part}\0${orgId}\0${ref.id}`;
  const hit = snapshotParts.get(key);
  if (hit !== undefined) return JSON.parse(hit) as T;
  const value = await load(ref.id);
  if (value !== null) snapshotParts.set(key, JSON.stringify(value));
  return value;
}

export function registerForecast(app: ApiApp) {
  return app
    .openapi(cashPositionRoute, async (c) => {
      const { orgId, gate } = listCaller(c);
      const db = c.get('db');
      const [snap, hidden] = await Promise.all([
        fromLatestSnapshot(db, orgId, 'cash-position', (id) => cashPositionOfSnapshot(db, orgId, id)),
        gate ? sensitiveIds(db, orgId) : NONE_HIDDEN,
      ]);
      if (snap) {
        const body = cashPositionBody(snap.cashPosition, hidden.accounts, snap.computedAt);
        const notes = redactNotes(snap.notesForAgent, hidden.contacts);
        return c.json(withAlerts(c, { ...body, redactedItemCount: body.redactedItemCount + notes.redacted, notesForAgent: notes.notes }), 200);
      }
      const org = callerOrg(c);
      const cp = await liveCashPosition(db, org, dateIn(org.timezone, c.get('deps').clock.now()));
      return c.json(withAlerts(c, cashPositionBody(cp, hidden.accounts, null)), 200);
    })
    .openapi(forecastRoute, async (c) => {
      const { orgId, gate } = listCaller(c);
      const q = c.req.valid('query');
      const db = c.get('db');
      if (isWhatIf(q)) {
        const hidden = await (gate ? sensitiveIds(db, orgId) : NONE_HIDDEN);
        return c.json(withAlerts(c, await whatIfForecast(db, callerOrg(c), q, hidden, c.get('deps').clock.now())), 200);
      }
      const [ref, hidden] = await Promise.all([latestSnapshotRef(db, orgId, q.scenarioId), gate ? sensitiveIds(db, orgId) : NONE_HIDDEN]);
      // The shaped answer of a snapshot is immutable: served from the answer cache when this process has it.
      const key = ref && `${orgId}\0${ref.id}\0${q.weeks}\0${q.detail}\0${[...hidden.accounts].sort().join(',')}\0${[...hidden.contacts].sort().join(',')}`;
      let json = key ? forecastAnswers.get(key) : undefined; // UTF-8 bytes: sent as they are
      if (json === undefined) {
        const snap = ref && (await snapshotPayload(db, orgId, ref));
        if (!snap) {
          if (q.scenarioId !== undefined && !(await scenarioExists(db, orgId, q.scenarioId))) {
            throw new ApiError(404, 'not_found', `No scenario ${q.scenarioId} in this organisation.`, { parameter: 'scenarioId' });
          }
          throw new ApiError(404, 'not_found', 'No forecast has been computed for this organisation yet (cashline-server recompute computes it).');
        }
        json = Buffer.from(JSON.stringify(shapeForecast(snap.payload, q.weeks, hidden, q.detail)));
        forecastAnswers.set(key!, json);
      }
      return jsonText<z.output<typeof ForecastResponse>>(c, json);
    })
    .openapi(scenariosRoute, async (c) => {
      const { orgId } = listCaller(c);
      const db = c.get('db');
      const [list, heads] = await Promise.all([listScenarios(db, orgId), latestHeadlines(db, orgId)]);
      const scenarios = list.map((sc) => {
        const h = heads.get(sc.id);
        return { ...sc, latestForecast: h ? { ...h, computedAt: h.computedAt.toISOString() } : null };
      });
      return c.json(withAlerts(c, { scenarios }), 200);
    })
    .openapi(dailySummaryRoute, async (c) => {
      const { orgId, gate } = listCaller(c);
      const org = callerOrg(c);
      const db = c.get('db');
      const now = c.get('deps').clock.now();
      const asOf = dateIn(org.timezone, now);
      const [cp, events, anomalies, ar, credit, bankAccounts, snap, hidden] = await Promise.all([
        liveCashPosition(db, org, asOf),
        loadCashEvents(db, orgId, addDays(asOf, -6), asOf),
        countPendingAnomalies(db, orgId, asOf, { factor: ANOMALY_FACTOR, historyDays: ANOMALY_HISTORY_DAYS, minHistory: ANOMALY_MIN_HISTORY }),
        arAgeingInStore(db, orgId, asOf),
        unallocatedCredit(db, orgId, 'AR'),
        countBankAccounts(db, orgId),
        fromLatestSnapshot(db, orgId, 'outlook', (id) => outlookOfSnapshot(db, orgId, id)),
        gate ? sensitiveIds(db, orgId) : NONE_HIDDEN,
      ]);
      const l7 = last7d(events, asOf);
      let redacted = 0;
      const rename = (list: typeof l7.topInflows) =>
        list.map((e) => {
          const hide = gate && e.contactSensitive;
          if (hide) redacted++;
          return { contactName: hide ? SENSITIVE_CONTACT : e.contactName, amount: e.amount, date: e.date };
        });
      const topInflows = rename(l7.topInflows);
      const topOutflows = rename(l7.topOutflows);
      const f13 = snap ? forecast13w(snap) : null;
      const notes = redactNotes(snap?.notesForAgent ?? [], hidden.contacts);
      const body = {
        orgName: org.name,
        generatedAt: now.toISOString(),
        asOfDate: asOf,
        cashToday: { amount: cp.effectiveStartingCash, currency: cp.currency, source: cp.source },
        bankAccounts,
        last7d: { inflow: l7.inflow, outflow: l7.outflow, net: l7.net, topInflows, topOutflows },
        ar: { ...ar, unallocatedCredit: credit.account, unallocatedPrepayments: credit.prepayments },
        forecast13w: f13 ?? { endingCash: null, lowestClosingCash: null, lowestWeekStart: null, breakEvenDate: null },
        anomalies: { pending: anomalies },
        narrative: narrative({ currency: cp.currency, cashToday: cp.effectiveStartingCash, bankAccounts, last7d: l7, ar, forecast13w: f13, shortfall: narrativeShortfall(snap) }),
        notesForAgent: notes.notes,
        redactedItemCount: redacted + notes.redacted,
      };
      return c.json(withAlerts(c, body), 200);
    });
}
