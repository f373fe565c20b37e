/**
 * Reading Xero's JSON without losing money digits.
 *
 * `JSON.parse` turns every number into a double, which is exact only up to
 * 15 significant digits (a 20-digit amount would come back rounded), and
 * Node 20 has no access to a number's source text in a reviver. So before
 * parsing, a scanner marks every number literal with more than 15 digits:
 * it becomes a JSON string holding NUMBER_MARK followed by the literal as
 * written. Shorter numbers stay JSON numbers: a double read from a literal of
 * at most 15 significant digits prints back (shortest round trip) as the same
 * decimal, so `canonical(new D(n))` is exact for them.
 *
 * Readers (the zod fields in ./fields.ts) accept both forms where a number is
 * required, and reject marked strings where a string is required, so a JSON
 * string is never mistaken for a number or the other way round.
 */

export class JsonSyntaxError extends Error {}

const QUOTE = 34;
const BACKSLASH = 92;
const MINUS = 45;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const LOWER_E = 101;
const UPPER_E = 69;
const PLUS = 43;

/** Parses JSON text; long number literals become marked strings (see above). */
export function parseXeroJson(text: string): unknown {
  const marked = markLongNumbers(text);
  try {
    return JSON.parse(marked);
  } catch (err) {
    throw new JsonSyntaxError((err as Error).message);
  }
}

/**
 * Rewrites number literals of more than 15 digits as marked strings. Works on
 * valid JSON; on invalid JSON it may produce anything that JSON.parse then
 * rejects. A string that itself starts with an escaped NUL could be taken for
 * a marked number, so such strings are refused.
 */
export function markLongNumbers(text: string): string {
  const n = text.length;
  let parts: string[] | null = null;
  let last = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      if (text.charCodeAt(i + 1) === BACKSLASH && text.startsWith('u0000', i + 2)) {
        throw new JsonSyntaxError(`a string starting with \\u0000 at position ${i} is not supported`);
      }
      let j = text.indexOf('"', i + 1);
      for (;;) {
        if (j < 0) throw new JsonSyntaxError(`unterminated string at position ${i}`);
        let k = j - 1;
        let backslashes = 0;
        while (text.charCodeAt(k) === BACKSLASH) {
          backslashes++;
          k--;
        }
        if ((backslashes & 1) === 0) break;
        j = text.indexOf('"', j + 1);
      }
      i = j + 1;
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      const start = i;
      let digits = c === MINUS ? 0 : 1;
      i++;
      for (; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d >= ZERO && d <= NINE) digits++;
        else if (d !== DOT) break;
      }
      const e = text.charCodeAt(i);
      if (e === LOWER_E || e === UPPER_E) {
        i++;
        const sign = text.charCodeAt(i);
        if (sign === PLUS || sign === MINUS) i++;
        while (i < n) {
          const d = text.charCodeAt(i);
          if (d >= ZERO && d <= NINE) i++;
          else break;
        }
      }
      if (digits > 15) {
        (parts ??= []).push(text.slice(last, start), '"\\u0000', text.slice(start, i), '"');
        last = i;
      }
    } else {
      i++;
    }
  }
  if (!parts) return text;
  parts.push(text.slice(last));
  return parts.join('');
}

export function isMarkedNumber(v: unknown): v is string {
  return typeof v === 'string' && v.charCodeAt(0) === 0;
}

/**
 * The decimal text of a JSON number as read by parseXeroJson (or of a plain
 * JS number), or undefined when `v` is not a number.
 */
export function numberText(v: unknown): string | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : undefined;
  if (isMarkedNumber(v)) return v.slice(1);
  return undefined;
}

/** 'string', 'number', 'boolean', 'null', 'array', 'object' — for error messages. */
export function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (isMarkedNumber(v)) return 'number';
  return typeof v;
}
