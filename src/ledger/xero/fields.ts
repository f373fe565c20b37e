/**
 * zod building blocks for the fields of Xero's JSON bodies, as read by
 * parseXeroJson (./json.ts): long numbers arrive as marked strings, every
 * other number as a JS number.
 *
 * Each field is strict about its JSON type (a string where a number is
 * required is an error, and so is a number where a string is required) and
 * gives messages meant for an operator: `required`, `not a date: "…"`,
 * `expected a number, got string`. Optional fields read `null` as absent.
 *
 * Speed matters (an import may hold half a million line items), and zod
 * transforms are slow, so most fields only check: numbers come out raw
 * (`XeroNumber`) and are turned into exact canonical decimal strings with
 * `decimalOf()`; strings come out as they are. Dates and timestamps, which
 * are few, are converted by the schema ('YYYY-MM-DD' and Date).
 */
import { z } from 'zod';
import { canonical } from '../../domain/money.js';
import { parseXeroDate, parseXeroTimestamp } from './dates.js';
import { isMarkedNumber, jsonTypeOf, numberText } from './json.js';

/** A JSON number as read by parseXeroJson: a JS number, or a marked string for long literals. */
export type XeroNumber = number | string;

type Ctx = z.RefinementCtx;

function fail(ctx: Ctx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER as never;
}

function absent(v: unknown): v is null | undefined {
  return v === undefined || v === null;
}

function quote(v: string): string {
  const shown = v.length > 40 ? `${v.slice(0, 40)}…` : v;
  return JSON.stringify(shown);
}

const got = (v: unknown) => (v === undefined ? 'required' : `got ${jsonTypeOf(v)}`);

function isString(v: unknown): v is string {
  return typeof v === 'string' && v.charCodeAt(0) !== 0;
}

function isNumber(v: unknown): v is XeroNumber {
  return (typeof v === 'number' && Number.isFinite(v)) || isMarkedNumber(v);
}

/** A required string ('' allowed). */
export const str = z.custom<string>(isString, {
  error: (iss) => (iss.input === undefined ? 'required' : `expected a string, ${got(iss.input)}`),
});
/** An optional string. */
export const optStr = str.nullish();

/** A required, non-empty identifier (Xero GUIDs). */
export const id = z.custom<string>((v) => isString(v) && v !== '', {
  error: (iss) =>
    iss.input === undefined || iss.input === null || iss.input === '' ? 'required' : `expected a string, ${got(iss.input)}`,
});

/**
 * Whether decimalOf can write a number out: a long literal with an exponent beyond any amount ('1234567890123456e-1100')
 * is refused by canonical() (money.ts); the check names the field rather than failing the page.
 */
function isAmount(v: XeroNumber): boolean {
  if (typeof v === 'number' || !/[eE]/.test(v)) return true;
  try {
    canonical(v.slice(1));
    return true;
  } catch {
    return false;
  }
}

/** A required JSON number (convert with decimalOf). */
export const decimal = z.custom<XeroNumber>((v) => isNumber(v) && isAmount(v), {
  error: (iss) =>
    iss.input === undefined ? 'required' : isNumber(iss.input) ? `not an amount: ${quote(numberText(iss.input)!)} (beyond 10^1000)` : `expected a number, ${got(iss.input)}`,
});
export const optDecimal = decimal.nullish();

export const int = z.custom<number>((v) => typeof v === 'number' && Number.isSafeInteger(v), {
  error: (iss) =>
    iss.input === undefined
      ? 'required'
      : isNumber(iss.input)
        ? `expected an integer, got ${numberText(iss.input)}`
        : `expected an integer, ${got(iss.input)}`,
});
export const optInt = int.nullish();

export const bool = z.custom<boolean>((v) => typeof v === 'boolean', {
  error: (iss) => (iss.input === undefined ? 'required' : `expected true or false, ${got(iss.input)}`),
});
export const optBool = bool.nullish();

function readDate(v: unknown, ctx: Ctx): string {
  if (!isString(v)) return fail(ctx, `not a date (got ${jsonTypeOf(v)})`);
  const d = parseXeroDate(v);
  if (d === null) return fail(ctx, `not a date: ${quote(v)}`);
  return d;
}

