/**
 * The forecast's track record (docs/forecast.md#accuracy): what each kept
 * forecast said of its 13 weeks (forecast_track_record, migration 0014).
 * Stored entries: the first BASE snapshot the recompute stores in each week
 * (written by storeSnapshots); replayed entries: the nightly calibration's
 * replayed cut-offs, replaced by each calibration; seeded entries: stored
 * ones written from the replay (the demo starts with six months of them).
 */
import { sql } from 'drizzle-orm';
import { type Db, pgTimestamp, rows } from '../db.js';
import { mondayOf, fromDay, toDay } from '../../domain/forecast/days.js';
import type { TrackEntry, TrackKind, TrackWeek } from '../../domain/forecast/accuracy.js';

const weekOf = (asOf: string) => fromDay(mondayOf(toDay(asOf)));

/** Keeps `entry` as its week's stored forecast unless the week already has one (the first of the week stays). */
export async function keepStoredForecast(db: Pick<Db, 'execute'>, orgId: string, entry: Omit<TrackEntry, 'kind' | 'seeded'>): Promise<void> {
  await db.execute(sql`insert into forecast_track_record (org_id, kind, week_of, as_of_date, snapshot_id, computed_at, seeded, starting_cash, weeks)
      values (${orgId}, 'stored', ${weekOf(entry.asOfDate)}, ${entry.asOfDate}, ${entry.snapshotId}, ${entry.computedAt.toISOString()}, false,
        ${entry.startingCash}, ${JSON.stringify(entry.weeks)}::jsonb)
      on conflict (org_id, kind, week_of) do nothing`);
}

/** Replaces the organisation's replayed entries (a calibration's cut-offs). */
export async function replaceReplayedTrack(db: Db, orgId: string, entries: readonly TrackEntry[]): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`delete from forecast_track_record where org_id = ${orgId} and kind = 'replayed'`);
    if (entries.length === 0) return;
    const json = JSON.stringify(entries.map((e) => ({ w: weekOf(e.asOfDate), a: e.asOfDate, c: e.computedAt.toISOString(), s: e.startingCash, k: e.weeks })));
    await tx.execute(sql`insert into forecast_track_record (org_id, kind, week_of, as_of_date, snapshot_id, computed_at, seeded, starting_cash, weeks)
        select ${orgId}, 'replayed', u.w, u.a, null, u.c, false, u.s, u.k from json_to_recordset(${json}::json) as u(w date, a date, c timestamptz, s numeric, k jsonb)
        on conflict (org_id, kind, week_of) do update set as_of_date = excluded.as_of_date, computed_at = excluded.computed_at,
          starting_cash = excluded.starting_cash, weeks = excluded.weeks`);
  });
}

/**
 * Seeds the stored track record from the replayed one: every replayed entry
 * with an as-of date from `since` on becomes the stored forecast of its week
 * (marked seeded) unless a recompute already stored one. Returns how many.
 */
export async function seedStoredTrack(db: Db, orgId: string, since: string): Promise<number> {
  const r = await rows<{ week_of: string }>(
    db,
    sql`insert into forecast_track_record (org_id, kind, week_of, as_of_date, snapshot_id, computed_at, seeded, starting_cash, weeks)
        select org_id, 'stored', week_of, as_of_date, null, computed_at, true, starting_cash, weeks from forecast_track_record
        where org_id = ${orgId} and kind = 'replayed' and as_of_date >= ${since}
        on conflict (org_id, kind, week_of) do nothing returning week_of`,
  );
  return r.length;
}

/** The entries of one kind with an as-of date from `from` to `to`, oldest first. */
export async function trackEntries(db: Db, orgId: string, kind: TrackKind, from: string, to: string): Promise<TrackEntry[]> {
  const r = await rows<{ as_of_date: string; snapshot_id: string | null; computed_at: unknown; seeded: boolean; starting_cash: string; weeks: TrackWeek[] }>(
    db,
    sql`select as_of_date::text as as_of_date, snapshot_id, computed_at, seeded, starting_cash::text as starting_cash, weeks from forecast_track_record
        where org_id = ${orgId} and kind = ${kind} and as_of_date >= ${from} and as_of_date <= ${to} order by as_of_date`,
  );
  return r.map((x) => ({
    kind,
    asOfDate: x.as_of_date,
    snapshotId: x.snapshot_id,
    computedAt: pgTimestamp(x.computed_at)!,
    seeded: x.seeded,
    startingCash: x.starting_cash,
    weeks: x.weeks,
  }));
}
