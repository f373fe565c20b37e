/**
 * The generic upsert of the ledger writers: a table's spec (conflict key,
 * update mode per column, newer-wins guard) applied to rows of one
 * organisation, a chunk per statement (the rules: ./batch.ts).
 */
import { sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { type Db, rows as queryRows } from '../db.js';
import { checkOrg, chunks, LedgerWriteError } from './common.js';
import { type ColInfo, fromU, ident, tableInfo, unnestFrom } from './unnest.js';

type UpdateMode = 'set' | 'coalesce' | 'keep';

export interface UpsertSpec {
  table: PgTable;
  /** Conflict target after org_id, as property names of the table. */
  key: readonly string[];
  /** Update mode per property; default: nullable columns coalesce, NOT NULL ones set. */
  modes?: Readonly<Record<string, UpdateMode>>;
  /** Properties never written (operator-owned or derived elsewhere). */
  omit?: readonly string[];
  /** SQL defaults for NOT NULL columns a row may not carry. */
  insertDefaults?: Readonly<Record<string, string>>;
  /** Newer-wins guard: the row is not updated when the stored value of this property is later. */
  guard?: string;
  /** 'nothing': reference rows, inserted only when missing. */
  onConflict?: 'update' | 'nothing';
  /** Rows per statement. */
  chunk: number;
}

/**
 * Merges rows with the same key (last wins, field by field: a later
 * undefined, or a later null in a coalescing column, keeps the earlier value),
 * after ordering them by the guard column so the newest version wins.
 */
function dedupe<T extends Record<string, unknown>>(rows: readonly T[], spec: UpsertSpec, cols: readonly ColInfo[]): T[] {
  const keyOf = (r: T) => spec.key.map((k) => String(r[k])).join('\u0001');
  const byKey = new Map<string, T[]>();
  let dup = false;
  for (const r of rows) {
    const k = keyOf(r);
    const list = byKey.get(k);
    if (list) {
      list.push(r);
      dup = true;
    } else byKey.set(k, [r]);
  }
  if (!dup) return rows.slice();
  const out: T[] = [];
  for (const list of byKey.values()) {
    if (list.length === 1) {
      out.push(list[0]!);
      continue;
    }
    const ordered = spec.guard
      ? list
          .map((r, i) => ({ r, i, t: r[spec.guard!] instanceof Date ? (r[spec.guard!] as Date).getTime() : -Infinity }))
          .sort((a, b) => a.t - b.t || a.i - b.i)
          .map((x) => x.r)
      : list;
    const merged: Record<string, unknown> = { ...ordered[0]! };
    for (const r of ordered.slice(1)) {
      for (const c of cols) {
        const v = r[c.prop];
        if (v === undefined) continue;
        const mode = spec.modes?.[c.prop] ?? (c.notNull ? 'set' : 'coalesce');
        if (v === null && mode === 'coalesce') continue;
        merged[c.prop] = v;
      }
    }
    out.push(merged as T);
  }
  return out;
}

/**
 * The generic upsert. Returns the keys (joined by \u0001) of the rows that
 * were inserted or updated (not those skipped by the guard or kept as stored).
 */
export async function upsert<T extends { orgId: string }>(
  db: Db,
  orgId: string,
  spec: UpsertSpec,
  input: readonly T[],
  what: string,
): Promise<Set<string>> {
  const written = new Set<string>();
  if (input.length === 0) return written;
  checkOrg(orgId, input, what);
  const { name: table, cols: allCols } = tableInfo(spec.table);
  const omit = new Set(['orgId', ...(spec.omit ?? [])]);
  const cols = allCols.filter((c) => !omit.has(c.prop));
  const keyCols = spec.key.map((k) => {
    const c = allCols.find((x) => x.prop === k);
    if (!c) throw new LedgerWriteError(`${table}: no column ${k}`);
    return c;
  });
  const keySet = new Set(spec.key);
  const modeOf = (c: ColInfo): UpdateMode => spec.modes?.[c.prop] ?? (c.notNull ? 'set' : 'coalesce');
  // NOT NULL columns a row may leave undefined ("not carried"): rows are grouped by which ones.
  const maskable = cols.filter((c) => c.notNull && !keySet.has(c.prop) && modeOf(c) !== 'keep');
  const rows = dedupe(input as unknown as Array<Record<string, unknown>>, spec, allCols);
  const groups = new Map<string, Array<Record<string, unknown>>>();
  for (const r of rows) {
    let mask = '';
    for (const c of maskable) mask += r[c.prop] === undefined ? '0' : '1';
    const g = groups.get(mask);
    if (g) g.push(r);
    else groups.set(mask, [r]);
  }
  const orgCol = allCols.find((c) => c.prop === 'orgId')!;
  const t = ident(table);
  for (const [mask, groupRows] of groups) {
    const missing = new Set(maskable.filter((_, i) => mask[i] === '0').map((c) => c.prop));
    const insertExprs = cols.map((c) => {
      const d = spec.insertDefaults?.[c.prop];
      return d !== undefined ? `coalesce(${fromU(c)}, ${d})` : fromU(c);
    });
    for (const c of cols) {
      if (missing.has(c.prop) && spec.insertDefaults?.[c.prop] === undefined) {
        throw new LedgerWriteError(`${table}.${c.name}: required`);
      }
    }
    const conflictTarget = [orgCol, ...keyCols].map((c) => ident(c.name)).join(', ');
    let onConflict: string;
    if (spec.onConflict === 'nothing') {
      onConflict = `on conflict (${conflictTarget}) do nothing`;
    } else {
      const sets = cols
        .filter((c) => !keySet.has(c.prop) && !missing.has(c.prop) && modeOf(c) !== 'keep')
        .map((c) =>
          modeOf(c) === 'coalesce'
            ? `${ident(c.name)} = coalesce(excluded.${ident(c.name)}, ${t}.${ident(c.name)})`
            : `${ident(c.name)} = excluded.${ident(c.name)}`,
        );
      const g = spec.guard ? allCols.find((c) => c.prop === spec.guard)! : undefined;
      const where = g
        ? ` where excluded.${ident(g.name)} is null or ${t}.${ident(g.name)} is null or excluded.${ident(g.name)} >= ${t}.${ident(g.name)}`
        : '';
      onConflict = sets.length
        ? `on conflict (${conflictTarget}) do update set ${sets.join(', ')}${where}`
        : `on conflict (${conflictTarget}) do nothing`;
    }
    const head = `insert into ${t} (${[orgCol, ...cols].map((c) => ident(c.name)).join(', ')}) select `;
    const select = `, ${insertExprs.join(', ')} from `;
    const end = ` where true ${onConflict} returning ${keyCols.map((c) => ident(c.name)).join(', ')}`;
    for (const part of chunks(groupRows, spec.chunk)) {
      const query: SQL = sql.join([sql.raw(head), sql`${orgId}`, sql.raw(select), unnestFrom(part, cols), sql.raw(end)]);
      const res = await queryRows<Record<string, unknown>>(db, query);
      for (const r of res) written.add(keyCols.map((c) => String(r[c.name])).join('\u0001'));
    }
  }
  return written;
}
