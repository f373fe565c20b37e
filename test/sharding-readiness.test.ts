/**
 * Sharding readiness (issue 21; docs/scaling.md#citus): every table an
 * organisation owns can be distributed by organisation id. PostgreSQL's
 * catalogue of the migrated schema is read, and every primary key, unique
 * constraint, unique index and foreign key of an organisation's table must
 * include `org_id` (a distributed table's keys must hold its distribution
 * column; a foreign key between two of them must join on it). The tenancy
 * directory - the only data no single organisation owns - is the list of
 * reference tables (replicated to every node), and nothing else may be.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshStore, type TestStore } from './helpers/store.js';
import { rows } from '../src/store/db.js';

/** The tenancy directory (docs/store.md): reference tables under Citus. */
const REFERENCE_TABLES = ['api_keys', 'billing_accounts', 'memberships', 'organisations', 'partner_links', 'partners', 'users'];
/**
 * Not by organisation (docs/scaling.md#distribution): the service's own
 * bookkeeping, and the per-key and per-(user, billing account) counters and
 * the audit log, which a distributed deployment keeps in Redis (the
 * counters) or partitions by time (the log).
 */
const SERVICE_TABLES = ['cashline_migrations', 'leases', 'burst_events', 'credit_events', 'audit_log'];

describe('sharding readiness (PostgreSQL catalogue)', () => {
  let store: TestStore;
  beforeAll(async () => {
    store = await freshStore('postgres');
  });
  afterAll(async () => {
    await store?.close();
  });

  it('every organisation table carries org_id, and each of its keys, unique indexes and foreign keys includes it', async () => {
    const tables = await rows<{ table_name: string; has_org: boolean }>(
      store.db,
      sql`select t.table_name, exists (select 1 from information_schema.columns c where c.table_schema = t.table_schema and c.table_name = t.table_name and c.column_name = 'org_id') as has_org
          from information_schema.tables t where t.table_schema = current_schema() and t.table_type = 'BASE TABLE' order by 1`,
    );
    const owned = tables.filter((t) => !REFERENCE_TABLES.includes(t.table_name) && !SERVICE_TABLES.includes(t.table_name));
    expect(owned.length).toBeGreaterThan(25);
    expect(owned.filter((t) => !t.has_org).map((t) => t.table_name)).toEqual([]);
    // Constraints (p: primary key, u: unique, f: foreign key) and unique indexes, with their columns.
    const keys = await rows<{ tbl: string; name: string; kind: string; cols: string[] }>(
      store.db,
      sql`select c.conrelid::regclass::text as tbl, c.conname as name, c.contype as kind,
            array(select a.attname::text from unnest(c.conkey) k join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k) as cols
          from pg_constraint c join pg_namespace n on n.oid = c.connamespace
          where n.nspname = current_schema() and c.contype in ('p', 'u', 'f')
          union all
          select i.indrelid::regclass::text, x.relname, 'i',
            array(select a.attname::text from unnest(i.indkey) k join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k)
          from pg_index i join pg_class x on x.oid = i.indexrelid join pg_namespace n on n.oid = x.relnamespace
          where n.nspname = current_schema() and i.indisunique and not i.indisprimary
            and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`,
    );
    const ownedNames = new Set(owned.map((t) => t.table_name));
    const mine = keys.filter((k) => ownedNames.has(k.tbl.replace(/^.*\./, '').replace(/"/g, '')));
    expect(mine.filter((k) => k.kind === 'p').length).toBe(owned.length);
    expect(mine.filter((k) => !k.cols.includes('org_id')).map((k) => `${k.tbl}.${k.name} (${k.kind}: ${k.cols.join(', ')})`)).toEqual([]);
  });

  it('a foreign key from an organisation table to another organisation table joins on org_id; to the directory is the only other kind', async () => {
    const fks = await rows<{ tbl: string; ref: string; cols: string[] }>(
      store.db,
      sql`select c.conrelid::regclass::text as tbl, c.confrelid::regclass::text as ref,
            array(select a.attname::text from unnest(c.conkey) k join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k) as cols
          from pg_constraint c join pg_namespace n on n.oid = c.connamespace where n.nspname = current_schema() and c.contype = 'f'`,
    );
    const plain = (t: string) => t.replace(/^.*\./, '').replace(/"/g, '');
    const bad = fks.filter((f) => !REFERENCE_TABLES.includes(plain(f.tbl)) && !REFERENCE_TABLES.includes(plain(f.ref)) && !f.cols.includes('org_id'));
    expect(bad).toEqual([]);
  });
});
