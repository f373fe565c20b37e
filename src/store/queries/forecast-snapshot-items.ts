/**
 * What makes up each week of a stored forecast snapshot
 * (docs/forecast.md#items): written with the snapshot (storeSnapshots), one
 * row per (week, item, direction), and read a page at a time by
 * GET /api/agent/forecast/items in the rank the engine gave them (`seq`:
 * amount descending, then item id, then in before out). Contact names are
 * read at read time, so a contact marked sensitive after the snapshot is
 * hidden too.
 */
import { sql, type SQL } from 'drizzle-orm';
import { type Db, pgTimestamp, rows } from '../db.js';
import { canonical } from '../../domain/money.js';
import { SENSITIVE_CONTACT } from '../../domain/sensitive.js';
import { renderReason, type ForecastItem, type ItemKind, type ReasonCode } from '../../domain/forecast/items.js';

/** Rows per INSERT (one array per column, zipped by unnest). */
const CHUNK = 20_000;

/**
 * Writes a snapshot's items (inside storeSnapshots' transaction, after its
 * row): each distinct wording once in forecast_snapshot_reasons, the rows
 * with its id.
 */
export async function insertSnapshotItems(db: Pick<Db, 'execute'>, orgId: string, snapshotId: string, items: readonly ForecastItem[]): Promise<void> {
  const ids = new Map<string, number>();
  const reasonIds = items.map((i) => {
    let id = ids.get(i.template);
    if (id === undefined) ids.set(i.template, (id = ids.size + 1));
    return id;
  });
  const templates = [...ids.keys()];
  for (let from = 0; from < templates.length; from += CHUNK) {
    const part = templates.slice(from, from + CHUNK);
    await db.execute(sql`insert into forecast_snapshot_reasons (org_id, snapshot_id, reason_id, template)
        select ${orgId}, ${snapshotId}, ${from}::int + u.n::int, u.t from unnest(${sql.param(part)}::text[]) with ordinality as u(t, n)`);
  }
  for (let from = 0; from < items.length; from += CHUNK) {
    // One JSON text parameter: far cheaper to encode than twelve text arrays of tens of thousands of strings.
    const part = JSON.stringify(
      items.slice(from, from + CHUNK).map((i, n) => ({
        w: i.weekIndex,
        q: i.seq,
        i: i.itemId,
        d: i.direction,
        k: i.kind,
        doc: i.documentId,
        c: i.contactId,
        a: i.amount,
        e: i.expectedDate,
        p: i.probability,
        rc: i.reasonCode,
        r: reasonIds[from + n],
      })),
    );
    await db.execute(sql`insert into forecast_snapshot_items (org_id, snapshot_id, week_index, seq, item_id, direction, kind, document_id, contact_id,
          amount, expected_date, probability, reason_code, reason_id)
        select ${orgId}, ${snapshotId}, u.w, u.q, u.i, u.d, u.k, u.doc, u.c, u.a, u.e, u.p, u.rc, u.r
        from json_to_recordset(${part}::json)
          as u(w smallint, q int, i text, d text, k text, doc text, c text, a numeric, e date, p float8, rc text, r int)`);
  }
}

/** Deletes the items (and their wordings) of the snapshots whose ids `snapshotIds` selects (a subquery or a list). */
export async function deleteSnapshotItems(db: Pick<Db, 'execute'>, orgId: string, snapshotIds: SQL): Promise<void> {
  await db.execute(sql`delete from forecast_snapshot_items where org_id = ${orgId} and snapshot_id in (${snapshotIds})`);
  await db.execute(sql`delete from forecast_snapshot_reasons where org_id = ${orgId} and snapshot_id in (${snapshotIds})`);
}

/** A snapshot as the items endpoint needs it. */
export interface ItemsSnapshot {
  id: string;
  scenarioId: string;
  asOfDate: string;
  computedAt: Date;
  /** Items stored with it; null: stored before items were (recompute to have them). */
  itemCount: number | null;
}

type SnapshotRow = { id: string; scenario_id: string; as_of_date: string; computed_at: unknown; item_count: number | string | null };

const snapshotOf = (r: SnapshotRow): ItemsSnapshot => ({
  id: r.id,
  scenarioId: r.scenario_id,
  asOfDate: r.as_of_date,
  computedAt: pgTimestamp(r.computed_at)!,
  itemCount: r.item_count === null ? null : Number(r.item_count),
});

/** The latest snapshot of a scenario (default: the organisation's BASE one), the one GET /forecast serves. */
export async function latestItemsSnapshot(db: Db, orgId: string, scenarioId?: string): Promise<ItemsSnapshot | null> {
  const scenario =
    scenarioId === undefined
      ? sql`(select id from forecast_scenarios where org_id = ${orgId} and kind = 'BASE' order by created_at, id limit 1)`
      : sql`${scenarioId}`;
  const [r] = await rows<SnapshotRow>(
    db,
    sql`select id, scenario_id, as_of_date::text as as_of_date, computed_at, item_count from forecast_snapshots
        where org_id = ${orgId} and scenario_id = ${scenario} order by computed_at desc, id desc limit 1`,
  );
  return r ? snapshotOf(r) : null;
}

