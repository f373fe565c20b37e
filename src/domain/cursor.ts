/**
 * Opaque, signed page cursors (decisions.md: "Cursors are opaque,
 * tamper-evident (signed) and bound to the organisation, the endpoint and its
 * filters; any other use is 400 `invalid_cursor`").
 *
 * Wire form: base64url( version(1 byte) || mac(16 bytes) || payload ), where
 * payload is the JSON of the keyset position (the last row's sort key and id)
 * and mac = HMAC-SHA256(secret, "cl-cursor" 0 version 0 orgId 0 endpoint 0
 * filtersHash 0 payload), truncated to 128 bits. The organisation, endpoint
 * and filters are not carried in the cursor: they are bound through the MAC,
 * so presenting a cursor under another organisation, endpoint or filter set
 * fails verification exactly like a tampered one. Nothing in a cursor is
 * secret (it is the last row's date and id, which the caller has already
 * seen); the MAC only makes it unforgeable.
 *
 * The secret is the service's (Deps.cursorSecret: CASHLINE_CURSOR_SECRET;
 * unset, a random per-process secret, so cursors then die with the process
 * and do not cross instances).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

const VERSION = 1;
const MAC_BYTES = 16;
/** Cursors longer than this are rejected before any decoding work. */
const MAX_CURSOR_LENGTH = 2048;

/** A keyset position: the sort key of the last row served, then its id. */
export type CursorPosition = readonly [sortKey: string, id: string];

export interface CursorContext {
  orgId: string;
  /** The endpoint, e.g. 'invoices', 'bills', 'contacts'. */
  endpoint: string;
  /** Hash of the normalised filters (see `filtersHash`). */
  filtersHash: string;
}

export class InvalidCursorError extends Error {
  readonly code = 'invalid_cursor';
  constructor(message = 'The cursor is not valid for this request.') {
    super(message);
  }
}

/** The signing secret: the service's CASHLINE_CURSOR_SECRET (else its per-process random one). */
export type CursorSecret = Buffer | string;

/**
 * A stable hash of normalised filters: keys sorted, undefined/null dropped,
 * arrays kept in the (already normalised) order given. Callers normalise
 * first (status lists sorted and de-duplicated, unknown values removed), so
 * equivalent requests hash alike.
 */
export function filtersHash(filters: Record<string, unknown>): string {
  const canonicalJson = (v: unknown): string => {
    if (v === null || v === undefined) return 'null';
    if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
    if (typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>)
        .filter(([, x]) => x !== undefined && x !== null)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
    }
    return JSON.stringify(v);
  };
  return createHash('sha256').update(canonicalJson(filters)).digest('base64url').slice(0, 22);
}

function mac(secret: CursorSecret, ctx: CursorContext, payload: Buffer): Buffer {
  const h = createHmac('sha256', secret);
  h.update(`cl-cursor\0${VERSION}\0${ctx.orgId}\0${ctx.endpoint}\0${ctx.filtersHash}\0`);
  h.update(payload);
  return h.digest().subarray(0, MAC_BYTES);
}

export function encodeCursor(secret: CursorSecret, ctx: CursorContext, position: CursorPosition): string {
  const payload = Buffer.from(JSON.stringify([position[0], position[1]]), 'utf8');
  return Buffer.concat([Buffer.from([VERSION]), mac(secret, ctx, payload), payload]).toString('base64url');
}

/** Verifies and decodes a cursor; throws InvalidCursorError for anything else. */
export function decodeCursor(secret: CursorSecret, ctx: CursorContext, cursor: string): CursorPosition {
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) {
    throw new InvalidCursorError();
  }
  const raw = Buffer.from(cursor, 'base64url');
  // Buffer.from tolerates junk; insist on the exact canonical encoding.
  if (raw.toString('base64url') !== cursor) throw new InvalidCursorError();
  if (raw.length <= 1 + MAC_BYTES || raw[0] !== VERSION) throw new InvalidCursorError();
  const presented = raw.subarray(1, 1 + MAC_BYTES);
  const payload = raw.subarray(1 + MAC_BYTES);
  if (!timingSafeEqual(presented, mac(secret, ctx, payload))) throw new InvalidCursorError();
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload.toString('utf8'));
  } catch {
    throw new InvalidCursorError();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string') {
    throw new InvalidCursorError();
  }
  return [parsed[0], parsed[1]];
}