function readTimestamp(v: unknown, ctx: Ctx): Date {
  if (!isString(v)) return fail(ctx, `not a timestamp (got ${jsonTypeOf(v)})`);
  const d = parseXeroTimestamp(v);
  if (d === null) return fail(ctx, `not a timestamp: ${quote(v)}`);
  return d;
}

/** A calendar date, as 'YYYY-MM-DD' (see ./dates.ts). */
export const date = z.any().transform((v: unknown, ctx): string => (absent(v) ? fail(ctx, 'required') : readDate(v, ctx)));
// .optional(): zod 4 refuses an absent key whose schema may not output undefined.
export const optDate = z
  .any()
  .transform((v: unknown, ctx): string | undefined => (absent(v) ? undefined : readDate(v, ctx)))
  .optional();
export const optTimestamp = z
  .any()
  .transform((v: unknown, ctx): Date | undefined => (absent(v) ? undefined : readTimestamp(v, ctx)))
  .optional();

/** One of `values`, exactly. */
export function oneOf<const T extends readonly string[]>(values: T) {
  return z.custom<T[number]>((v) => (values as readonly unknown[]).includes(v), {
    error: (iss) =>
      iss.input === undefined || iss.input === null
        ? 'required'
        : isString(iss.input)
          ? `${quote(iss.input)} is not one of ${values.join(', ')}`
          : `expected one of ${values.join(', ')}, ${got(iss.input)}`,
  });
}

/** A report cell's amount: a JSON number or a decimal string ('1234.50', '1,234.50', '(12.00)'). */
export const reportAmount = z.any().transform((v: unknown, ctx): string => {
  if (absent(v) || v === '') return fail(ctx, 'required');
  const text = numberText(v);
  if (text !== undefined) return canonical(text);
  if (typeof v !== 'string') return fail(ctx, `expected an amount, got ${jsonTypeOf(v)}`);
  let s = v.trim();
  let negative = false;
  const paren = /^\((.*)\)$/.exec(s);
  if (paren) {
    negative = true;
    s = paren[1]!.trim();
  }
  if (!/^-?(\d+|\d{1,3}(,\d{3})+)(\.\d+)?$/.test(s)) return fail(ctx, `not an amount: ${quote(v)}`);
  const c = canonical(s.replaceAll(',', ''));
  return negative ? canonical(`-${c}`) : c;
});

/** A required object of the given shape. */
export function object<T extends z.core.$ZodLooseShape>(shape: T) {
  return z.object(shape, {
    error: (iss) => (iss.input === undefined || iss.input === null ? 'required' : `expected an object, ${got(iss.input)}`),
  });
}

/** An optional object schema (built with `object`); null reads as absent. */
export function optObject<T extends z.ZodType>(schema: T) {
  return schema.nullish();
}

/** A required array. */
export function array<T extends z.ZodType>(item: T) {
  return z.array(item, {
    error: (iss) => (iss.input === undefined || iss.input === null ? 'required' : `expected an array, ${got(iss.input)}`),
  });
}

/** An optional array: absent or null reads as "not carried", [] stays empty. */
export function optArray<T extends z.ZodType>(item: T) {
  return array(item).nullish();
}

// ---------------------------------------------------------------------------
// Conversions of checked values
// ---------------------------------------------------------------------------

const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * The exact canonical decimal string of a checked JSON number. A JS number
 * here came from a literal of at most 15 significant digits, so its shortest
 * form (String) is that literal's value.
 */
export function decimalOf(v: XeroNumber): string {
  if (typeof v === 'number') {
    const s = String(v);
    // String() never writes trailing fraction zeros; it may write exponents.
    return PLAIN_DECIMAL.test(s) ? s : canonical(s);
  }
  return canonical(v.slice(1));
}

export function optDecimalOf(v: XeroNumber | null | undefined): string | null {
  return v === null || v === undefined ? null : decimalOf(v);
}

/** A checked optional string, with '' read as absent. */
export function textOf(v: string | null | undefined): string | null {
  return v === null || v === undefined || v === '' ? null : v;
}
