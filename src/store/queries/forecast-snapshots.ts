/**
 * What a forecast run stores and the endpoints read back: the snapshots of
 * each scenario's forecast (stored and pruned, the latest one, its payload
 * read to the current shape, the parts of it one endpoint needs) and each
 * purchase order's suppression.
 */
import { and, eq, sql } from 'drizzle-orm';
import { type Db, pgTimestamp, rows } from '../db.js';
import * as s from '../schema.js';
import type { ForecastItem } from '../../domain/forecast/items.js';
import type { ForecastPayload } from '../../domain/forecast/types.js';
import { deleteSnapshotItems, insertSnapshotItems } from './forecast-snapshot-items.js';
import { keepStoredForecast } from './track-record.js';
import { baseScenarioOf } from './scenarios.js';
import { insertRecomputeDocuments } from './forecast-changes.js';
import type { DocumentState } from '../../domain/forecast/changes.js';
import { trackWeeksOfPayload } from '../../domain/forecast/accuracy.js';

/** Snapshots kept per scenario (older ones are pruned when a new one is stored). */
export const SNAPSHOTS_KEPT = 10;
/** Besides them, the BASE scenario keeps the last snapshot of each of this many days (GET /forecast/changes?since=). */
export const DAILY_SNAPSHOTS_KEPT = 14;

/**
 * Stores one snapshot per scenario, with each scenario's items (`items[i]`
 * for `payloads[i]`: what makes up its weeks, docs/forecast.md#items) and
 * the open documents the recompute knew (docs/forecast.md#changes) when
 * given; keeps the week's first BASE forecast in the track record; and
 * prunes the oldest snapshots (their items, and documents no snapshot
 * shares any more, go with them): SNAPSHOTS_KEPT per scenario, and for BASE
 * also the last of each of the DAILY_SNAPSHOTS_KEPT days before the latest.
 */
export interface StoreOptions {
  /** What makes up each scenario's weeks (`items[i]` for `payloads[i]`). */
  items?: readonly (readonly ForecastItem[])[];
  /** The open documents the recompute knew. */
  documents?: readonly (DocumentState & { id: string })[];
  /** Keep the week's first BASE forecast in the track record (default true; false for a replayed one). */
  track?: boolean;
}

