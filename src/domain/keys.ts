/**
 * API keys: `cl_user_<keyPrefix>_<secret>` and `cl_partner_<keyPrefix>_<secret>`
 * (decisions.md). The key prefix is the public look-up handle; the secret
 * comes from the CSPRNG (238 bits), is shown once, and only its SHA-256 is
 * stored. Verification hashes whatever was presented and compares digests of
 * equal length in constant time, so odd lengths or multi-byte input never throw.
 */
import { createHash, randomFillSync, timingSafeEqual } from 'node:crypto';

export type KeyKind = 'USER' | 'PARTNER';

const PREFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const SECRET_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const KEY_PREFIX_LENGTH = 12;
export const SECRET_LENGTH = 40;

const KEY_PATTERN = new RegExp(
  `^cl_(user|partner)_([a-z0-9]{${KEY_PREFIX_LENGTH}})_([A-Za-z0-9]{${SECRET_LENGTH}})$`,
);

// CSPRNG bytes drawn 4 KiB at a time (as node:crypto's randomUUID does): one
// system call per ~75 keys instead of two per key. Each byte is used once.
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

/** Uniform random string over `alphabet` (rejection sampling: no modulo bias). */
function randomString(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  const out: string[] = [];
  while (out.length < length) {
    const byte = randomByte();
    if (byte < limit) out.push(alphabet[byte % alphabet.length]!);
  }
  return out.join('');
}

export interface GeneratedKey {
  key: string;
  keyPrefix: string;
  secretHash: string;
}

export function generateKey(kind: KeyKind): GeneratedKey {
  const keyPrefix = randomString(PREFIX_ALPHABET, KEY_PREFIX_LENGTH);
  const secret = randomString(SECRET_ALPHABET, SECRET_LENGTH);
  const key = `cl_${kind === 'USER' ? 'user' : 'partner'}_${keyPrefix}_${secret}`;
  return { key, keyPrefix, secretHash: hashSecret(secret) };
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export interface ParsedKey {
  kind: KeyKind;
  keyPrefix: string;
  secret: string;
}

/** Parses a presented bearer token; null when it is not of either key form. */
export function parseKey(token: string): ParsedKey | null {
  const m = KEY_PATTERN.exec(token);
  if (!m) return null;
  return { kind: m[1] === 'user' ? 'USER' : 'PARTNER', keyPrefix: m[2]!, secret: m[3]! };
}

// A digest no secret hashes to, compared against when the prefix is unknown so
// that unknown and wrong-secret keys take the same path.
const DUMMY_HASH = hashSecret('cashline-no-such-key');

/** Constant-time check of a presented secret against a stored hash (or none). */
export function secretMatches(presented: string, storedHash: string | null | undefined): boolean {
  const a = Buffer.from(hashSecret(presented), 'hex');
  const b = Buffer.from(storedHash && /^[0-9a-f]{64}$/.test(storedHash) ? storedHash : DUMMY_HASH, 'hex');
  const equal = timingSafeEqual(a, b);
  return equal && storedHash !== undefined && storedHash !== null;
}
