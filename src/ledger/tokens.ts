/**
 * The one place ledger tokens are read and written (docs/sync.md "Tokens at
 * rest"): sealed with the keyring (src/ledger/seal.ts) on the way into
 * `ledger_connections`, opened on the way out. The store moves sealed text
 * only. Also the two passes over every connection: sealing the plain tokens
 * of rows from before sealing (`sealPlainTokens`, on first start) and
 * re-sealing under a new key (`rotateEncryption`); each row in its own short
 * transaction under a row lock, so a sync saving a rotated refresh token at
 * the same moment is never overwritten with the older one.
 */
import type { Db } from '../store/db.js';
import { changeTokensLocked, connectionsToSeal, connectionTokens, type SealedTokenColumns, updateConnection } from '../store/queries/connections.js';
import { isSealed, Keyring, SealError } from './seal.js';

export interface LedgerTokens {
  accessToken: string | null;
  refreshToken: string | null;
  /** When the access token expires (null: unknown, refresh first). */
  expiresAt: Date | null;
}

/** The sealed columns of `tokens` for organisation `orgId` under the keyring's current key. */
export function sealTokens(keyring: Keyring, orgId: string, tokens: { accessToken: string | null; refreshToken: string | null }) {
  return {
    accessToken: tokens.accessToken === null ? null : keyring.seal(orgId, tokens.accessToken),
    refreshToken: tokens.refreshToken === null ? null : keyring.seal(orgId, tokens.refreshToken),
    secretsKeyId: keyring.currentKeyId,
  };
}

/** Saves the organisation's tokens (a refresh, the OAuth consent's exchange), sealed. */
export async function saveTokens(db: Db, keyring: Keyring, orgId: string, tokens: LedgerTokens): Promise<void> {
  await updateConnection(db, orgId, { ...sealTokens(keyring, orgId, tokens), accessTokenExpiresAt: tokens.expiresAt });
}

/**
 * The organisation's tokens, opened; null without a connection. A row still
 * holding plain tokens (from before sealing) is sealed first. A SealError
 * when they cannot be opened (no key, an unknown key, or not this
 * organisation's); its message names CASHLINE_ENCRYPTION_KEY, never a token.
 */
export async function loadTokens(db: Db, keyring: Keyring, orgId: string): Promise<LedgerTokens | null> {
  let row = await connectionTokens(db, orgId);
  if (!row) return null;
  if (hasPlain(row)) {
    await sealRow(db, keyring, orgId, null);
    row = await connectionTokens(db, orgId);
    if (!row) return null;
  }
  return {
    accessToken: row.accessToken === null ? null : keyring.open(orgId, row.accessToken),
    refreshToken: row.refreshToken === null ? null : keyring.open(orgId, row.refreshToken),
    expiresAt: row.accessTokenExpiresAt,
  };
}

const hasPlain = (row: SealedTokenColumns) => [row.accessToken, row.refreshToken].some((t) => t !== null && !isSealed(t));

/** The key id a row's tokens are sealed under (null: none sealed, or they disagree). */
function rowKeyId(row: SealedTokenColumns): string | null {
  const ids = new Set([row.accessToken, row.refreshToken].filter((t): t is string => t !== null).map((t) => Keyring.keyIdOfSealed(t)));
  return ids.size === 1 ? [...ids][0]! : null;
}

/**
 * Seals one row under the current key, in its own transaction under the row
 * lock: plain tokens are sealed, tokens under another key re-sealed (`rekey`),
 * tokens already under the current key left alone. Throws a SealError when a
 * token does not open.
 */
async function sealRow(db: Db, keyring: Keyring, orgId: string, rekey: string | null): Promise<'changed' | 'unchanged' | 'missing'> {
  return changeTokensLocked(db, orgId, (row) => {
    const current = rekey ?? keyring.currentKeyId;
    if (!hasPlain(row) && rowKeyId(row) === current && row.secretsKeyId === current) return null;
    if (!rekey && !hasPlain(row)) {
      // Sealed already (by another process since the list was read): only the key id column may lag.
      const id = rowKeyId(row);
      return id && row.secretsKeyId !== id ? { secretsKeyId: id } : null;
    }
    const open = (t: string | null) => (t === null ? null : isSealed(t) ? keyring.open(orgId, t) : t);
    return sealTokens(keyring, orgId, { accessToken: open(row.accessToken), refreshToken: open(row.refreshToken) });
  });
}

export interface SealPlainResult {
  /** Rows whose plain tokens were sealed now. */
  sealed: number;
  /** Rows left plain: no key to seal them with (the warning names the variable). */
  unsealed: number;
}

/**
 * Seals every row whose tokens are still plain (rows from before sealing),
 * each in its own short transaction. Without a key (PostgreSQL without
 * CASHLINE_ENCRYPTION_KEY) nothing is sealed and, if there are plain rows,
 * `warn` is told so (naming the variable); it never throws for that, so a
 * server that touches no token still starts.
 */
export async function sealPlainTokens(db: Db, keyring: Keyring, warn?: (message: string) => void): Promise<SealPlainResult> {
  const { orgIds } = await connectionsToSeal(db, null);
  if (orgIds.length === 0) return { sealed: 0, unsealed: 0 };
  if (!keyring.hasKey) {
    warn?.(`${orgIds.length} ledger connection(s) hold plain tokens from before sealing; set CASHLINE_ENCRYPTION_KEY (base64, 32 bytes) so they are sealed at the next start`);
    return { sealed: 0, unsealed: orgIds.length };
  }
  let sealed = 0;
  for (const orgId of orgIds) if ((await sealRow(db, keyring, orgId, null)) === 'changed') sealed++;
  return { sealed, unsealed: 0 };
}

export interface RotationResult {
  /** The key every row is sealed under now. */
  keyId: string;
  reencrypted: number;
  alreadyCurrent: number;
  /** Rows no held key opens (reconnect them): their organisations in `failedOrgs`. */
  failed: number;
  failedOrgs: string[];
}

/**
 * Re-seals every connection not under the keyring's current key (plain rows
 * included), each row in its own transaction under its row lock. A row no
 * held key opens is counted in `failed` and left as it is.
 */
export async function rotateEncryption(db: Db, keyring: Keyring): Promise<RotationResult> {
  const keyId = keyring.currentKeyId;
  const { orgIds, alreadyCurrent } = await connectionsToSeal(db, keyId);
  const result: RotationResult = { keyId, reencrypted: 0, alreadyCurrent, failed: 0, failedOrgs: [] };
  for (const orgId of orgIds) {
    try {
      const r = await sealRow(db, keyring, orgId, keyId);
      if (r === 'changed') result.reencrypted++;
      else if (r === 'unchanged') result.alreadyCurrent++; // a sync re-sealed it under the current key meanwhile
    } catch (err) {
      if (!(err instanceof SealError)) throw err;
      result.failed++;
      result.failedOrgs.push(orgId);
    }
  }
  return result;
}
