/**
 * What GET /forecast/changes compares (docs/forecast.md#changes): two kept
 * BASE snapshots, each one's items added up per item
 * (forecast_snapshot_items), the open documents each recompute knew
 * (forecast_recompute_documents, written by storeSnapshots) and the
 * ledger's current state of the documents the later one no longer forecasts.
 */
import { sql } from 'drizzle-orm';
import { type Db, pgTimestamp, rows } from '../db.js';
import type { DocumentState, ItemTotal } from '../../domain/forecast/changes.js';
import type { ItemKind } from '../../domain/forecast/items.js';
import { baseScenarioOf } from './scenarios.js';
import { base } from './forecast-items.js';

/** Rows per INSERT. */
const CHUNK = 20_000;

/** Writes the open documents of the recompute at `computedAt` (inside storeSnapshots' transaction; a recompute at the same instant replaces them). */
export async function insertRecomputeDocuments(db: Pick<Db, 'execute'>, orgId: string, computedAt: Date, docs: readonly (DocumentState & { id: string })[]): Promise<void> {
  const at = computedAt.toISOString();
  await db.execute(sql`delete from forecast_recompute_documents where org_id = ${orgId} and computed_at = ${at}::timestamptz`);
  for (let from = 0; from < docs.length; from += CHUNK) {
    const part = JSON.stringify(docs.slice(from, from + CHUNK).map((d) => ({ i: d.id, k: d.kind, c: d.contactId, s: d.status, t: d.total, a: d.amountDue, d: d.dueDate })));
    await db.execute(sql`insert into forecast_recompute_documents (org_id, computed_at, document_id, kind, contact_id, status, total, amount_due, due_date)
        select ${orgId}, ${at}::timestamptz, u.i, u.k, u.c, u.s, u.t, u.a, u.d from json_to_recordset(${part}::json) as u(i text, k text, c text, s text, t numeric, a numeric, d date)
        on conflict do nothing`);
  }
}

/** A kept snapshot as the comparison needs it. */
export interface ChangeSnapshot {
  id: string;
  computedAt: Date;
  asOfDate: string;
}

type Row = { id: string; computed_at: unknown; as_of_date: string };
const snapshotOf = (r: Row): ChangeSnapshot => ({ id: r.id, computedAt: pgTimestamp(r.computed_at)!, asOfDate: r.as_of_date });

/** The latest BASE snapshot stored with its items (null: none). */
export async function latestComparable(db: Db, orgId: string): Promise<ChangeSnapshot | null> {
  const [r] = await rows<Row>(
    db,
    sql`select id, computed_at, as_of_date::text as as_of_date from forecast_snapshots
        where org_id = ${orgId} and scenario_id = ${baseScenarioOf(orgId)} and item_count is not null
        order by computed_at desc, id desc limit 1`,
  );
  return r ? snapshotOf(r) : null;
}

/**
 * The BASE snapshot `to` is compared with: the latest one computed before it
 * with its items and, with `since`, an as-of date on or before `since`.
 */
export async function earlierComparable(db: Db, orgId: string, to: ChangeSnapshot, since?: string): Promise<ChangeSnapshot | null> {
  const [r] = await rows<Row>(
    db,
    sql`select id, computed_at, as_of_date::text as as_of_date from forecast_snapshots
        where org_id = ${orgId} and scenario_id = ${baseScenarioOf(orgId)} and item_count is not null
          and (computed_at, id) < (${to.computedAt.toISOString()}::timestamptz, ${to.id})
          ${since === undefined ? sql`` : sql`and as_of_date <= ${since}`}
        order by computed_at desc, id desc limit 1`,
  );
  return r ? snapshotOf(r) : null;
}

/** A snapshot's items added up per item over its 13 weeks and over its weeks up to `lowestWeek`, with the week holding most of each. */
export async function snapshotItemTotals(db: Db, orgId: string, snapshotId: string, lowestWeek: number): Promise<ItemTotal[]> {
  const r = await rows<{ item_id: string; direction: 'in' | 'out'; kind: ItemKind; document_id: string | null; contact_id: string | null; amount: string; low: string; week: number | string }>(
    db,
    sql`select item_id, direction, min(kind) as kind, min(document_id) as document_id, min(contact_id) as contact_id,
          sum(amount)::text as amount, coalesce(sum(amount) filter (where week_index <= ${lowestWeek}), 0)::text as low,
          (array_agg(week_index order by amount desc, week_index))[1] as week
        from forecast_snapshot_items where org_id = ${orgId} and snapshot_id = ${snapshotId}
        group by item_id, direction`,
  );
  return r.map((x) => ({
    itemId: x.item_id,
    direction: x.direction,
    kind: x.kind,
    documentId: x.document_id,
    contactId: x.contact_id,
    amount: x.amount,
    toLowest: x.low,
    week: Number(x.week),
  }));
}

