/**
 * Forecast scenarios (docs/forecast.md#scenarios): the built-in BASE, BEST
 * and WORST ones, created when missing, and the operator's CUSTOM ones
 * (cashline-server forecast ...), with their stored adjustments read back
 * to well-formed fields.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { type Db, pgTimestamp, rows } from '../db.js';
import * as s from '../schema.js';
import type { Scenario, ScenarioAdjustments, ScenarioKind } from '../../domain/forecast/types.js';
import { DEFAULT_SCENARIO_ADJUSTMENTS } from '../../domain/forecast/project.js';
import { isManualItem } from './manual-items.js';
import { deleteSnapshotItems } from './forecast-snapshot-items.js';

/** The organisation's BASE scenario (`org`: an id, or a column such as sql`o.id`): the one /forecast and /cash-position read by default. */
export const baseScenarioOf = (org: string | SQL) =>
  sql`(select id from forecast_scenarios where org_id = ${org} and kind = 'BASE' order by created_at, id limit 1)`;

const BUILT_IN: { kind: 'BASE' | 'BEST' | 'WORST'; name: string }[] = [
  { kind: 'BASE', name: 'Base case' },
  { kind: 'BEST', name: 'Best case' },
  { kind: 'WORST', name: 'Worst case' },
];

/** Creates the BASE, BEST and WORST scenarios when missing (ids `<kind lower-case>`), and returns every scenario of the organisation. */
export async function ensureScenarios(db: Db, orgId: string, now: Date): Promise<Scenario[]> {
  const existing = await db.select().from(s.forecastScenarios).where(eq(s.forecastScenarios.orgId, orgId));
  const kinds = new Set(existing.map((e) => e.kind));
  const missing = BUILT_IN.filter((b) => !kinds.has(b.kind));
  if (missing.length) {
    await db
      .insert(s.forecastScenarios)
      .values(missing.map((b) => ({ orgId, id: b.kind.toLowerCase(), name: b.name, kind: b.kind, adjustments: DEFAULT_SCENARIO_ADJUSTMENTS[b.kind], createdAt: now })))
      .onConflictDoNothing();
  }
  return listScenarios(db, orgId);
}

const KIND_ORDER: Record<string, number> = { BASE: 0, BEST: 1, WORST: 2, CUSTOM: 3 };