/** A snapshot by id (a cursor's), null when it is no longer kept. */
export async function itemsSnapshotById(db: Db, orgId: string, snapshotId: string): Promise<ItemsSnapshot | null> {
  const [r] = await rows<SnapshotRow>(
    db,
    sql`select id, scenario_id, as_of_date::text as as_of_date, computed_at, item_count from forecast_snapshots where org_id = ${orgId} and id = ${snapshotId}`,
  );
  return r ? snapshotOf(r) : null;
}

export interface ItemsPageInput {
  orgId: string;
  snapshotId: string;
  week: number;
  /** Only this kind; undefined: every kind. */
  kind?: ItemKind | undefined;
  /** The `seq` of the last row served (0: from the first). */
  afterSeq: number;
  limit: number;
  /** The key lacks READ_SENSITIVE: sensitive contacts' names are rewritten. */
  gate: boolean;
  totals: boolean;
}

/** One item as the API answers it. */
export interface ItemRow {
  itemId: string;
  kind: ItemKind;
  documentId: string | null;
  contactId: string | null;
  contactName: string | null;
  direction: 'in' | 'out';
  amount: string;
  expectedDate: string;
  probability: number;
  reasonCode: ReasonCode;
  reason: string;
}

export interface ItemsPage {
  items: ItemRow[];
  /** The `seq` to continue after; null on the last page. */
  next: number | null;
  totalCount: number;
  redactedItemCount: number;
  /** Over every matched item (not the page): what comes in and goes out. */
  totals?: { inflow: string; outflow: string };
}

/** A page of one week's items, in rank order, with the count (and totals) of every matched item. */
export async function forecastItemsPage(db: Db, input: ItemsPageInput): Promise<ItemsPage> {
  const where: SQL = sql`i.org_id = ${input.orgId} and i.snapshot_id = ${input.snapshotId} and i.week_index = ${input.week}${input.kind ? sql` and i.kind = ${input.kind}` : sql``}`;
  const [list, [agg]] = await Promise.all([
    rows<{
      seq: number | string;
      item_id: string;
      kind: ItemKind;
      document_id: string | null;
      contact_id: string | null;
      contact_name: string | null;
      hidden: boolean;
      direction: 'in' | 'out';
      amount: string;
      expected_date: string;
      probability: number | string;
      reason_code: ReasonCode;
      template: string;
    }>(
      db,
      sql`select i.seq, i.item_id, i.kind, i.document_id, i.contact_id, c.name as contact_name,
            (${input.gate}::boolean and coalesce(c.is_sensitive, false)) as hidden, i.direction, i.amount::text as amount,
            i.expected_date::text as expected_date, i.probability, i.reason_code, r.template
          from forecast_snapshot_items i
          join forecast_snapshot_reasons r on r.org_id = i.org_id and r.snapshot_id = i.snapshot_id and r.reason_id = i.reason_id
          left join contacts c on c.org_id = i.org_id and c.id = i.contact_id
          where ${where} and i.seq > ${input.afterSeq}
          order by i.seq limit ${input.limit + 1}`,
    ),
    rows<{ n: number | string; inflow: string | null; outflow: string | null }>(
      db,
      sql`select count(*) as n, ${input.totals ? sql`sum(i.amount) filter (where i.direction = 'in')::text` : sql`null::text`} as inflow,
            ${input.totals ? sql`sum(i.amount) filter (where i.direction = 'out')::text` : sql`null::text`} as outflow
          from forecast_snapshot_items i where ${where}`,
    ),
  ]);
  const more = list.length > input.limit;
  const page = more ? list.slice(0, input.limit) : list;
  let redacted = 0;
  const items = page.map((r): ItemRow => {
    if (r.hidden) redacted++;
    const probability = Number(r.probability);
    return {
      itemId: r.item_id,
      kind: r.kind,
      documentId: r.document_id,
      contactId: r.contact_id,
      contactName: r.hidden ? SENSITIVE_CONTACT : r.contact_name,
      direction: r.direction,
      amount: canonical(r.amount),
      expectedDate: r.expected_date,
      probability,
      reasonCode: r.reason_code,
      reason: renderReason(r.template, probability),
    };
  });
  return {
    items,
    next: more ? Number(page[page.length - 1]!.seq) : null,
    totalCount: Number(agg?.n ?? 0),
    redactedItemCount: redacted,
    ...(input.totals ? { totals: { inflow: canonical(agg?.inflow ?? '0'), outflow: canonical(agg?.outflow ?? '0') } } : {}),
  };
}
