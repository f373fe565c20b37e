import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { BACKENDS, freshStore, type TestStore } from './helpers/store.js';
import { pgTimestamp, rows } from '../src/store/db.js';
import { migrate } from '../src/store/migrate.js';
import * as s from '../src/store/schema.js';

describe.each(BACKENDS)('store basics on %s', (kind) => {
  let store: TestStore;
  beforeAll(async () => {
    store = await freshStore(kind);
  });
  afterAll(async () => {
    await store?.close();
  });

  it('migrations are idempotent (a second run applies nothing)', async () => {
    const again = await migrate(store.db);
    expect(again.applied).toEqual([]);
    expect(again.alreadyApplied).toBeGreaterThan(0);
  });

  it('returns NUMERIC exactly as strings, DATE as YYYY-MM-DD, int8 as numbers, on both drivers', async () => {
    await store.db.insert(s.organisations).values({ id: 'o1', name: 'One', slug: 'one' });
    await store.db.insert(s.bankBalances).values({
      orgId: 'o1',
      accountId: 'a1',
      reconciledBalance: '12345678901234567890.0000001',
      balanceSyncedAt: new Date('2026-01-01T00:00:00Z'),
    });
    const [b] = await store.db.select().from(s.bankBalances).where(eq(s.bankBalances.orgId, 'o1'));
    expect(b!.reconciledBalance).toBe('12345678901234567890.0000001');
    expect(b!.balanceSyncedAt).toBeInstanceOf(Date);
    const raw = await rows<{ n: string; d: string; c: number; t: Date }>(
      store.db,
      sql`select reconciled_balance as n, '2024-02-29'::date as d, count(*) over () as c, balance_synced_at as t from bank_balances where org_id = 'o1'`,
    );
    expect({ ...raw[0], t: pgTimestamp(raw[0]!.t) }).toEqual({
      n: '12345678901234567890.0000001',
      d: '2024-02-29',
      c: 1,
      t: new Date('2026-01-01T00:00:00Z'),
    });
  });
});
