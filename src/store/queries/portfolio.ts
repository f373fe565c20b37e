/**
 * What the partner portfolio (GET /api/agent/portfolio, docs/portfolio.md)
 * reads of every client organisation linked to a practice, in one query:
 * the organisation, its billing account (whose credits a row spends), its
 * ledger connection (the ledger alert), and the figures of its latest BASE
 * forecast snapshot, the one /forecast and /cash-position serve. The overdue
 * receivables of them all are `overdueReceivables` (daily-summary.ts).
 */
import { sql } from 'drizzle-orm';
import { type Db, pgTimestamp, rows } from '../db.js';
import { connectionHealth, CONNECTION_HEALTH_COLUMNS, type ConnectionHealthRow } from './connections.js';
import { baseScenarioOf } from './scenarios.js';

export interface PortfolioOrg {
  orgId: string;
  name: string;
  timezone: string;
  baseCurrency: string;
  /** The organisation's cash buffer (a decimal string), or null. */
  cashBuffer: string | null;
  /** The billing account a read of this organisation is metered to (null: not metered). */
  billing: { id: string; plan: string } | null;
  connection: ReturnType<typeof connectionHealth>;
  /** The latest BASE forecast snapshot's figures; null before the first forecast. */
  forecast: {
    snapshotId: string;
    computedAt: Date;
    asOfDate: string;
    minClosingCash: string;
    minClosingCashWeekIndex: number;
    minClosingCashWeekStart: string | null;
    /** null: a forecast without bands (engine version < 3). */
    shortfall: { probability: number; threshold: string } | null;
    /** The snapshot's cashPosition.effectiveStartingCash (null when it has none). */
    effectiveStartingCash: string | null;
  } | null;
}

type Row = {
  id: string;
  name: string;
  timezone: string;
  base_currency: string;
  cash_buffer: string | null;
  billing_id: string | null;
  plan: string | null;
  snapshot_id: string | null;
  computed_at: unknown;
  as_of_date: string | null;
  min_closing: string | null;
  min_week: string | null;
  min_week_start: string | null;
  probability: string | null;
  threshold: string | null;
  cash: string | null;
} & ConnectionHealthRow;

/**
 * Every organisation linked to the partner practice, with what the portfolio
 * ranks and shows. The snapshot's payload (megabytes on a large ledger) is
 * read once per organisation: the lateral subquery detoasts it once, and
 * only its small parts leave the store.
 */
export async function portfolioOrgs(db: Db, partnerId: string): Promise<PortfolioOrg[]> {
  const list = await rows<Row>(
    db,
    sql`select o.id, o.name, o.timezone, o.base_currency, o.cash_buffer::text as cash_buffer, b.id as billing_id, b.plan,
          ${CONNECTION_HEALTH_COLUMNS},
          f.id as snapshot_id, f.computed_at, f.as_of_date,
          f.p->>'minClosingCash' as min_closing, f.p->>'minClosingCashWeekIndex' as min_week,
          f.p->'weeks'->((f.p->>'minClosingCashWeekIndex')::int)->>'weekStart' as min_week_start,
          f.p->'shortfall'->>'probability' as probability, f.p->'shortfall'->>'threshold' as threshold,
          f.p->'cashPosition'->>'effectiveStartingCash' as cash
        from partner_links pl
        join organisations o on o.id = pl.org_id
        left join billing_accounts b on b.id = o.billing_account_id
        left join ledger_connections lc on lc.org_id = o.id
        left join lateral (
          select s.id, s.computed_at, s.as_of_date::text as as_of_date, s.payload || '{}'::jsonb as p
          from forecast_snapshots s
          where s.org_id = o.id and s.id = (
            select r.id from forecast_snapshots r
            where r.org_id = o.id and r.scenario_id = ${baseScenarioOf(sql`o.id`)}
            order by r.computed_at desc, r.id desc limit 1)
          offset 0) f on true
        where pl.partner_id = ${partnerId}`,
  );
  return list.map((r) => ({
    orgId: r.id,
    name: r.name,
    timezone: r.timezone,
    baseCurrency: r.base_currency,
    cashBuffer: r.cash_buffer,
    billing: r.billing_id ? { id: r.billing_id, plan: r.plan ?? 'Free' } : null,
    connection: connectionHealth(r),
    forecast:
      r.snapshot_id && r.min_closing !== null
        ? {
            snapshotId: r.snapshot_id,
            computedAt: pgTimestamp(r.computed_at)!,
            asOfDate: r.as_of_date!,
            minClosingCash: r.min_closing,
            minClosingCashWeekIndex: Number(r.min_week),
            minClosingCashWeekStart: r.min_week_start,
            shortfall: r.probability !== null && r.threshold !== null ? { probability: Number(r.probability), threshold: r.threshold } : null,
            effectiveStartingCash: r.cash,
          }
        : null,
  }));
}
