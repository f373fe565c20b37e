/**
 * The forecast model of an organisation as a request needs it (the what-ifs
 * of GET /forecast, GET /collections): its books read (loadEngineInputs) and
 * the model learned from them (prepareForecast), computed on the first
 * request after each recompute and kept per process.
 */
import { prepareForecast } from '../domain/forecast/engine.js';
import type { PreparedForecast } from '../domain/forecast/prepared.js';
import { dateIn } from '../domain/calendar.js';
import type { Db } from '../store/db.js';
import { loadEngineInputs, type EngineInputs } from '../store/queries/forecast-input.js';
import { latestSnapshotRef } from '../store/queries/forecast-snapshots.js';
import type { OrgMeta } from '../store/queries/organisation.js';
import { AnswerCache } from './answer-cache.js';

export interface ForecastModel {
  length: 1;
  inputs: EngineInputs;
  prepared: PreparedForecast;
  /** The latest BASE snapshot when it was read (null: none yet). */
  snapshot: { id: string; computedAt: Date } | null;
}

/**
 * The books read and the model learned from them (prepareForecast), per
 * process, for the what-ifs and collections after each recompute: keyed by the organisation's
 * latest BASE snapshot (a sync, an operator change and the nightly job each
 * recompute, so a new snapshot means the books may have changed) and its
 * today. Eight organisations, least recently used out; before any snapshot,
 * read on every request.
 */
const models = new AnswerCache<ForecastModel>(8);

export async function forecastModel(db: Db, org: OrgMeta, now: Date): Promise<ForecastModel> {
  const ref = await latestSnapshotRef(db, org.id);
  const key = ref && `${org.id}\0${ref.id}\0${dateIn(org.timezone, now)}`;
  const cached = key ? models.get(key) : undefined;
  if (cached) return cached;
  const inputs = await loadEngineInputs(db, org, now);
  const model = { length: 1 as const, inputs, prepared: prepareForecast(inputs.input), snapshot: ref };
  if (key) models.set(key, model);
  return model;
}