/** The open documents the recompute at `computedAt` knew. */
export async function recomputeDocuments(db: Db, orgId: string, computedAt: Date): Promise<Map<string, DocumentState>> {
  const r = await rows<{ document_id: string; kind: DocumentState['kind']; contact_id: string | null; status: string; total: string; amount_due: string; due_date: string | null }>(
    db,
    sql`select document_id, kind, contact_id, status, total::text as total, amount_due::text as amount_due, due_date::text as due_date
        from forecast_recompute_documents where org_id = ${orgId} and computed_at = ${computedAt.toISOString()}::timestamptz`,
  );
  return new Map(r.map((x) => [x.document_id, { kind: x.kind, contactId: x.contact_id, status: x.status, total: x.total, amountDue: x.amount_due, dueDate: x.due_date }]));
}

/** The ledger's state now of these invoices, bills and purchase orders (status and amount due in the base currency); an id it no longer holds is absent. */
export async function currentDocumentStates(db: Db, orgId: string, ids: readonly string[]): Promise<Map<string, { status: string; amountDue: string }>> {
  if (ids.length === 0) return new Map();
  const list = sql.param([...ids]);
  const r = await rows<{ id: string; status: string; due: string }>(
    db,
    sql`select i.id, i.ledger_status as status, ${base('amount_due')}::text as due
          from cash_items i join organisations o on o.id = i.org_id where i.org_id = ${orgId} and i.id = any(${list}::text[])
        union all
        select p.id, p.status, p.total::text from purchase_orders p where p.org_id = ${orgId} and p.id = any(${list}::text[])`,
  );
  return new Map(r.map((x) => [x.id, { status: x.status, amountDue: x.due }]));
}

/** What the comparison reads of a snapshot's payload: its cash figures, lowest week and week starts. */
export interface SnapshotHeadline {
  startingCash: string;
  /** The starting cash before an operator's override: with one (source manual), what the accounts contribute (their effectiveBalance); without, the starting cash. */
  ledgerCash: string;
  /** Whether the recompute's open documents were stored with it (not for a forecast stored before migration 0014). */
  documentsKnown: boolean;
  endingCash: string;
  minClosingCash: string;
  lowestWeek: number;
  weekStarts: string[];
}

export async function snapshotHeadline(db: Db, orgId: string, snapshotId: string): Promise<SnapshotHeadline | null> {
  const [r] = await rows<{ start: string; source: string | null; ledger: string | null; end: string; min: string; low: number | string; starts: string[]; docs: boolean }>(
    db,
    sql`select f.payload->>'startingCash' as start, f.payload->'cashPosition'->>'source' as source,
          (select sum((a->>'effectiveBalance')::numeric)::text from jsonb_array_elements(f.payload->'cashPosition'->'accounts') as a) as ledger,
          f.payload->>'endingCash' as "end",
          f.payload->>'minClosingCash' as min, f.payload->>'minClosingCashWeekIndex' as low,
          (select coalesce(jsonb_agg(w->>'weekStart' order by n), '[]'::jsonb) from jsonb_array_elements(f.payload->'weeks') with ordinality as x(w, n)) as starts,
          exists (select 1 from forecast_recompute_documents d where d.org_id = f.org_id and d.computed_at = f.computed_at) as docs
        from forecast_snapshots f where f.org_id = ${orgId} and f.id = ${snapshotId}`,
  );
  if (!r) return null;
  return {
    startingCash: r.start,
    ledgerCash: r.source === 'manual' && r.ledger !== null ? r.ledger : r.start,
    endingCash: r.end,
    minClosingCash: r.min,
    lowestWeek: Number(r.low),
    weekStarts: r.starts,
    documentsKnown: r.docs,
  };
}
