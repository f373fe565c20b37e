/**
 * The operations interface of decisions.md ("Operations interface
 * (`cashline-server`)"): fixed subcommands and flags, JSON on stdout and exit 0
 * on success, `error: <message>` on stderr and non-zero on failure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { freshStore, type TestStore } from './helpers/store.js';
import { ops } from './helpers/ops.js';
import * as s from '../src/store/schema.js';

describe('cashline-server operations on PostgreSQL', () => {
  let store: TestStore;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    store = await freshStore('postgres');
    env = { DATABASE_URL: store.url!, CASHLINE_NOW: '2026-11-23T09:00:00Z' };
  });
  afterAll(async () => {
    await store?.close();
  });

  it('org create prints {orgId, userId, billingAccountId} with the documented defaults', async () => {
    const r = await ops(['org', 'create', '--name', 'Acme & Sons'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(Object.keys(r.json).sort()).toEqual(['billingAccountId', 'orgId', 'userId']);
    const [org] = await store.db.select().from(s.organisations).where(eq(s.organisations.id, r.json.orgId));
    // decisions.md: "Defaults: Australia/Sydney, AUD, 30 June, Free, active."
    expect(org).toMatchObject({ timezone: 'Australia/Sydney', baseCurrency: 'AUD', fyEndDay: 30, fyEndMonth: 6, slug: 'acme-and-sons' });
    const [ba] = await store.db.select().from(s.billingAccounts).where(eq(s.billingAccounts.id, r.json.billingAccountId));
    expect(ba).toMatchObject({ plan: 'Free', subscriptionStatus: 'active', trialEndsAt: null });
  });

  it('only the commands that serve reads or report on it open the read replica: org create never connects to it, status does', async () => {
    // A stand-in replica that counts the connections made to it (and drops them: the replica is then down).
    let connections = 0;
    const fake = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((done) => fake.listen(0, '127.0.0.1', done));
    try {
      const withReplica = { ...env, DATABASE_REPLICA_URL: `postgres://postgres@127.0.0.1:${(fake.address() as AddressInfo).port}/test` };
      const r = await ops(['org', 'create', '--name', 'No Replica Needed'], withReplica);
      expect(r.code, r.stderr).toBe(0);
      expect(connections).toBe(0);
      const st = await ops(['status'], withReplica);
      expect(st.code, st.stderr).toBe(0);
      expect(st.json.replica).not.toBeNull();
      expect(connections).toBeGreaterThan(0);
      expect((await ops(['status'], env)).json.replica).toBeNull();
    } finally {
      await new Promise((done) => fake.close(done));
    }
  });

  it('org create takes every documented flag', async () => {
    const r = await ops(
      ['org', 'create', '--name', 'Kiwi Ltd', '--timezone', 'Pacific/Auckland', '--base-currency', 'nzd', '--fy-end-day', '31',
        '--fy-end-month', '3', '--plan', 'Vault', '--subscription', 'trialing', '--trial-ends', '2026-11-27'],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const [org] = await store.db.select().from(s.organisations).where(eq(s.organisations.id, r.json.orgId));
    expect(org).toMatchObject({ timezone: 'Pacific/Auckland', baseCurrency: 'NZD', fyEndDay: 31, fyEndMonth: 3 });
    const [ba] = await store.db.select().from(s.billingAccounts).where(eq(s.billingAccounts.id, r.json.billingAccountId));
    expect(ba).toMatchObject({ plan: 'Vault', subscriptionStatus: 'trialing', trialEndsAt: new Date('2026-11-27T00:00:00Z') });
  });

  it('bad flags fail with `error: <message>` naming the flag and a non-zero exit', async () => {
    const cases: [string[], RegExp][] = [
      [['org', 'create', '--name', 'X', '--timezone', 'Mars/Olympus'], /--timezone/],
      [['org', 'create', '--name', 'X', '--fy-end-day', '31', '--fy-end-month', '2'], /fy-end/],
      [['org', 'create', '--name', 'X', '--plan', 'Gold'], /--plan/],
      [['org', 'create', '--name', 'X', '--trial-ends', '2026-02-30'], /--trial-ends/],
      [['org', 'create'], /--name/],
      [['key', 'create', '--org', 'nope', '--scopes', 'all'], /--org/],
      [['key', 'create', '--scopes', 'READ_NOTHING', '--org', 'x'], /--scopes/],
      [['key', 'revoke', '--prefix', 'zzzzzzzzzzzz'], /--prefix/],
    ];
    for (const [args, pattern] of cases) {
      const r = await ops(args, env);
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.stderr, args.join(' ')).toMatch(/^error: /);
      expect(r.stderr, args.join(' ')).toMatch(pattern);
      expect(r.stdout).toBe('');
    }
  });

  it('user create, key create/revoke, partner create/link: keys are shown once and stored only as hashes', async () => {
    const org = (await ops(['org', 'create', '--name', 'Keys Co'], env)).json;
    const user = await ops(['user', 'create', '--org', org.orgId, '--name', 'Second'], env);
    expect(user.code, user.stderr).toBe(0);
    expect(Object.keys(user.json)).toEqual(['userId']);

    const key = await ops(['key', 'create', '--org', org.orgId, '--user', user.json.userId, '--scopes', 'READ_BANK,READ_INVOICES'], env);
    expect(key.code, key.stderr).toBe(0);
    // decisions.md: user keys `cl_user_<keyprefix>_<secret>`
    expect(key.json.key).toMatch(new RegExp(`^cl_user_${key.json.keyPrefix}_[A-Za-z0-9]{40}$`));
    const [row] = await store.db.select().from(s.apiKeys).where(eq(s.apiKeys.keyPrefix, key.json.keyPrefix));
    expect(row).toMatchObject({ kind: 'USER', orgId: org.orgId, userId: user.json.userId, scopes: ['READ_BANK', 'READ_INVOICES'], revokedAt: null });
    const secret = key.json.key.split('_').pop();
    expect(JSON.stringify(row)).not.toContain(secret);

    const revoked = await ops(['key', 'revoke', '--prefix', key.json.keyPrefix], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    const [after] = await store.db.select().from(s.apiKeys).where(eq(s.apiKeys.keyPrefix, key.json.keyPrefix));
    expect(after!.revokedAt).toEqual(new Date('2026-11-23T09:00:00Z'));

    const partner = await ops(['partner', 'create', '--name', 'Advisors LLP'], env);
    expect(Object.keys(partner.json)).toEqual(['partnerId']);
    const link = await ops(['partner', 'link', '--partner', partner.json.partnerId, '--org', org.orgId], env);
    expect(link.code, link.stderr).toBe(0);
    const again = await ops(['partner', 'link', '--partner', partner.json.partnerId, '--org', org.orgId], env);
    expect(again.code, 'linking twice is idempotent').toBe(0);
    const pkey = await ops(['key', 'create', '--partner', partner.json.partnerId, '--scopes', 'all'], env);
    // decisions.md: partner keys `cl_partner_<keyprefix>_<secret>`
    expect(pkey.json.key).toMatch(/^cl_partner_[a-z0-9]{12}_[A-Za-z0-9]{40}$/);
    const [prow] = await store.db.select().from(s.apiKeys).where(eq(s.apiKeys.keyPrefix, pkey.json.keyPrefix));
    expect(prow!.scopes).toHaveLength(8);
    expect(prow).toMatchObject({ kind: 'PARTNER', partnerId: partner.json.partnerId, orgId: null });
  });

  it('a key for a user outside the organisation is refused', async () => {
    const a = (await ops(['org', 'create', '--name', 'A'], env)).json;
    const b = (await ops(['org', 'create', '--name', 'B'], env)).json;
    const r = await ops(['key', 'create', '--org', a.orgId, '--user', b.userId, '--scopes', 'all'], env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^error: --user/);
  });

  it('sensitive flags a contact or an account, and --off clears it', async () => {
    const org = (await ops(['org', 'create', '--name', 'Sens'], env)).json;
    const now = new Date();
    await store.db.insert(s.contacts).values({ orgId: org.orgId, id: 'c-1', name: 'Payroll', lastSyncedAt: now });
    await store.db.insert(s.accounts).values({ orgId: org.orgId, id: 'a-1', code: '477', name: 'Wages', type: 'EXPENSE', lastSyncedAt: now });
    expect((await ops(['sensitive', '--org', org.orgId, '--contact', 'c-1'], env)).code).toBe(0);
    expect((await ops(['sensitive', '--org', org.orgId, '--account', '477'], env)).code).toBe(0);
    const [c] = await store.db.select().from(s.contacts).where(eq(s.contacts.id, 'c-1'));
    const [a] = await store.db.select().from(s.accounts).where(eq(s.accounts.id, 'a-1'));
    expect([c!.isSensitive, a!.isSensitive]).toEqual([true, true]);
    expect((await ops(['sensitive', '--org', org.orgId, '--account', 'a-1', '--off'], env)).code).toBe(0);
    const [a2] = await store.db.select().from(s.accounts).where(eq(s.accounts.id, 'a-1'));
    expect(a2!.isSensitive).toBe(false);
    const missing = await ops(['sensitive', '--org', org.orgId, '--contact', 'nope'], env);
    expect(missing.stderr).toMatch(/^error: --contact/);
    const both = await ops(['sensitive', '--org', org.orgId], env);
    expect(both.stderr).toMatch(/exactly one of --contact or --account/);
  });
});

describe('cashline-server on the embedded store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cashline-ops-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('migrate, org create and key create work on PGlite in CASHLINE_DATA_DIR', async () => {
    const env = { CASHLINE_DATA_DIR: dir };
    const m = await ops(['migrate'], env);
    expect(m.code, m.stderr).toBe(0);
    expect(m.json.store).toBe('pglite');
    const org = await ops(['org', 'create', '--name', 'Embedded'], env);
    expect(org.code, org.stderr).toBe(0);
    const key = await ops(['key', 'create', '--org', org.json.orgId, '--scopes', 'all'], env);
    expect(key.json.key).toMatch(/^cl_user_/);
    const again = await ops(['migrate'], env);
    expect(again.json.applied).toEqual([]);
  }, 90_000);

  it('a bad configuration value stops with a message naming the variable', async () => {
    const r = await ops(['migrate'], { PORT: 'eighty', CASHLINE_DATA_DIR: dir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^error: invalid configuration: PORT/);
  });
});
