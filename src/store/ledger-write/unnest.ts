/**
 * Rows into SQL: a table's columns, the rows as one text[] per column zipped
 * by unnest(), plain multi-row inserts and deletes of children.
 */
import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../db.js';
import { checkOrg, chunks } from './common.js';

export interface ColInfo {
  prop: string;
  name: string;
  type: string;
  notNull: boolean;
}

const columnCache = new WeakMap<PgTable, { name: string; cols: ColInfo[] }>();

export function tableInfo(table: PgTable): { name: string; cols: ColInfo[] } {
  let info = columnCache.get(table);
  if (!info) {
    const cols = Object.entries(getTableColumns(table) as Record<string, PgColumn>).map(([prop, c]) => ({
      prop,
      name: c.name,
      type: c.getSQLType(),
      notNull: c.notNull,
    }));
    info = { name: getTableConfig(table).name, cols };
    columnCache.set(table, info);
  }
  return info;
}

export const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A value as the text PostgreSQL reads for its column (cast in SQL); null stays null. */
function textValue(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v); // jsonb
}

/**
 * The rows as one text[] per column (undefined reads as NULL): the statement
 * zips them with unnest(), which is the cheapest way into both engines
 * (PGlite in particular: half the cost of json_to_recordset).
 */
function columnArrays(rows: ReadonlyArray<Record<string, unknown>>, cols: readonly ColInfo[]): SQL[] {
  return cols.map((c) => {
    const arr = new Array<string | null>(rows.length);
    for (let i = 0; i < rows.length; i++) arr[i] = textValue(rows[i]![c.prop]);
    return sql`${sql.param(arr)}::text[]`;
  });
}

/** `unnest($a::text[], $b::text[], …) as u("c1", "c2", …)` over the rows. */
export function unnestFrom(rows: ReadonlyArray<Record<string, unknown>>, cols: readonly ColInfo[]): SQL {
  return sql.join([
    sql.raw('unnest('),
    sql.join(columnArrays(rows, cols), sql.raw(', ')),
    sql.raw(`) as u(${cols.map((c) => ident(c.name)).join(', ')})`),
  ]);
}

/** The column's value in the unnest, cast to its type. */
export const fromU = (c: ColInfo) => `u.${ident(c.name)}::${c.type}`;

/** Plain multi-row insert (rows whose parents were just cleared). */
export async function insertRows<T extends { orgId: string }>(db: Db, orgId: string, table: PgTable, input: readonly T[], chunk: number, what: string): Promise<number> {
  if (input.length === 0) return 0;
  checkOrg(orgId, input, what);
  const { name, cols: allCols } = tableInfo(table);
  const cols = allCols.filter((c) => c.prop !== 'orgId');
  const orgCol = allCols.find((c) => c.prop === 'orgId')!;
  const head = `insert into ${ident(name)} (${[orgCol, ...cols].map((c) => ident(c.name)).join(', ')}) select `;
  const select = `, ${cols.map(fromU).join(', ')} from `;
  for (const part of chunks(input as unknown as Array<Record<string, unknown>>, chunk)) {
    await db.execute(sql.join([sql.raw(head), sql`${orgId}`, sql.raw(select), unnestFrom(part, cols)]));
  }
  return input.length;
}

/** Deletes the children of the given parents (lines of items, allocations of credit notes). */
export async function deleteChildren(db: Db, orgId: string, table: PgTable, parentProp: string, parentIds: readonly string[]): Promise<void> {
  if (parentIds.length === 0) return;
  const { name, cols } = tableInfo(table);
  const parent = cols.find((c) => c.prop === parentProp)!;
  for (const part of chunks(parentIds, 5000)) {
    await db.execute(
      sql.join([
        sql.raw(`delete from ${ident(name)} where "org_id" = `),
        sql`${orgId}`,
        sql.raw(` and ${ident(parent.name)} = any(`),
        sql`${sql.param(part)}::text[]`,
        sql.raw(`)`),
      ]),
    );
  }
}
