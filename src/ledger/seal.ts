/**
 * Secrets sealed at rest (docs/sync.md "Tokens at rest"): the ledger's access
 * and refresh tokens are stored as `v1:<keyId>:<nonce>:<ciphertext+tag>`,
 * AES-256-GCM with a random 96-bit nonce per seal and the organisation id as
 * associated data, so a value copied to another organisation's row does not
 * open. The key id (the first 16 hex digits of the key's SHA-256) names the
 * key a value was sealed with; it reveals nothing of the key.
 *
 * Where the keys come from (`loadKeyring`):
 * - CASHLINE_ENCRYPTION_KEY (base64, 32 bytes) seals and opens;
 *   CASHLINE_ENCRYPTION_OLD_KEYS (comma-separated) only open (a rotation);
 * - the embedded store without that variable: `<data dir>/encryption-keys.json`
 *   (`{ "current": b64, "old": [b64…] }`, mode 0600), created with a fresh key
 *   on first start and re-read when another process (or command) rotated it;
 * - PostgreSQL without that variable: a keyring without keys, which throws a
 *   SealError naming the variable when a secret is touched (serving the API
 *   never touches one, so it runs without the key).
 *
 * Errors never carry a key or a plaintext: only key ids and what to do.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const ENCRYPTION_KEY_VAR = 'CASHLINE_ENCRYPTION_KEY';
export const KEY_FILE = 'encryption-keys.json';

const VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** The associated data is this label and the organisation id: a sealed value belongs to one organisation. */
const AAD_LABEL = 'cashline:secret:v1:';
const SEALED = /^v1:([0-9a-f]{16}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]{22,})$/;

/** Why a secret could not be sealed or opened. */
export type SealFailure =
  /** No key is configured (PostgreSQL without CASHLINE_ENCRYPTION_KEY). */
  | 'no_key'
  /** The value names a key this process does not hold. */
  | 'unknown_key'
  /** The key is held but the value does not open: altered, or another organisation's. */
  | 'unreadable'
  /** The value is not a sealed value at all. */
  | 'malformed';

/** A secret that cannot be sealed or opened; the message names CASHLINE_ENCRYPTION_KEY and says what to do. */
export class SealError extends Error {
  constructor(
    readonly reason: SealFailure,
    message: string,
  ) {
    super(message);
    this.name = 'SealError';
  }
}

/** Whether a stored value is a sealed value (as opposed to a plain token of a row from before sealing). */
export function isSealed(value: string): boolean {
  return SEALED.test(value);
}

/** The public name of a key: the first 16 hex digits of its SHA-256. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

/** A base64 key of exactly 32 bytes, or null. */
export function decodeKey(b64: string): Buffer | null {
  const v = b64.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(v) || v.length % 4 !== 0) return null;
  const key = Buffer.from(v, 'base64');
  return key.length === 32 ? key : null;
}

interface KeySet {
  current: Buffer;
  old: Buffer[];
}

/** Where a keyring's keys come from: how to re-read them, whether they changed, and what to tell the operator. */
interface KeySource {
  /** The keys now (re-read: a rotation by another process). */
  read(): KeySet | null;
  /** Whether the keys may have changed since the last read (a cheap check before each seal). */
  changed(): boolean;
  /** Where the keys are configured, for messages. */
  where: string;
}

/**
 * The keys of this process: the current one seals, every held one opens.
 * Also derives MACs for signed links (`mac`, `verifyMac`).
 */
export class Keyring {
  private keys = new Map<string, Buffer>();
  private current: { id: string; key: Buffer } | null = null;
  private readonly macKeys = new Map<string, Buffer>();

  private constructor(private readonly source: KeySource) {
    this.use(source.read());
  }

  /** A keyring over fixed keys (base64 or raw): `current` seals, `old` only open. */
  static fromKeys(current: string | Buffer, old: readonly (string | Buffer)[] = []): Keyring {
    const keys = { current: asKey(current), old: old.map(asKey) };
    return new Keyring({ read: () => keys, changed: () => false, where: ENCRYPTION_KEY_VAR });
  }

  /** A keyring without keys: sealing or opening anything throws a SealError naming the variable. */
  static withoutKey(): Keyring {
    return new Keyring({ read: () => null, changed: () => false, where: ENCRYPTION_KEY_VAR });
  }

  /** A keyring kept in a key file (the embedded store's), re-read when the file changes. */
  static fromFile(path: string, extraOld: readonly Buffer[] = []): Keyring {
    let seen = fileStamp(path);
    return new Keyring({
      read: () => {
        seen = fileStamp(path);
        const keys = readKeyFile(path);
        return { current: keys.current, old: [...keys.old, ...extraOld] };
      },
      changed: () => fileStamp(path) !== seen,
      where: `${ENCRYPTION_KEY_VAR} (or the key file ${path})`,
    });
  }

  static isSealed = isSealed;

  /** The id of the key new seals use. */
  get currentKeyId(): string {
    return this.currentKey().id;
  }

