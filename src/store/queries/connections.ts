/**
 * The organisation's ledger connection and what the envelope reads about it
 * (src/api/envelope.ts, through the API's cache: src/api/ledger-cache.ts).
 * Every change made here is told to this process's caches at once
 * (`ledgerChangedHere`); other processes hear of it from the trigger of
 * migration 0020.
 */
import { and, count, eq, isNotNull, isNull, ne, or, sql } from 'drizzle-orm';
import { type Db, pgTimestamp, rows } from '../db.js';
import * as s from '../schema.js';
import { ledgerChangedHere } from '../key-revocations.js';

export type ConnectionPatch = Partial<Omit<typeof s.ledgerConnections.$inferInsert, 'orgId'>>;

/** Creates the organisation's ledger connection with `values`, or replaces its fields with them. */
export async function upsertConnection(db: Db, orgId: string, createdAt: Date, values: ConnectionPatch & { tenantId: string; refreshToken: string; secretsKeyId: string }): Promise<void> {
  await db
    .insert(s.ledgerConnections)
    .values({ orgId, createdAt, ...values })
    .onConflictDoUpdate({ target: s.ledgerConnections.orgId, set: values });
  ledgerChangedHere(orgId);
}

/**
 * A connection's sealed token columns (src/ledger/tokens.ts opens and seals
 * them; this layer only moves the sealed text).
 */
export interface SealedTokenColumns {
  accessToken: string | null;
  refreshToken: string | null;
  accessTokenExpiresAt: Date | null;
  /** The key id the tokens are sealed under; null: plain tokens from before sealing, or none. */
  secretsKeyId: string | null;
}

/** The organisation's sealed token columns, or null without a connection. */
export async function connectionTokens(db: Db, orgId: string): Promise<SealedTokenColumns | null> {
  const [row] = await db.select(TOKEN_COLUMNS).from(s.ledgerConnections).where(eq(s.ledgerConnections.orgId, orgId));
  return row ?? null;
}

const TOKEN_COLUMNS = {
  accessToken: s.ledgerConnections.accessToken,
  refreshToken: s.ledgerConnections.refreshToken,
  accessTokenExpiresAt: s.ledgerConnections.accessTokenExpiresAt,
  secretsKeyId: s.ledgerConnections.secretsKeyId,
};

/**
 * Reads the organisation's token columns under a row lock (`select … for
 * update`, in a short transaction of its own) and writes what `change`
 * returns (null: nothing). A token saved by a sync meanwhile waits for the
 * lock and is written after: a re-seal never overwrites a newer token.
 * Resolves with whether the row was found and whether it changed.
 */
export async function changeTokensLocked(
  db: Db,
  orgId: string,
  change: (row: SealedTokenColumns) => Partial<SealedTokenColumns> | null,
): Promise<'changed' | 'unchanged' | 'missing'> {
  const result = await db.transaction(async (tx) => {
    const [row] = await tx.select(TOKEN_COLUMNS).from(s.ledgerConnections).where(eq(s.ledgerConnections.orgId, orgId)).for('update');
    if (!row) return 'missing';
    const patch = change(row);
    if (!patch) return 'unchanged';
    await tx.update(s.ledgerConnections).set(patch).where(eq(s.ledgerConnections.orgId, orgId));
    return 'changed';
  });
  if (result === 'changed') ledgerChangedHere(orgId);
  return result;
}

/**
 * The connections (every organisation: an operator's pass) whose tokens are
 * not sealed under `keyId`: never sealed (secrets_key_id null) when `keyId`
 * is null, any other key otherwise; and how many are under it already.
 */
export async function connectionsToSeal(db: Db, keyId: string | null): Promise<{ orgIds: string[]; alreadyCurrent: number }> {
  const c = s.ledgerConnections;
  const hasTokens = or(isNotNull(c.accessToken), isNotNull(c.refreshToken));
  const stale = keyId === null ? isNull(c.secretsKeyId) : or(isNull(c.secretsKeyId), ne(c.secretsKeyId, keyId));
  const list = await db.select({ orgId: c.orgId }).from(c).where(and(hasTokens, stale)).orderBy(c.orgId);
  const current = keyId === null ? [] : await db.select({ n: count() }).from(c).where(and(hasTokens, eq(c.secretsKeyId, keyId)));
  return { orgIds: list.map((r) => r.orgId), alreadyCurrent: Number(current[0]?.n ?? 0) };
}

/** Changes fields of the organisation's ledger connection. */
export async function updateConnection(db: Db, orgId: string, patch: ConnectionPatch): Promise<void> {
  await db.update(s.ledgerConnections).set(patch).where(eq(s.ledgerConnections.orgId, orgId));
  ledgerChangedHere(orgId);
}

