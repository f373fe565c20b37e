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
 *
 * With a `width` (the CLI gives the terminal's, 80 when it is not a
 * terminal), every line fits it: a table too wide keeps its first column
 * and the columns the command names as read first (`first`: a forecast
 * week's closing cash and its band), then its money and its names and
 * numbers, and leaves out the columns that say least (other ids, slugs,
 * counts of nested lists, the fields of maps the schema types as records)
 * with a note naming them; long text cells are wrapped within their column, long values and
 * alerts are wrapped under themselves. Money and numbers are never cut.
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

/**
 * The field names a response schema types as Money (decimal strings) and as numbers, the fields of each of its
 * objects in their order, and the fields that are maps (records: the keys under them are data, an account's id,
 * not field names).
 */
export function numericFields(schema: z.ZodType): { money: Set<string>; numbers: Set<string>; shapes: string[][]; maps: Set<string> } {
  const money = new Set<string>();
  const numbers = new Set<string>();
  const maps = new Set<string>();
  const shapes: string[][] = [];
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
        if (key) maps.add(key);
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
        shapes.push(Object.keys(def.shape ?? {}));
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
  return { money, numbers, shapes, maps };
}

export interface TableOptions {
  /** Fields that are money (right-aligned, decimal points lined up). */
  money?: ReadonlySet<string>;
  /** Fields that are numbers (right-aligned). */
  numbers?: ReadonlySet<string>;
  /** Columns every line must fit in (a terminal's width); none: lines are as long as their content. */
  width?: number;
  /** The fields of each object of the schema, in order: a table's columns follow its rows' object (an answer stored as JSON may list them otherwise). */
  shapes?: readonly (readonly string[])[];
  /** Fields that are maps: a column under one (categories.accounts.<key>.inflow) says least to a person. */
  maps?: ReadonlySet<string>;
  /**
   * Columns (dotted names) that say most for this answer, each with its header: kept first when a table must
   * leave columns out (a forecast week's closing cash and its band: `bands.closing.p10` headed `closing P10`).
   */
  first?: Readonly<Record<string, string>>;
}

/** A text column may be narrowed (its cells wrapped) down to this, or to its header when longer. */
const TEXT_MIN = 10;
const TOKEN_MAX = 30;

/** Words of `text` in lines of at most `width` characters (a longer word is cut). */
function wrap(text: string, width: number): string[] {
  if (text.length <= width) return [text];
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/ +/)) {
    let w = word;
    while (w.length > width) {
      if (line) lines.push(line);
      lines.push(w.slice(0, width));
      w = w.slice(width);
      line = '';
    }
    if (!line) line = w;
    else if (line.length + 1 + w.length <= width) line += ` ${w}`;
    else {
      lines.push(line);
      line = w;
    }
  }
  if (line || !lines.length) lines.push(line);
  return lines;
}

interface Col {
  name: string;
  /** Its header, when not its name. */
  label?: string;
  cells: string[];
  right: boolean;
  money: boolean;
}

/**
 * How much a column says, 0 first: the row's first column (its id), then its first amount and its names or
 * numbers (invoiceNumber, contactName), then other amounts and numbers, statuses, dates and kinds, then other
 * text, and last what says least to a person (LEAST): other ids, slugs, and counts of nested lists.
 */
const LEAST = 4;
function priority(c: Col, index: number, firstMoney: number, hints: Pick<TableOptions, 'maps' | 'first'>): number {
  if (index === 0 || (hints.first && Object.hasOwn(hints.first, c.name))) return 0;
  // A column of a map (a forecast week's categories.accounts.<account id>.inflow): a segment that is no field name, or one under a map.
  const segments = c.name.split('.');
  if (segments.some((s, i) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(s) || (i < segments.length - 1 && hints.maps?.has(s)))) return LEAST;
  if (index === firstMoney || /(name|number)$/i.test(c.name)) return 1;
  if (c.right || /status$|^currency$|^kind$|^severity$|^text$|^message$|date$|^month$|^week/i.test(c.name)) return 2;
  if (/(id|ids|slug)$/i.test(c.name) || c.cells.every((x) => x === '' || /^\[\d+\]$/.test(x))) return LEAST;
  return 3;
}

/** Names of left-out columns, those of one nested object as one (`bands.… (10)`). */
function hiddenNames(names: string[]): string {
  const groups = new Map<string, number>();
  for (const n of names) {
    const head = n.includes('.') ? `${n.split('.')[0]}.…` : n;
    groups.set(head, (groups.get(head) ?? 0) + 1);
  }
  return [...groups].map(([n, count]) => (count > 1 ? `${n} (${count})` : names.find((x) => x.startsWith(n.replace('…', ''))) ?? n)).join(', ');
}

