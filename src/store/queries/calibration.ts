/** The forecast's calibration (docs/forecast.md#calibration) and the organisation's cash buffer. */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db.js';
import * as s from '../schema.js';
import type { CalibrationState } from '../../domain/forecast/calibrate.js';

export async function loadCalibration(db: Db, orgId: string): Promise<CalibrationState | null> {
  const [r] = await db.select({ state: s.forecastCalibrations.state }).from(s.forecastCalibrations).where(eq(s.forecastCalibrations.orgId, orgId));
  return (r?.state as CalibrationState | undefined) ?? null;
}

/** Replaces the organisation's calibration. */
export async function saveCalibration(db: Db, orgId: string, state: CalibrationState, now: Date): Promise<void> {
  await db
    .insert(s.forecastCalibrations)
    .values({ orgId, asOf: state.asOf, computedAt: now, state })
    .onConflictDoUpdate({ target: s.forecastCalibrations.orgId, set: { asOf: state.asOf, computedAt: now, state } });
}

/** The organisation's cash buffer (a canonical decimal string), or null when none is set. */
export async function cashBuffer(db: Db, orgId: string): Promise<string | null> {
  const [r] = await db.select({ v: s.organisations.cashBuffer }).from(s.organisations).where(eq(s.organisations.id, orgId));
  return r?.v ?? null;
}

/** Sets (a decimal string) or clears (null) the organisation's cash buffer. */
export async function setCashBuffer(db: Db, orgId: string, amount: string | null): Promise<void> {
  await db.update(s.organisations).set({ cashBuffer: amount === null ? sql`null` : amount }).where(eq(s.organisations.id, orgId));
}