export async function storeSnapshots(
  db: Db,
  orgId: string,
  payloads: ForecastPayload[],
  computedAt: Date,
  { items, documents, track = true }: StoreOptions = {}): Promise<void> {
  if (payloads.length === 0) return;
  const ids = payloads.map((p) => `${p.scenarioId}:${computedAt.toISOString()}`);
  await db.transaction(async (tx) => {
    await tx.insert(s.forecastSnapshots).values(
      payloads.map((p, i) => ({
        orgId,
        id: ids[i]!,
        scenarioId: p.scenarioId,
        engineVersion: p.engineVersion,
        asOfDate: p.asOfDate,
        computedAt,
        payload: p,
        itemCount: items?.[i]?.length ?? null,
      })),
    // A recompute at the same instant (a frozen CASHLINE_NOW, an operator change right after a recompute) replaces that snapshot.
    ).onConflictDoUpdate({
      target: [s.forecastSnapshots.orgId, s.forecastSnapshots.id],
      set: { engineVersion: sql`excluded.engine_version`, asOfDate: sql`excluded.as_of_date`, payload: sql`excluded.payload`, itemCount: sql`excluded.item_count` },
    });
    // The items of a replaced snapshot are written afresh.
    await deleteSnapshotItems(tx, orgId, sql.join(ids.map((id) => sql`${id}`), sql`, `));
    if (items) for (const [i, list] of items.entries()) await insertSnapshotItems(tx, orgId, ids[i]!, list);
    // The week's first BASE forecast joins the track record (docs/forecast.md#accuracy).
    const base = payloads.findIndex((p) => p.scenarioKind === 'BASE');
    if (track && base >= 0) {
      const p = payloads[base]!;
      await keepStoredForecast(tx, orgId, { asOfDate: p.asOfDate, snapshotId: ids[base]!, computedAt, startingCash: p.startingCash, weeks: trackWeeksOfPayload(p) });
    }
    if (documents) await insertRecomputeDocuments(tx, orgId, computedAt, documents);
    // The pruned snapshots' items go with them, and the documents of an instant no snapshot is left of.
    const gone = await rows<{ id: string; computed_at: unknown }>(
      tx,
      sql`delete from forecast_snapshots f where f.org_id = ${orgId} and f.id in (
        select id from (select id, scenario_id, as_of_date,
            row_number() over (partition by scenario_id order by computed_at desc, id desc) as n,
            row_number() over (partition by scenario_id, as_of_date order by computed_at desc, id desc) as d,
            max(as_of_date) over (partition by scenario_id) as latest
          from forecast_snapshots where org_id = ${orgId}) r
        where r.n > ${SNAPSHOTS_KEPT}
          and not (r.d = 1 and r.as_of_date >= r.latest - ${DAILY_SNAPSHOTS_KEPT}::int and r.scenario_id = ${baseScenarioOf(orgId)})) returning f.id, f.computed_at`,
    );
    if (gone.length) {
      await deleteSnapshotItems(tx, orgId, sql.join(gone.map((g) => sql`${g.id}`), sql`, `));
      const instants = [...new Set(gone.map((g) => pgTimestamp(g.computed_at)!.toISOString()))];
      await tx.execute(sql`delete from forecast_recompute_documents d where d.org_id = ${orgId}
          and d.computed_at in (${sql.join(instants.map((t) => sql`${t}::timestamptz`), sql`, `)})
          and not exists (select 1 from forecast_snapshots f where f.org_id = d.org_id and f.computed_at = d.computed_at)`);
    }
  });
}

export interface StoredSnapshot {
  id: string;
  scenarioId: string;
  engineVersion: number;
  asOfDate: string;
  computedAt: Date;
  payload: ForecastPayload;
}

/**
 * The latest snapshot of a scenario (default: the organisation's BASE), read
 * to the current payload shape: an engineVersion 1 snapshot (written before
 * the inflow split) gets forecastInflow '0' and no guaranteedInflow (spec 9).
 */
export async function latestSnapshot(db: Db, orgId: string, scenarioId?: string): Promise<StoredSnapshot | null> {
  const ref = await latestSnapshotRef(db, orgId, scenarioId);
  return ref ? snapshotPayload(db, orgId, ref) : null;
}

/** A snapshot without its payload: enough to know which one is the latest (and to key a cache by its id). */
export type SnapshotRef = Omit<StoredSnapshot, 'payload'>;

/** The latest snapshot of a scenario (default: the BASE one), without reading its payload. */
export async function latestSnapshotRef(db: Db, orgId: string, scenarioId?: string): Promise<SnapshotRef | null> {
  const scenario = scenarioId === undefined ? baseScenarioOf(orgId) : sql`${scenarioId}`;
  const [row] = await rows<{ id: string; scenario_id: string; engine_version: number | string; as_of_date: string; computed_at: unknown }>(
    db,
    sql`select id, scenario_id, engine_version, as_of_date::text as as_of_date, computed_at from forecast_snapshots
        where org_id = ${orgId} and scenario_id = ${scenario}
        order by computed_at desc, id desc limit 1`,
  );
  if (!row) return null;
  return {
    id: row.id,
    scenarioId: row.scenario_id,
    engineVersion: Number(row.engine_version),
    asOfDate: row.as_of_date,
    computedAt: pgTimestamp(row.computed_at)!,
  };
}

/** The payload of a snapshot (read to the current shape). */
export async function snapshotPayload(db: Db, orgId: string, ref: SnapshotRef): Promise<StoredSnapshot | null> {
  const [row] = await db
    .select({ payload: s.forecastSnapshots.payload })
    .from(s.forecastSnapshots)
    .where(and(eq(s.forecastSnapshots.orgId, orgId), eq(s.forecastSnapshots.id, ref.id)));
  if (!row) return null; // pruned since the ref was read
  return { ...ref, payload: readPayload(ref.engineVersion, row.payload, ref.computedAt) };
}