/** The columns that fit in `width` and the width of each (text narrowed last), and those left out. */
function fit(cols: Col[], width: number, hints: Pick<TableOptions, 'maps' | 'first'> = {}): { shown: Col[]; widths: number[]; hidden: string[] } {
  const natural = (c: Col) => Math.max((c.label ?? c.name).length, ...c.cells.map((x) => x.length));
  // Text with spaces may wrap; single words up to TOKEN_MAX (an instant, a code, an id) are not cut.
  const least = (c: Col, i: number) =>
    i === 0 || c.right || (natural(c) <= TOKEN_MAX && !c.cells.some((x) => x.includes(' ')))
      ? natural(c)
      : Math.min(natural(c), Math.max(TEXT_MIN, (c.label ?? c.name).length));
  const total = (ws: number[]) => ws.reduce((a, b) => a + b, 0) + 2 * Math.max(0, ws.length - 1);
  const firstMoney = cols.findIndex((c) => c.money);
  const kept = cols.map((c, i) => ({ c, i, p: priority(c, i, firstMoney, hints) }));
  // A table too wide leaves out what says least at once, rather than narrow what says more; then the
  // rest (of two alike, the wider first, so that more columns stay; then the later) until the narrowest
  // form of what is left fits.
  const hidden = new Set<number>(total(cols.map(natural)) > width ? kept.filter((k) => k.p === LEAST).map((k) => k.i) : []);
  const order = [...kept]
    .filter((k) => k.i > 0 && !hidden.has(k.i))
    .sort((a, b) => b.p - a.p || least(b.c, b.i) - least(a.c, a.i) || b.i - a.i);
  const narrowest = (without: number) => total(kept.filter((x) => !hidden.has(x.i) && x.i !== without).map((x) => least(x.c, x.i)));
  while (narrowest(-1) > width) {
    const left = order.filter((k) => !hidden.has(k.i));
    if (!left.length) break;
    // When leaving out one column of those that say least is enough, that one (rather than a wider or an earlier one).
    hidden.add((left.find((k) => k.p === left[0]!.p && narrowest(k.i) <= width) ?? left[0]!).i);
  }
  const shown = kept.filter((k) => !hidden.has(k.i));
  const widths = shown.map((k) => natural(k.c));
  // Then narrow the widest text column, one character at a time, until the table fits.
  while (total(widths) > width) {
    let widest = -1;
    shown.forEach((k, j) => {
      if (widths[j]! > least(k.c, k.i) && (widest < 0 || widths[j]! > widths[widest]!)) widest = j;
    });
    if (widest < 0) break; // the first column alone is wider: nothing more to do
    widths[widest]!--;
  }
  return { shown: shown.map((k) => k.c), widths, hidden: cols.filter((_, i) => hidden.has(i)).map((c) => c.name) };
}

/** Midnight-UTC instants (the API's dates) show as the date. */
const cell = (v: Json): string => {
  if (v === null) return '';
  if (Array.isArray(v)) return v.every(isScalar) ? v.map((x) => cell(x)).join(', ') : `[${v.length}]`;
  if (isObj(v)) return Object.keys(v).length ? '{…}' : '';
  if (typeof v === 'string') return v.replace(/^(\d{4}-\d{2}-\d{2})T00:00:00(\.000)?Z$/, '$1');
  return String(v);
};

export const fractionDigits = (s: string) => (s.includes('.') ? s.length - s.indexOf('.') - 1 : 0);
/** Pads a decimal string's fraction with zeros to `digits` (same value, aligned decimal point). */
export const padFraction = (s: string, digits: number) => {
  if (!DECIMAL.test(s) || digits === 0) return s;
  const have = fractionDigits(s);
  return `${s}${have === 0 ? '.' : ''}${'0'.repeat(digits - have)}`;
};

/** The schema field a column is: a nested column (bands.closing.p10) is the field its last name is. */
const fieldOf = (key: string) => key.slice(key.lastIndexOf('.') + 1);

class Renderer {
  constructor(private readonly opts: TableOptions) {}

