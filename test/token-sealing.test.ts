/**
 * The ledger tokens sealed at rest (docs/sync.md "Tokens at rest"):
 * AES-256-GCM bound to the organisation, the key file of the embedded store,
 * plain rows sealed on first start, a key rotation while a sync rotates its
 * refresh token, and the processes: no key, no tokens in the logs (dist/, run
 * `npm run build` first).
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { freshStore, type TestStore } from './helpers/store.js';
import { rows } from '../src/store/db.js';
import { createOrg } from '../src/store/tenancy.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { isSealed, Keyring, KEY_FILE, loadKeyring, rotateKeyFile, SealError } from '../src/ledger/seal.js';
import { loadTokens, rotateEncryption, sealPlainTokens } from '../src/ledger/tokens.js';
import { connectLedger, syncOrganisation } from '../src/ledger/sync/sync.js';
import { ledgerAlertFor } from '../src/api/envelope.js';
import type { XeroServer } from '../src/xero-server/server.js';
import { connectedOrg, NOW, syncEnv, syncOpts, testKeyring, xeroServer } from './helpers/ledger.js';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'dist/bin/cashline-server.js');
const keyA = randomBytes(32).toString('base64');
const keyB = randomBytes(32).toString('base64');

/** The row as PostgreSQL prints it: every column, as text. */
async function rawRow(db: TestStore['db'], orgId: string): Promise<string> {
  const [r] = await rows<{ t: string }>(db, sql`select lc::text as t from ledger_connections lc where org_id = ${orgId}`);
  return r!.t;
}

/** The key ids of every stored token and of the rows' secrets_key_id. */
async function keyIds(db: TestStore['db']): Promise<string[]> {
  const list = await rows<{ a: string | null; r: string | null; k: string | null }>(db, sql`select access_token as a, refresh_token as r, secrets_key_id as k from ledger_connections`);
  return list.flatMap((x) => [x.a, x.r].filter((t): t is string => t !== null).map((t) => Keyring.keyIdOfSealed(t) ?? 'plain').concat(x.k ?? 'none'));
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string; json: any }> {
  return new Promise((r) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env: { PATH: process.env.PATH, ...env } }, (err, stdout, stderr) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        /* not JSON */
      }
      r({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr, json });
    });
  });
}