/** Every scenario of the organisation, built-in first (read-only: before the first recompute, the built-in ones as they will be created). */
export async function listScenarios(db: Db, orgId: string): Promise<Scenario[]> {
  const all = await db.select().from(s.forecastScenarios).where(eq(s.forecastScenarios.orgId, orgId));
  const stored = all.map((r) => ({ id: r.id, name: r.name, kind: r.kind as ScenarioKind, adjustments: parseAdjustments(r.adjustments) }));
  const kinds = new Set(stored.map((x) => x.kind));
  const planned = BUILT_IN.filter((b) => !kinds.has(b.kind)).map((b) => ({ id: b.kind.toLowerCase(), name: b.name, kind: b.kind as ScenarioKind, adjustments: DEFAULT_SCENARIO_ADJUSTMENTS[b.kind] }));
  return [...stored, ...planned].sort((a, b) => (KIND_ORDER[a.kind] ?? 9) - (KIND_ORDER[b.kind] ?? 9) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The latest snapshot's headline of each scenario that has one: when, ending and lowest cash, the shortfall probability (engine version 3 on). */
export async function latestHeadlines(
  db: Db,
  orgId: string,
): Promise<Map<string, { computedAt: Date; asOfDate: string; endingCash: string; minClosingCash: string; shortfallProbability: number | null }>> {
  const list = await rows<{ scenario_id: string; computed_at: unknown; as_of_date: string; ending: string; lowest: string; shortfall: string | null }>(
    db,
    sql`select distinct on (scenario_id) scenario_id, computed_at, as_of_date::text as as_of_date, payload->>'endingCash' as ending,
               payload->>'minClosingCash' as lowest, payload->'shortfall'->>'probability' as shortfall
        from forecast_snapshots where org_id = ${orgId}
        order by scenario_id, computed_at desc, id desc`,
  );
  return new Map(
    list.map((r) => [
      r.scenario_id,
      { computedAt: pgTimestamp(r.computed_at)!, asOfDate: r.as_of_date, endingCash: r.ending, minClosingCash: r.lowest, shortfallProbability: r.shortfall === null ? null : Number(r.shortfall) },
    ]),
  );
}

/** Reads a scenario's stored adjustments, keeping only well-formed fields (docs/forecast.md#scenarios). */
export function parseAdjustments(raw: unknown): ScenarioAdjustments {
  const a = (raw ?? {}) as Record<string, unknown>;
  const out: ScenarioAdjustments = {};
  const factor = (v: unknown) => (typeof v === 'string' && /^\d+(\.\d+)?$/.test(v) ? v : typeof v === 'number' && v >= 0 && Number.isFinite(v) ? String(v) : undefined);
  const inF = factor(a.inflowFactor);
  const outF = factor(a.outflowFactor);
  if (inF !== undefined) out.inflowFactor = inF;
  if (outF !== undefined) out.outflowFactor = outF;
  if (typeof a.paymentDelayShiftDays === 'number' && Number.isInteger(a.paymentDelayShiftDays) && Math.abs(a.paymentDelayShiftDays) <= 365) {
    out.paymentDelayShiftDays = a.paymentDelayShiftDays;
  }
  if (Array.isArray(a.excludedItemIds)) out.excludedItemIds = a.excludedItemIds.filter((x): x is string => typeof x === 'string');
  if (Array.isArray(a.manualItems)) out.manualItems = a.manualItems.filter(isManualItem);
  return out;
}

/** Whether the organisation has a scenario with this id. */
export async function scenarioExists(db: Db, orgId: string, scenarioId: string): Promise<boolean> {
  const [r] = await db
    .select({ id: s.forecastScenarios.id })
    .from(s.forecastScenarios)
    .where(and(eq(s.forecastScenarios.orgId, orgId), eq(s.forecastScenarios.id, scenarioId)));
  return r !== undefined;
}

export class ScenarioError extends Error {}

/** Creates or replaces a CUSTOM scenario; the ids of the built-in scenarios (base, best, worst) are refused. */
export async function upsertCustomScenario(db: Db, orgId: string, sc: { id: string; name: string; adjustments: ScenarioAdjustments }, now: Date): Promise<void> {
  const [existing] = await db
    .select({ kind: s.forecastScenarios.kind })
    .from(s.forecastScenarios)
    .where(and(eq(s.forecastScenarios.orgId, orgId), eq(s.forecastScenarios.id, sc.id)));
  if ((existing && existing.kind !== 'CUSTOM') || BUILT_IN.some((b) => b.kind.toLowerCase() === sc.id)) {
    throw new ScenarioError(`scenario ${sc.id} is built in; choose another id`);
  }
  await db
    .insert(s.forecastScenarios)
    .values({ orgId, id: sc.id, name: sc.name, kind: 'CUSTOM', adjustments: sc.adjustments, createdAt: now })
    .onConflictDoUpdate({ target: [s.forecastScenarios.orgId, s.forecastScenarios.id], set: { name: sc.name, adjustments: sc.adjustments } });
}

/** Removes a CUSTOM scenario and its snapshots; false when there was none. Built-in scenarios are refused. */
export async function removeCustomScenario(db: Db, orgId: string, id: string): Promise<boolean> {
  const [existing] = await db
    .select({ kind: s.forecastScenarios.kind })
    .from(s.forecastScenarios)
    .where(and(eq(s.forecastScenarios.orgId, orgId), eq(s.forecastScenarios.id, id)));
  if (!existing) return false;
  if (existing.kind !== 'CUSTOM') throw new ScenarioError(`scenario ${id} is built in and cannot be removed`);
  await db.transaction(async (tx) => {
    // Its snapshots' items first (forecast_snapshot_items has no foreign key).
    await deleteSnapshotItems(tx, orgId, sql`select f.id from forecast_snapshots f where f.org_id = ${orgId} and f.scenario_id = ${id}`);
    await tx.delete(s.forecastSnapshots).where(and(eq(s.forecastSnapshots.orgId, orgId), eq(s.forecastSnapshots.scenarioId, id)));
    await tx.delete(s.forecastScenarios).where(and(eq(s.forecastScenarios.orgId, orgId), eq(s.forecastScenarios.id, id)));
  });
  return true;
}