  /** Whether the keyring holds any key (PostgreSQL without CASHLINE_ENCRYPTION_KEY holds none). */
  get hasKey(): boolean {
    return this.current !== null;
  }

  /** Seals `plain` for organisation `orgId` under the current key (a fresh nonce each time). */
  seal(orgId: string, plain: string): string {
    if (this.source.changed()) this.reload();
    const { id, key } = this.currentKey();
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    cipher.setAAD(aad(orgId));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}:${id}:${nonce.toString('base64url')}:${body.toString('base64url')}`;
  }

  /** Opens a value sealed for `orgId` with any held key; a SealError when it cannot. */
  open(orgId: string, sealed: string): string {
    const m = SEALED.exec(sealed);
    if (!m) throw new SealError('malformed', `a stored secret is not a sealed value; reconnect the ledger of organisation ${orgId} (it is sealed under ${ENCRYPTION_KEY_VAR} on write)`);
    const [, id, nonceText, bodyText] = m as unknown as [string, string, string, string];
    const key = this.keyFor(id);
    const body = Buffer.from(bodyText, 'base64url');
    if (body.length < TAG_BYTES + 1) throw this.unreadable(orgId, id);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonceText, 'base64url'));
      decipher.setAAD(aad(orgId));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw this.unreadable(orgId, id);
    }
  }

  /** The key id a sealed value names (null when it is not a sealed value). */
  static keyIdOfSealed(sealed: string): string | null {
    return SEALED.exec(sealed)?.[1] ?? null;
  }

  /** HMAC-SHA256 of `data` under a subkey of the current key for `purpose` (HKDF), base64url: signed links. */
  mac(purpose: string, data: string): string {
    if (this.source.changed()) this.reload();
    const { id, key } = this.currentKey();
    return this.macWith(id, key, purpose, data);
  }

  /** Whether `mac` is the MAC of `data` for `purpose` under any held key (constant-time comparison). */
  verifyMac(purpose: string, data: string, mac: string): boolean {
    if (this.source.changed()) this.reload();
    this.currentKey(); // no key: a SealError, not a silent "invalid"
    const given = Buffer.from(mac, 'utf8');
    let ok = false;
    for (const [id, key] of this.keys) {
      const want = Buffer.from(this.macWith(id, key, purpose, data), 'utf8');
      // Every key is tried (no early return): the time does not tell which matched.
      if (want.length === given.length && timingSafeEqual(want, given)) ok = true;
    }
    return ok;
  }

  /** Re-reads the keys from their source (a key file rotated by a command). */
  reload(): void {
    this.use(this.source.read());
  }

  private use(set: KeySet | null): void {
    this.keys = new Map();
    this.current = null;
    if (!set) return;
    this.current = { id: keyIdOf(set.current), key: set.current };
    this.keys.set(this.current.id, set.current);
    for (const k of set.old) if (!this.keys.has(keyIdOf(k))) this.keys.set(keyIdOf(k), k);
  }

  private currentKey(): { id: string; key: Buffer } {
    if (!this.current) {
      throw new SealError('no_key', `${ENCRYPTION_KEY_VAR} is not set: ledger tokens are sealed with it; set it to a base64 key of 32 bytes (openssl rand -base64 32), the same on every instance`);
    }
    return this.current;
  }

  private keyFor(id: string): Buffer {
    this.currentKey();
    let key = this.keys.get(id);
    if (!key) {
      // Another process may have rotated the key file since this one read it.
      this.reload();
      key = this.keys.get(id);
    }
    if (!key) {
      throw new SealError(
        'unknown_key',
        `a stored secret is sealed under key ${id}, which ${this.source.where} does not hold (current key ${this.currentKeyId}); set ${ENCRYPTION_KEY_VAR} to that key, or add it to CASHLINE_ENCRYPTION_OLD_KEYS`,
      );
    }
    return key;
  }

  private unreadable(orgId: string, id: string): SealError {
    return new SealError(
      'unreadable',
      `the stored ledger tokens of organisation ${orgId} do not open under key ${id} of ${ENCRYPTION_KEY_VAR}: they were altered or belong to another organisation; reconnect the ledger (cashline-server ledger connect)`,
    );
  }

  private macWith(id: string, key: Buffer, purpose: string, data: string): string {
    return createHmac('sha256', this.macKey(id, key, purpose)).update(data, 'utf8').digest('base64url');
  }

  private macKey(id: string, key: Buffer, purpose: string): Buffer {
    const k = `${id}\0${purpose}`;
    let sub = this.macKeys.get(k);
    if (!sub) {
      sub = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `cashline:mac:${purpose}`, 32));
      this.macKeys.set(k, sub);
    }
    return sub;
  }
}

const aad = (orgId: string) => Buffer.from(`${AAD_LABEL}${orgId}`, 'utf8');

function asKey(k: string | Buffer): Buffer {
  const key = typeof k === 'string' ? decodeKey(k) : k;
  if (!key || key.length !== 32) throw new SealError('no_key', `${ENCRYPTION_KEY_VAR} must be a base64 key of 32 bytes (openssl rand -base64 32)`);
  return key;
}

/** Parses a comma-separated list of base64 keys (CASHLINE_ENCRYPTION_OLD_KEYS). */
function keyList(text: string | undefined, name: string): Buffer[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const key = decodeKey(s);
      if (!key) throw new SealError('no_key', `${name} must be comma-separated base64 keys of 32 bytes each`);
      return key;
    });
}

// ---- the key file of the embedded store ----

function fileStamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

function readKeyFile(path: string): KeySet {
  let parsed: { current?: unknown; old?: unknown };
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new SealError('no_key', `the key file ${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'not JSON'}); restore it, or set ${ENCRYPTION_KEY_VAR}`);
  }
  const current = typeof parsed.current === 'string' ? decodeKey(parsed.current) : null;
  const old = Array.isArray(parsed.old) ? parsed.old.map((k) => (typeof k === 'string' ? decodeKey(k) : null)) : [];
  if (!current || old.some((k) => !k)) throw new SealError('no_key', `the key file ${path} does not hold base64 keys of 32 bytes; restore it, or set ${ENCRYPTION_KEY_VAR}`);
  return { current, old: old as Buffer[] };
}

/** Writes the key file atomically (a temporary file renamed over it), owner-only from its creation. */
function writeKeyFile(path: string, keys: KeySet): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify({ current: keys.current.toString('base64'), old: keys.old.map((k) => k.toString('base64')) }, null, 2)}\n`);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

