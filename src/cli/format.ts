/**
 * `--format table`: any response body of the agent API for people. Arrays of
 * objects become tables with aligned columns; plain fields become aligned
 * `key  value` lines; nested objects become titled sections; a map of
 * same-shaped objects (totals.byStatus) becomes a table keyed by its keys.
 * Money and numbers are right-aligned, and money in a column is padded to
 * the column's fraction digits (at least two when any) so the decimal points
 * line up (the value is unchanged: '100.5' shows as '100.50', '2000' as
 * '2000.00' beside '300.25'). Which fields are
 * money comes from the response's zod schema (fields typed Money); with no
 * schema, a column whose every value is a decimal string counts as money.
 * Alerts come first, so a person sees them.
 */
import type { z } from 'zod';
import { Money } from '../schemas/common.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const DECIMAL = /^-?\d+(\.\d+)?$/;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: unknown) => v === null || typeof v !== 'object';

interface ZodInternals {
  _zod: { def: { type: string; innerType?: unknown; element?: unknown; shape?: Record<string, unknown>; valueType?: unknown; options?: unknown[]; checks?: { _zod: { def: { format?: string; pattern?: RegExp } } }[]; getter?: () => unknown } };
}
const patternOf = (s: ZodInternals) => s._zod.def.checks?.find((c) => c._zod.def.format === 'regex')?._zod.def.pattern?.source;
const MONEY_PATTERN = patternOf(Money as unknown as ZodInternals);

/** The field names a response schema types as Money (decimal strings) and as numbers. */
export function numericFields(schema: z.ZodType): { money: Set<string>; numbers: Set<string> } {
  const money = new Set<string>();
  const numbers = new Set<string>();
  const seen = new Set<unknown>();
  const walk = (node: unknown, key: string | undefined) => {
    if (!node) return;
    const s = node as ZodInternals;
    const def = s._zod.def;
    switch (def.type) {
      case 'optional':
      case 'nullable':
      case 'default':
      case 'readonly':
        return walk(def.innerType, key);
      case 'array':
        return walk(def.element, key);
      case 'record':
        return walk(def.valueType, key);
      case 'union':
        return def.options?.forEach((o) => walk(o, key));
      case 'lazy':
        if (seen.has(node)) return; // recursive schemas
        seen.add(node);
        return walk(def.getter?.(), key);
      case 'object':
        if (seen.has(node)) return;
        seen.add(node);
        for (const [k, v] of Object.entries(def.shape ?? {})) walk(v, k);
        return;
      case 'string':
        if (key && MONEY_PATTERN && patternOf(s) === MONEY_PATTERN) money.add(key);
        return;
      case 'number':
      case 'int':
        if (key) numbers.add(key);
        return;
    }
  };
  walk(schema, undefined);
  return { money, numbers };
}

export interface TableOptions {
  /** Fields that are money (right-aligned, decimal points lined up). */
  money?: ReadonlySet<string>;
  /** Fields that are numbers (right-aligned). */
  numbers?: ReadonlySet<string>;
}

/** Midnight-UTC instants (the API's dates) show as the date. */
const cell = (v: Json): string => {
  if (v === null) return '';
  if (Array.isArray(v)) return v.every(isScalar) ? v.map((x) => cell(x)).join(', ') : `[${v.length}]`;
  if (isObj(v)) return Object.keys(v).length ? '{…}' : '';
  if (typeof v === 'string') return v.replace(/^(\d{4}-\d{2}-\d{2})T00:00:00(\.000)?Z$/, '$1');
  return String(v);
};

const fractionDigits = (s: string) => (s.includes('.') ? s.length - s.indexOf('.') - 1 : 0);
/** Pads a decimal string's fraction with zeros to `digits` (same value, aligned decimal point). */
const padFraction = (s: string, digits: number) => {
  if (!DECIMAL.test(s) || digits === 0) return s;
  const have = fractionDigits(s);
  return `${s}${have === 0 ? '.' : ''}${'0'.repeat(digits - have)}`;
};

class Renderer {
  constructor(private readonly opts: TableOptions) {}

  private isMoney(key: string, values: string[]): boolean {
    if (this.opts.money) return this.opts.money.has(key);
    const present = values.filter((v) => v !== '');
    return present.length > 0 && present.every((v) => DECIMAL.test(v)) && !/id$|code$|number$/i.test(key);
  }
  private isNumber(key: string, raw: Json[]): boolean {
    return (this.opts.numbers?.has(key) ?? false) || (raw.length > 0 && raw.every((v) => v === null || typeof v === 'number'));
  }

  /** Formats a column: money padded to the column's fraction digits and right-aligned, numbers right-aligned. */
  private column(key: string, raw: Json[]): { cells: string[]; right: boolean } {
    const cells = raw.map(cell);
    if (this.isMoney(key, cells)) {
      // Money with any fraction shows at least two digits (cents).
      const most = Math.max(0, ...cells.filter((c) => DECIMAL.test(c)).map(fractionDigits));
      const digits = most === 0 ? 0 : Math.max(2, most);
      return { cells: cells.map((c) => padFraction(c, digits)), right: true };
    }
    return { cells, right: this.isNumber(key, raw) };
  }