  private isMoney(key: string, values: string[]): boolean {
    if (this.opts.money) return this.opts.money.has(fieldOf(key));
    const present = values.filter((v) => v !== '');
    return present.length > 0 && present.every((v) => DECIMAL.test(v)) && !/id$|code$|number$/i.test(key);
  }
  private isNumber(key: string, raw: Json[]): boolean {
    return (this.opts.numbers?.has(fieldOf(key)) ?? false) || (raw.length > 0 && raw.every((v) => v === null || typeof v === 'number'));
  }

  /** Formats a column: money padded to the column's fraction digits and right-aligned, numbers right-aligned. */
  private column(key: string, raw: Json[]): { cells: string[]; right: boolean; money: boolean } {
    const cells = raw.map(cell);
    if (this.isMoney(key, cells)) {
      // Money with any fraction shows at least two digits (cents).
      const most = Math.max(0, ...cells.filter((c) => DECIMAL.test(c)).map(fractionDigits));
      const digits = most === 0 ? 0 : Math.max(2, most);
      return { cells: cells.map((c) => padFraction(c, digits)), right: true, money: true };
    }
    return { cells, right: this.isNumber(key, raw), money: false };
  }

  grid(input: Obj[], keyColumn?: { name: string; keys: string[] }): string[] {
    // Objects inside a row become dotted columns (cashToday.amount); arrays of objects show their length.
    const rows = input.map((r) => flatten(r));
    let keys: string[] = [];
    for (const r of rows) for (const [k, v] of Object.entries(r)) if (!keys.includes(k) && v !== undefined) keys.push(k);
    // In the order of the schema's object that has every field of the rows (a stable sort: nested fields stay together).
    const heads = keys.map((k) => k.split('.')[0]!);
    const shape = this.opts.shapes?.find((s) => heads.every((h) => s.includes(h)));
    if (shape) keys = [...keys].sort((a, b) => shape.indexOf(a.split('.')[0]!) - shape.indexOf(b.split('.')[0]!));
    // Columns that are empty in every row carry nothing for a person.
    const present = keys.filter((k) => rows.some((r) => r[k] !== null && r[k] !== undefined && r[k] !== ''));
    const label = (k: string) => (this.opts.first && Object.hasOwn(this.opts.first, k) && this.opts.first[k] !== k ? { label: this.opts.first[k]! } : {});
    const all: Col[] = present.map((k) => ({ name: k, ...label(k), ...this.column(k, rows.map((r) => r[k] ?? null)) }));
    if (keyColumn) all.unshift({ name: keyColumn.name, cells: keyColumn.keys, right: false, money: false });
    const { shown: cols, widths, hidden } = fit(all, this.opts.width ?? Infinity, this.opts);
    const line = (parts: string[]) =>
      parts
        .map((p, i) => (cols[i]!.right ? p.padStart(widths[i]!) : p.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd();
    // A row whose text is wider than its column takes as many lines as its longest wrapped cell.
    const row = (parts: string[]) => {
      const wrapped = parts.map((p, i) => (cols[i]!.right ? [p] : wrap(p, widths[i]!)));
      const height = Math.max(...wrapped.map((w) => w.length));
      return Array.from({ length: height }, (_, l) => line(wrapped.map((w) => w[l] ?? '')));
    };
    const out = [line(cols.map((c) => c.label ?? c.name)), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.flatMap((_, r) => row(cols.map((c) => c.cells[r]!)))];
    if (hidden.length) {
      const note = `(not shown, to fit ${this.opts.width} columns: ${hiddenNames(hidden)}; --format json has every field)`;
      out.push('', ...wrap(note, this.opts.width!));
    }
    return out;
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
    // Long text wraps under itself (a narrative, a note), beside its key while there is room for it.
    const room = Math.max(TEXT_MIN * 2, (this.opts.width ?? Infinity) - keyWidth - 2);
    return formatted.flatMap((f) => {
      const [first, ...more] = f.right ? [f.text.padStart(valueWidth)] : wrap(f.text, room);
      return [`${f.k.padEnd(keyWidth)}  ${first}`.trimEnd(), ...more.map((m) => `${' '.repeat(keyWidth + 2)}${m}`)];
    });
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
  const alerts = alertLines(body).flatMap((a) => {
    const [first, ...more] = wrap(a, opts.width ?? Infinity);
    return [first!, ...wrap(more.join(' '), (opts.width ?? Infinity) - 2).filter((m) => m).map((m) => `  ${m}`)];
  });
  const lines = [...alerts, ...(alerts.length ? [''] : []), ...r.section(rest, undefined)];
  while (lines[0] === '') lines.shift();
  return `${lines.join('\n')}\n`;
}