/** A stored payload in the current shape (engineVersion 1: no split; forecastInflow reads as 0). */
export function readPayload(engineVersion: number, raw: unknown, computedAt: Date): ForecastPayload {
  const p = { ...(raw as ForecastPayload) };
  p.engineVersion = engineVersion;
  p.computedAt ??= computedAt.toISOString();
  p.notesForAgent ??= [];
  if (engineVersion < 2) {
    p.weeks = (p.weeks ?? []).map((w) => {
      const { guaranteedInflow: _g, ...rest } = w;
      return { ...rest, forecastInflow: '0' };
    });
  }
  return p;
}

/** Records each purchase order's match (null: unmatched) as its suppressed_reason. */
export async function saveSuppression(db: Db, orgId: string, reasons: Map<string, string | null>): Promise<number> {
  const entries = [...reasons.entries()];
  if (entries.length === 0) return 0;
  let changed = 0;
  for (let i = 0; i < entries.length; i += 1000) {
    const chunk = entries.slice(i, i + 1000);
    const values = sql.join(
      chunk.map(([id, r]) => sql`(${id}::text, ${r}::text)`),
      sql`, `,
    );
    const res = await rows<{ id: string }>(
      db,
      sql`update purchase_orders p set suppressed_reason = v.r from (values ${values}) as v(id, r)
          where p.org_id = ${orgId} and p.id = v.id and p.suppressed_reason is distinct from v.r returning p.id`,
    );
    changed += res.length;
  }
  return changed;
}

/** The cash position part of a snapshot, read by id. */
export async function cashPositionOfSnapshot(
  db: Db,
  orgId: string,
  snapshotId: string,
): Promise<{ computedAt: string; cashPosition: ForecastPayload['cashPosition']; notesForAgent: ForecastPayload['notesForAgent'] } | null> {
  const [r] = await rows<{ computed_at: unknown; cp: ForecastPayload['cashPosition'] | null; notes: ForecastPayload['notesForAgent'] | null }>(
    db,
    sql`select f.computed_at, f.payload->'cashPosition' as cp, f.payload->'notesForAgent' as notes
        from forecast_snapshots f where f.org_id = ${orgId} and f.id = ${snapshotId}`,
  );
  if (!r || !r.cp) return null;
  return { computedAt: pgTimestamp(r.computed_at)!.toISOString(), cashPosition: r.cp, notesForAgent: r.notes ?? [] };
}

/** The 13-week outlook part of a snapshot (weeks without their item lists), read by id. */
export async function outlookOfSnapshot(
  db: Db,
  orgId: string,
  snapshotId: string,
): Promise<Pick<ForecastPayload, 'weeks' | 'startingCash' | 'endingCash' | 'notesForAgent' | 'shortfall'> | null> {
  const [r] = await rows<{
    weeks: ForecastPayload['weeks'] | null;
    start: string;
    end: string;
    notes: ForecastPayload['notesForAgent'] | null;
    shortfall: ForecastPayload['shortfall'] | null;
  }>(
    db,
    sql`select (select jsonb_agg(w - 'itemIds' - 'overdueItemIds' - 'categories' order by n) from jsonb_array_elements(f.payload->'weeks') with ordinality as x(w, n)) as weeks,
          f.payload->>'startingCash' as start, f.payload->>'endingCash' as "end", f.payload->'notesForAgent' as notes, f.payload->'shortfall' as shortfall
        from forecast_snapshots f where f.org_id = ${orgId} and f.id = ${snapshotId}`,
  );
  if (!r || !r.weeks) return null;
  return { weeks: r.weeks, startingCash: r.start, endingCash: r.end, notesForAgent: r.notes ?? [], ...(r.shortfall ? { shortfall: r.shortfall } : {}) };
}