/** Connections of active organisations whose token is usable, with their last attempt and breaker. */
export async function usableConnections(db: Db) {
  return db
    .select({
      orgId: s.ledgerConnections.orgId,
      last: s.ledgerConnections.lastAttemptAt,
      requested: s.ledgerConnections.syncRequestedAt,
      breaker: s.ledgerConnections.breakerState,
      openedAt: s.ledgerConnections.breakerOpenedAt,
    })
    .from(s.ledgerConnections)
    .innerJoin(s.organisations, eq(s.organisations.id, s.ledgerConnections.orgId))
    .where(and(eq(s.organisations.active, true), eq(s.ledgerConnections.tokenState, 'ok')));
}

/** The sync's watermarks of the organisation, by resource. */
export async function loadWatermarks(db: Db, orgId: string) {
  return new Map((await db.select().from(s.syncWatermarks).where(eq(s.syncWatermarks.orgId, orgId))).map((w) => [w.resource, w]));
}

/** Sets a resource's watermark (in the transaction of the page it follows). */
export async function saveWatermark(db: Db, orgId: string, resource: string, next: { modifiedSince: Date | null; nextPage: number }, at: Date): Promise<void> {
  await db
    .insert(s.syncWatermarks)
    .values({ orgId, resource, modifiedSince: next.modifiedSince, nextPage: next.nextPage, updatedAt: at })
    .onConflictDoUpdate({
      target: [s.syncWatermarks.orgId, s.syncWatermarks.resource],
      set: { modifiedSince: next.modifiedSince, nextPage: next.nextPage, updatedAt: at },
    });
}

/** Records an import or sync run (import_runs). */
export async function insertImportRun(db: Db, run: typeof s.importRuns.$inferInsert): Promise<void> {
  await db.insert(s.importRuns).values(run);
}

/** What the ledger side needs of an organisation: its base currency and the ledger tenant it is linked to. */
export async function orgLedgerInfo(db: Db, orgId: string) {
  const [org] = await db
    .select({ id: s.organisations.id, baseCurrency: s.organisations.baseCurrency, ledgerTenantId: s.organisations.ledgerTenantId })
    .from(s.organisations)
    .where(eq(s.organisations.id, orgId));
  return org ?? null;
}

/** The organisation's ledger connection row, or null. */
export async function ledgerConnection(db: Db, orgId: string) {
  const [conn] = await db.select().from(s.ledgerConnections).where(eq(s.ledgerConnections.orgId, orgId));
  return conn ?? null;
}

/** The columns of a left-joined `ledger_connections lc` that `connectionHealth` reads. */
export const CONNECTION_HEALTH_COLUMNS = sql`lc.org_id is not null as connected, lc.token_state, lc.breaker_state, lc.last_successful_sync, lc.last_error_at, lc.consecutive_failures, lc.unavailable, lc.disconnected_at`;

/** The row of CONNECTION_HEALTH_COLUMNS. */
export type ConnectionHealthRow = {
  connected: boolean;
  token_state: string | null;
  breaker_state: string | null;
  last_successful_sync: unknown;
  last_error_at: unknown;
  consecutive_failures: number | null;
  unavailable: unknown;
  disconnected_at: unknown;
};

/** A connection's health as the ledger alert reads it (src/api/envelope.ts), from those columns; null without a connection. */
export function connectionHealth(r: ConnectionHealthRow) {
  return r.connected
    ? {
        tokenState: r.token_state ?? 'ok',
        breakerState: r.breaker_state ?? 'closed',
        lastSuccessfulSync: pgTimestamp(r.last_successful_sync),
        lastErrorAt: pgTimestamp(r.last_error_at),
        consecutiveFailures: Number(r.consecutive_failures ?? 0),
        unavailable: r.unavailable ?? [],
        disconnectedAt: pgTimestamp(r.disconnected_at),
      }
    : null;
}

/** What the envelope reads about an organisation's ledger connection (null without one), in one query. */
export async function ledgerHealth(db: Db, orgId: string) {
  const [r] = await rows<ConnectionHealthRow>(db, sql`select ${CONNECTION_HEALTH_COLUMNS} from ledger_connections lc where lc.org_id = ${orgId}`);
  return r ? connectionHealth(r) : null;
}

/** Whether anything was ever imported or synced into the organisation. */
export async function hasImportRun(db: Db, orgId: string): Promise<boolean> {
  const [run] = await db.select({ id: s.importRuns.id }).from(s.importRuns).where(eq(s.importRuns.orgId, orgId)).limit(1);
  return Boolean(run);
}

/** Forgets the sync's watermarks of the organisation (the next sync reads everything). */
export async function clearWatermarks(db: Db, orgId: string): Promise<void> {
  await db.delete(s.syncWatermarks).where(eq(s.syncWatermarks.orgId, orgId));
}