/** The data folder's key file, created (0600, a fresh random key) when missing. */
function ensureKeyFile(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, KEY_FILE);
  try {
    // Exclusive creation: two processes starting together never write two keys.
    const fd = openSync(path, 'wx', 0o600);
    try {
      writeSync(fd, `${JSON.stringify({ current: randomBytes(32).toString('base64'), old: [] }, null, 2)}\n`);
    } finally {
      closeSync(fd);
    }
    chmodSync(path, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return path;
}

/**
 * Rotates the key file of the embedded store: a fresh random key becomes
 * current, the previous ones stay to open what they sealed. Returns the new
 * key id. Keyrings over the file re-read it before their next seal.
 */
export function rotateKeyFile(dataDir: string): string {
  const path = ensureKeyFile(dataDir);
  const before = readKeyFile(path);
  const next = randomBytes(32);
  const old = [before.current, ...before.old].filter((k, i, all) => all.findIndex((o) => o.equals(k)) === i);
  writeKeyFile(path, { current: next, old });
  return keyIdOf(next);
}

/** The configuration a keyring is loaded from. */
export interface KeyringConfig {
  DATABASE_URL?: string | undefined;
  CASHLINE_DATA_DIR: string;
  CASHLINE_ENCRYPTION_KEY?: string | undefined;
  CASHLINE_ENCRYPTION_OLD_KEYS?: string | undefined;
}

/** An in-memory store's key: one per process (the store itself lives no longer). */
let memoryKey: Buffer | null = null;

/** Whether the keys are in the data folder's key file (embedded store, no CASHLINE_ENCRYPTION_KEY). */
export const usesKeyFile = (config: KeyringConfig) => !config.DATABASE_URL && !config.CASHLINE_ENCRYPTION_KEY && config.CASHLINE_DATA_DIR !== 'memory://';

/** The keyring of this configuration (see the top of this file). */
export function loadKeyring(config: KeyringConfig): Keyring {
  const old = keyList(config.CASHLINE_ENCRYPTION_OLD_KEYS, 'CASHLINE_ENCRYPTION_OLD_KEYS');
  if (config.CASHLINE_ENCRYPTION_KEY) {
    const current = decodeKey(config.CASHLINE_ENCRYPTION_KEY);
    if (!current) throw new SealError('no_key', `${ENCRYPTION_KEY_VAR} must be a base64 key of 32 bytes (openssl rand -base64 32)`);
    // An embedded store that began with a key file keeps opening what that file's keys sealed.
    const fileKeys = !config.DATABASE_URL && config.CASHLINE_DATA_DIR !== 'memory://' ? existingFileKeys(config.CASHLINE_DATA_DIR) : [];
    return Keyring.fromKeys(current, [...old, ...fileKeys]);
  }
  if (config.DATABASE_URL) return Keyring.withoutKey();
  if (config.CASHLINE_DATA_DIR === 'memory://') {
    memoryKey ??= randomBytes(32);
    return Keyring.fromKeys(memoryKey, old);
  }
  return Keyring.fromFile(ensureKeyFile(config.CASHLINE_DATA_DIR), old);
}

function existingFileKeys(dataDir: string): Buffer[] {
  const path = join(dataDir, KEY_FILE);
  if (fileStamp(path) === 'missing') return [];
  const keys = readKeyFile(path);
  return [keys.current, ...keys.old];
}