  grid(input: Obj[], keyColumn?: { name: string; keys: string[] }): string[] {
    // Objects inside a row become dotted columns (cashToday.amount); arrays of objects show their length.
    const rows = input.map((r) => flatten(r));
    const keys: string[] = [];
    for (const r of rows) for (const [k, v] of Object.entries(r)) if (!keys.includes(k) && v !== undefined) keys.push(k);
    // Columns that are empty in every row carry nothing for a person.
    const shown = keys.filter((k) => rows.some((r) => r[k] !== null && r[k] !== undefined && r[k] !== ''));
    const cols = shown.map((k) => ({ name: k, ...this.column(k, rows.map((r) => r[k] ?? null)) }));
    if (keyColumn) cols.unshift({ name: keyColumn.name, cells: keyColumn.keys, right: false });
    const widths = cols.map((c) => Math.max(c.name.length, ...c.cells.map((x) => x.length)));
    const line = (parts: string[]) =>
      parts
        .map((p, i) => (cols[i]!.right ? p.padStart(widths[i]!) : p.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd();
    return [line(cols.map((c) => c.name)), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((_, r) => line(cols.map((c) => c.cells[r]!)))];
  }

  /** Plain fields as `key  value`, money right-aligned among themselves. */
  private fields(entries: [string, Json][]): string[] {
    if (!entries.length) return [];
    const keyWidth = Math.max(...entries.map(([k]) => k.length));
    const formatted = entries.map(([k, v]) => {
      const c = this.column(k, [v]);
      return { k, text: c.cells[0]!, right: c.right };
    });
    const valueWidth = Math.max(0, ...formatted.filter((f) => f.right).map((f) => f.text.length));
    return formatted.map((f) => `${f.k.padEnd(keyWidth)}  ${f.right ? f.text.padStart(valueWidth) : f.text}`.trimEnd());
  }

  section(obj: Obj, title: string | undefined): string[] {
    const out: string[] = [];
    if (title) out.push(title);
    const plain: [string, Json][] = [];
    const nested: string[][] = [];
    for (const [k, v] of Object.entries(obj)) {
      if (v === undefined) continue;
      const name = title ? `${title}.${k}` : k;
      if (isScalar(v) || (Array.isArray(v) && v.every(isScalar) && v.length > 0)) plain.push([k, v]);
      else if (Array.isArray(v)) nested.push(v.length ? [`${name} (${v.length})`, ...this.grid(v.filter(isObj))] : [`${name}: none`]);
      else if (isObj(v) && isTableMap(v)) nested.push([name, ...this.grid(Object.values(v) as Obj[], { name: 'key', keys: Object.keys(v) })]);
      else if (isObj(v)) nested.push(this.section(v, name));
    }
    out.push(...this.fields(plain));
    for (const n of nested) out.push('', ...n);
    return out;
  }
}

/** An object's nested objects as dotted keys: {a: {b: 1}} -> {'a.b': 1}. */
function flatten(obj: Obj, prefix = '', out: Obj = {}): Obj {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isObj(v) && Object.keys(v).length) flatten(v, key, out);
    else out[key] = v;
  }
  return out;
}

/** A non-empty object whose values are all objects of the same plain fields (e.g. totals.byStatus). */
function isTableMap(v: Obj): boolean {
  const values = Object.values(v);
  if (!values.length || !values.every((x) => isObj(x) && Object.values(x).every(isScalar))) return false;
  const shape = Object.keys(values[0] as Obj).join();
  return values.every((x) => Object.keys(x as Obj).join() === shape);
}

function alertLines(body: Obj): string[] {
  const out: string[] = [];
  for (const [k, label] of [
    ['ledgerAlert', 'LEDGER ALERT'],
    ['billingAlert', 'BILLING ALERT'],
  ] as const) {
    const a = body[k];
    if (!isObj(a)) continue;
    const kind = typeof a.kind === 'string' ? ` ${a.kind}` : '';
    const sync = 'lastSuccessfulSync' in a ? ` (last successful sync: ${a.lastSuccessfulSync ?? 'never'})` : '';
    const cta = isObj(a.cta) ? ` -> ${String(a.cta.label)}: ${String(a.cta.url)}` : '';
    out.push(`${label} [${String(a.severity)}]${kind}: ${String(a.message)}${sync}${cta}`);
  }
  return out;
}

/** `warning: <parameter>=<value>: <message>` for each entry of a body's `warnings`. */
export function warningLines(body: unknown): string[] {
  if (!isObj(body) || !Array.isArray(body.warnings)) return [];
  return body.warnings.filter(isObj).map((w) => `warning: ${String(w.parameter)}=${String(w.value)}: ${String(w.message)}`);
}

/** Renders a response body as text tables (see the module comment). */
export function renderTable(body: unknown, opts: TableOptions = {}): string {
  const r = new Renderer(opts);
  if (Array.isArray(body)) return `${r.grid(body.filter(isObj)).join('\n')}\n`;
  if (!isObj(body)) return `${cell(body as Json)}\n`;
  const { ledgerAlert: _l, billingAlert: _b, warnings: _w, ...rest } = body;
  const alerts = alertLines(body);
  const lines = [...alerts, ...(alerts.length ? [''] : []), ...r.section(rest, undefined)];
  while (lines[0] === '') lines.shift();
  return `${lines.join('\n')}\n`;
}