describe('sealing (unit)', () => {
  const ring = Keyring.fromKeys(keyA);

  it('round trip in the v1 format, the key id a hash prefix of the key; a fresh nonce each seal', () => {
    const sealed = ring.seal('org-1', 'xrt_secret');
    expect(sealed).toMatch(/^v1:[0-9a-f]{16}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/);
    expect(sealed.split(':')[1]).toBe(createHash('sha256').update(Buffer.from(keyA, 'base64')).digest('hex').slice(0, 16));
    expect(ring.currentKeyId).toBe(sealed.split(':')[1]);
    expect(isSealed(sealed) && Keyring.isSealed(sealed)).toBe(true);
    expect(isSealed('xrt_secret')).toBe(false);
    expect(ring.open('org-1', sealed)).toBe('xrt_secret');
    const again = ring.seal('org-1', 'xrt_secret');
    expect(again).not.toBe(sealed);
    expect(again.split(':')[2]).not.toBe(sealed.split(':')[2]);
  });

  it('does not open for another organisation, tampered, or under a key it does not hold; the error names the variable and nothing secret', () => {
    const sealed = ring.seal('org-1', 'xrt_secret');
    const failure = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        expect(err).toBeInstanceOf(SealError);
        const e = err as SealError;
        expect(e.message).toMatch(/CASHLINE_ENCRYPTION_KEY/);
        expect(e.message).not.toMatch(/xrt_secret/);
        expect(e.message).not.toContain(keyA);
        expect(e.message).not.toContain(keyB);
        return e.reason;
      }
      throw new Error('opened');
    };
    expect(failure(() => ring.open('org-2', sealed))).toBe('unreadable');
    const body = sealed.split(':')[3]!;
    const flipped = `${sealed.slice(0, -body.length)}${body[0] === 'A' ? 'B' : 'A'}${body.slice(1)}`;
    expect(failure(() => ring.open('org-1', flipped))).toBe('unreadable');
    expect(failure(() => Keyring.fromKeys(keyB).open('org-1', sealed))).toBe('unknown_key');
    expect(failure(() => Keyring.withoutKey().open('org-1', sealed))).toBe('no_key');
    expect(failure(() => Keyring.withoutKey().seal('org-1', 'xrt_secret'))).toBe('no_key');
    expect(failure(() => ring.open('org-1', 'xrt_secret'))).toBe('malformed');
  });

  it('old keys open, new seals use the current key; MACs verify under any held key, per purpose', () => {
    const sealedA = ring.seal('org-1', 'tok');
    const rotated = Keyring.fromKeys(keyB, [keyA]);
    expect(rotated.open('org-1', sealedA)).toBe('tok');
    expect(Keyring.keyIdOfSealed(rotated.seal('org-1', 'tok'))).toBe(rotated.currentKeyId);
    expect(rotated.currentKeyId).not.toBe(ring.currentKeyId);

    const mac = ring.mac('consent', 'org-1|state');
    expect(mac).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(ring.verifyMac('consent', 'org-1|state', mac)).toBe(true);
    expect(ring.verifyMac('consent', 'org-1|other', mac)).toBe(false);
    expect(ring.verifyMac('webhook', 'org-1|state', mac)).toBe(false);
    expect(rotated.verifyMac('consent', 'org-1|state', mac)).toBe(true);
    expect(Keyring.fromKeys(keyB).verifyMac('consent', 'org-1|state', mac)).toBe(false);
    expect(() => Keyring.withoutKey().mac('consent', 'x')).toThrow(SealError);
  });

  it('configuration: a key that is not 32 bytes of base64 is refused naming the variable, without echoing it', () => {
    const bad = Buffer.alloc(16, 1).toString('base64');
    expect(() => loadConfig({ CASHLINE_ENCRYPTION_KEY: bad })).toThrow(ConfigError);
    expect(() => loadConfig({ CASHLINE_ENCRYPTION_KEY: bad })).toThrow(/CASHLINE_ENCRYPTION_KEY: must be a base64 key of exactly 32 bytes/);
    expect(() => loadConfig({ CASHLINE_ENCRYPTION_KEY: 'not base64 at all!' })).not.toThrow(/not base64 at all/);
    expect(() => loadConfig({ CASHLINE_ENCRYPTION_KEY: keyA, CASHLINE_ENCRYPTION_OLD_KEYS: `${keyB},${bad}` })).toThrow(/CASHLINE_ENCRYPTION_OLD_KEYS/);
    expect(loadConfig({ CASHLINE_ENCRYPTION_KEY: keyA, CASHLINE_ENCRYPTION_OLD_KEYS: `${keyB}, ${keyA}` }).CASHLINE_ENCRYPTION_KEY).toBe(keyA);
    // PostgreSQL without the key: a keyring that only fails when a token is touched.
    const none = loadKeyring({ DATABASE_URL: 'postgres://x@h/db', CASHLINE_DATA_DIR: './.cashline' });
    expect(none.hasKey).toBe(false);
    expect(() => none.currentKeyId).toThrow(/CASHLINE_ENCRYPTION_KEY/);
  });

  it('the embedded key file: created 0600 on first start, reused, rotated; a keyring over it follows the rotation', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cashline-keys-'));
    try {
      const config = { CASHLINE_DATA_DIR: join(dir, 'data') };
      const first = loadKeyring(config);
      const path = join(dir, 'data', KEY_FILE);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(loadKeyring(config).currentKeyId).toBe(first.currentKeyId);
      const before = first.seal('org-1', 'tok');

      const newId = rotateKeyFile(config.CASHLINE_DATA_DIR);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      const file = JSON.parse(readFileSync(path, 'utf8'));
      expect(file.old).toHaveLength(1);
      // The long-lived keyring re-reads the file: its next seal is under the new key, and it opens both.
      const after = first.seal('org-1', 'tok');
      expect(Keyring.keyIdOfSealed(after)).toBe(newId);
      expect(first.open('org-1', before)).toBe('tok');
      // One that never saw the rotation opens what the new key sealed (it re-reads on an unknown key id).
      expect(loadKeyring(config).open('org-1', after)).toBe('tok');
      // CASHLINE_ENCRYPTION_KEY set later: it seals, and the file's keys still open what they sealed.
      const envRing = loadKeyring({ ...config, CASHLINE_ENCRYPTION_KEY: keyB });
      expect(envRing.currentKeyId).toBe(Keyring.fromKeys(keyB).currentKeyId);
      expect(envRing.open('org-1', before)).toBe('tok');
      // A damaged key file: a clear error naming the variable, not a crash.
      writeFileSync(path, 'not json');
      expect(() => loadKeyring(config)).toThrow(SealError);
      expect(() => loadKeyring(config)).toThrow(/CASHLINE_ENCRYPTION_KEY/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('sealed tokens in the store (embedded)', () => {
  it('after connectLedger the raw row holds neither token in plain text', async () => {
    const store = await freshStore('pglite');
    try {
      const { orgId } = await createOrg(store.db, { name: 'Embedded Sealed', now: NOW });
      await connectLedger(store.db, testKeyring, { orgId, tenantId: 't-1', refreshToken: 'xrt_embedded_plain', accessToken: 'xat_embedded_plain', now: NOW });
      const raw = await rawRow(store.db, orgId);
      expect(raw).not.toMatch(/xrt_embedded_plain|xat_embedded_plain/);
      expect(await keyIds(store.db)).toEqual([testKeyring.currentKeyId, testKeyring.currentKeyId, testKeyring.currentKeyId]);
      expect(await loadTokens(store.db, testKeyring, orgId)).toMatchObject({ refreshToken: 'xrt_embedded_plain', accessToken: 'xat_embedded_plain' });
    } finally {
      await store.close();
    }
  });
});

describe('sealed tokens in the store and the sync (PostgreSQL)', () => {
  let store: TestStore;
  let server: XeroServer;

  beforeAll(async () => {
    store = await freshStore('postgres');
    server = await xeroServer({ limits: { perMinute: 100_000, concurrent: 5 } });
  });
  afterAll(async () => {
    await server?.close();
    await store?.close();
  });

  it('connectLedger seals both tokens; a row copied to another organisation fails its sync clearly (reconnect), the others go on', async () => {
    const db = store.db;
    const grant = server.issueGrant();
    const { orgId } = await createOrg(db, { name: 'Sealed Co', now: NOW });
    await connectLedger(db, testKeyring, { orgId, tenantId: server.tenantId, refreshToken: grant.refreshToken, accessToken: grant.accessToken, now: NOW });
    const raw = await rawRow(db, orgId);
    expect(raw).not.toContain(grant.refreshToken);
    expect(raw).not.toContain(grant.accessToken);

    const { orgId: other } = await createOrg(db, { name: 'Thief Co', now: NOW });
    await db.execute(sql`insert into ledger_connections (org_id, tenant_id, access_token, refresh_token, access_token_expires_at, secrets_key_id)
      select ${other}, tenant_id, access_token, refresh_token, access_token_expires_at, secrets_key_id from ledger_connections where org_id = ${orgId}`);
    const logged: string[] = [];
    const stolen = await syncOrganisation(db, other, syncOpts(server, { resources: ['Contacts'], log: (_l, msg, extra) => logged.push(JSON.stringify({ msg, ...extra })) }));
    expect(stolen).toMatchObject({ outcome: 'failed', errorKind: 'sealed', connection: { tokenState: 'unreadable' } });
    expect(stolen.error).toMatch(/CASHLINE_ENCRYPTION_KEY.*reconnect/);
    expect(logged.join('\n')).toMatch(/ledger sync failed/);
    expect(logged.join('\n')).not.toContain(grant.refreshToken);
    expect(await ledgerAlertFor(db, other, NOW, 'http://127.0.0.1:8787')).toMatchObject({ kind: 'reconnect_required', reason: 'token_unreadable' });

    const mine = await syncOrganisation(db, orgId, syncOpts(server, { resources: ['Contacts'] }));
    expect(mine.outcome).toBe('ok');
  });

  it('plain rows from before sealing: a warning without a key, sealed by sealPlainTokens, and the sync works', async () => {
    const db = store.db;
    const orgId = await connectedOrg(db, server, 'Plain Co');
    const grant = server.issueGrant();
    await db.execute(sql`update ledger_connections set refresh_token = ${grant.refreshToken}, access_token = null, access_token_expires_at = null, secrets_key_id = null where org_id = ${orgId}`);
    expect(await rawRow(db, orgId)).toContain(grant.refreshToken);

    const warnings: string[] = [];
    expect(await sealPlainTokens(db, Keyring.withoutKey(), (m) => warnings.push(m))).toEqual({ sealed: 0, unsealed: 1 });
    expect(warnings.join('\n')).toMatch(/CASHLINE_ENCRYPTION_KEY/);

    expect(await sealPlainTokens(db, testKeyring)).toEqual({ sealed: 1, unsealed: 0 });
    expect(await rawRow(db, orgId)).not.toContain(grant.refreshToken);
    expect(await sealPlainTokens(db, testKeyring)).toEqual({ sealed: 0, unsealed: 0 });
    expect((await syncOrganisation(db, orgId, syncOpts(server, { resources: ['Contacts'] }))).outcome).toBe('ok');
  });

  it('rotation while a sync rotates its refresh token: every row under the new key, the sync ok, and the new key alone works afterwards', async () => {
    const slow = await xeroServer({ latencyMs: 20, limits: { perMinute: 100_000, concurrent: 5 } });
    const rs = await freshStore('postgres');
    try {
      const oldRing = Keyring.fromKeys(keyA);
      // Every instance has the new key as current and the old one to open (docs/sync.md "Rotating the key").
      const ring = Keyring.fromKeys(keyB, [keyA]);
      const opts = (keyring: Keyring) => ({ ...syncOpts(slow, { resources: ['Invoices'] as const, pageSize: 20, client: { perMinute: 100_000 } }), keyring });
      const orgs: string[] = [];
      for (let i = 0; i < 4; i++) {
        const { orgId } = await createOrg(rs.db, { name: `Rotating ${i}`, now: NOW });
        const g = slow.issueGrant();
        await connectLedger(rs.db, oldRing, { orgId, tenantId: slow.tenantId, refreshToken: g.refreshToken, now: NOW });
        orgs.push(orgId);
      }
      const syncing = orgs[0]!;
      const firstRefresh = (await loadTokens(rs.db, oldRing, syncing))!.refreshToken;

      const start = slow.requests.length;
      const running = syncOrganisation(rs.db, syncing, opts(ring));
      let ended = false;
      void running.finally(() => (ended = true));
      while (!ended && slow.requests.length < start + 3) await new Promise((r) => setTimeout(r, 5));
      expect(ended).toBe(false);
      // The access token dies mid-run: the next call's 401 refreshes it, and the refresh token rotates.
      slow.expireAccessTokens();
      const rotation = await rotateEncryption(rs.db, ring);
      const synced = await running;

      expect(synced.outcome, synced.error).toBe('ok');
      expect(synced.refreshes).toBeGreaterThanOrEqual(2);
      expect(rotation).toMatchObject({ keyId: ring.currentKeyId, failed: 0 });
      expect(rotation.reencrypted + rotation.alreadyCurrent).toBe(4);
      expect(new Set(await keyIds(rs.db))).toEqual(new Set([ring.currentKeyId]));
      // The refresh token the sync was last given is the one stored (the re-seal did not put back an older one).
      const stored = (await loadTokens(rs.db, ring, syncing))!.refreshToken;
      expect(stored).not.toBe(firstRefresh);

      const newOnly = Keyring.fromKeys(keyB);
      slow.expireAccessTokens();
      const after = await syncOrganisation(rs.db, syncing, opts(newOnly));
      expect(after.outcome, after.error).toBe('ok');
      expect(after.refreshes).toBe(1);
      expect(await rotateEncryption(rs.db, ring)).toMatchObject({ reencrypted: 0, alreadyCurrent: 4, failed: 0 });
      // Only the old key: nothing opens, and the command's pass says so.
      expect(await rotateEncryption(rs.db, oldRing)).toMatchObject({ reencrypted: 0, failed: 4 });
    } finally {
      await slow.close();
      await rs.close();
    }
  });

  it('a re-seal waits for a token being saved and re-seals the saved one (the row lock), never the one it read before', async () => {
    const oldRing = Keyring.fromKeys(keyA);
    const ring = Keyring.fromKeys(keyB, [keyA]);
    const { orgId } = await createOrg(store.db, { name: 'Locked Co', now: NOW });
    await connectLedger(store.db, oldRing, { orgId, tenantId: 't-locked', refreshToken: 'xrt_first', now: NOW });
    // Another process saves a rotated refresh token in a transaction not yet committed.
    const other = new pg.Client({ connectionString: store.url! });
    await other.connect();
    try {
      await other.query('begin');
      await other.query('update ledger_connections set refresh_token = $1, secrets_key_id = $2 where org_id = $3', [oldRing.seal(orgId, 'xrt_second'), oldRing.currentKeyId, orgId]);
      let done = false;
      const rotation = rotateEncryption(store.db, ring).finally(() => (done = true));
      await new Promise((r) => setTimeout(r, 300));
      expect(done).toBe(false); // waiting for the row
      await other.query('commit');
      // (The other tests' rows are under the test key, which this keyring does not hold: they fail, this one does not.)
      expect((await rotation).failedOrgs).not.toContain(orgId);
    } finally {
      await other.end();
    }
    const tokens = await loadTokens(store.db, Keyring.fromKeys(keyB), orgId);
    expect(tokens?.refreshToken).toBe('xrt_second');
  });

  it('processes: sync without CASHLINE_ENCRYPTION_KEY exits 1 naming it; a debug-level sync logs no token', async () => {
    if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run npm run build`);
    const orgId = await connectedOrg(store.db, server, 'Process Co');
    const env = syncEnv(server, store.url!);
    const noKey = await run(['sync', '--org', orgId], { ...env, CASHLINE_ENCRYPTION_KEY: '' });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/^error: CASHLINE_ENCRYPTION_KEY must be set/);
    expect(noKey.stdout).toBe('');

    const before = (await loadTokens(store.db, testKeyring, orgId))!;
    server.expireAccessTokens();
    const debug = await run(['sync', '--org', orgId], { ...env, CASHLINE_LOG_LEVEL: 'debug' });
    expect(debug.code, debug.stderr).toBe(0);
    const after = (await loadTokens(store.db, testKeyring, orgId))!;
    expect(after.refreshToken).not.toBe(before.refreshToken);
    const output = debug.stdout + debug.stderr;
    for (const t of [before.refreshToken, after.refreshToken, after.accessToken]) expect(output).not.toContain(t!);
    expect(output).not.toContain(env.CASHLINE_ENCRYPTION_KEY!);
  });
});
