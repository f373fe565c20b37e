/**
 * The query parameters' one contract: each parameter is a zod schema that
 * both documents it (the OpenAPI document: integers are integers with their
 * bounds, booleans booleans, enums enums, dates `format: date`) and parses
 * it (the query string's text into the typed value the handler reads with
 * `c.req.valid('query')`). The CLI's flags and the MCP tools' inputs are
 * derived from the same schemas (src/schemas/endpoints.ts), and check a
 * value with the same parser before any request.
 *
 * A value that does not parse is a zod issue whose path names the
 * parameter; the app's validation hook turns it into the one 400
 * bad_request body `{error, message: "<parameter>: <why>", parameter}`.
 *
 * Rules shared by every parameter: surrounding spaces are ignored; a value
 * that is not one of the parameter's type is a 400, and an empty one
 * (`weeks=`) is not a number, a boolean, a date or one of an enum's values
 * (free text such as contactId or cursor treats empty as absent); a
 * parameter given twice where one value is expected is a 400.
 */
import { z } from '@hono/zod-openapi';
import { isCalendarDate } from '../domain/calendar.js';
import { type IgnoredValue, parseStatusList } from '../domain/list-params.js';

interface Doc {
  name: string;
  description: string;
  example?: string | number | boolean;
}

/** The text of a parameter: trimmed; undefined when absent. */
const text = () =>
  z
    .string()
    .optional()
    .transform((v) => v?.trim());

const param = (d: Doc) => ({ param: { name: d.name, in: 'query' as const }, description: d.description, ...(d.example !== undefined ? { example: d.example } : {}) });

/**
 * A whole number from `min` to `max`. With `cap`, larger values are not an
 * error but are capped there (the list's `limit`), and the document says so
 * in the description, not as a maximum.
 */
export function intParam(d: Doc & { min: number; max?: number; cap?: number; default: number }) {
  const range = d.max !== undefined ? `from ${d.min} to ${d.max}` : `of at least ${d.min}`;
  const message = `must be a whole number ${range}`;
  return text()
    .superRefine((v, ctx) => {
      if (v === undefined) return;
      if (!/^\+?\d+$/.test(v)) return void ctx.addIssue({ code: 'custom', message });
      const n = Number(v);
      if (n < d.min || (d.max !== undefined && n > d.max)) ctx.addIssue({ code: 'custom', message });
    })
    .transform((v): number => {
      if (v === undefined) return d.default;
      // Any positive integer, however long, is capped (Number() of 25 digits is still above any cap).
      const n = Number(v);
      return d.cap !== undefined ? Math.min(n, d.cap) : n;
    })
    .openapi({ ...param(d), type: 'integer', minimum: d.min, ...(d.max !== undefined ? { maximum: d.max } : {}), default: d.default });
}

/** true or false (also 1 or 0, any case); absent is false. */
export function boolParam(d: Doc) {
  return text()
    .superRefine((v, ctx) => {
      if (v !== undefined && !['true', 'false', '1', '0'].includes(v.toLowerCase())) ctx.addIssue({ code: 'custom', message: 'must be true or false' });
    })
    .transform((v): boolean => v !== undefined && (v.toLowerCase() === 'true' || v === '1'))
    .openapi({ ...param(d), type: 'boolean', default: false });
}

/** A real calendar date, YYYY-MM-DD (2024-02-30 is a 400), optionally within a range. */
export function dateParam(d: Doc & { range?: { min: string; max: string } }) {
  return text()
    .superRefine((v, ctx) => {
      if (v === undefined) return;
      if (!isCalendarDate(v)) return void ctx.addIssue({ code: 'custom', message: 'must be a real date YYYY-MM-DD' });
      if (d.range && (v < d.range.min || v > d.range.max)) ctx.addIssue({ code: 'custom', message: `must be from ${d.range.min} to ${d.range.max}` });
    })
    .openapi({ ...param(d), type: 'string', format: 'date' });
}

/** One of `values` (any case); absent is the default. */
export function enumParam<const T extends readonly [string, ...string[]]>(d: Doc & { values: T; default: T[number] }) {
  return text()
    .superRefine((v, ctx) => {
      if (v !== undefined && !d.values.includes(v.toLowerCase())) ctx.addIssue({ code: 'custom', message: `must be one of ${d.values.join(', ')}` });
    })
    .transform((v): T[number] => (v === undefined ? d.default : (v.toLowerCase() as T[number])))
    .openapi({ ...param(d), type: 'string', enum: [...d.values], default: d.default });
}

/**
 * Free text (an id, a cursor). `nonEmpty`: present but empty (or only
 * spaces) is a 400 rather than "absent"; `maxLength` bounds it.
 */
export function textParam(d: Doc & { nonEmpty?: boolean; maxLength?: number }) {
  const message = d.maxLength !== undefined ? `must be 1 to ${d.maxLength} characters` : 'must not be empty';
  return z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      if (v === undefined) return;
      const t = v.trim();
      if ((d.nonEmpty && t === '') || (d.maxLength !== undefined && t.length > d.maxLength)) ctx.addIssue({ code: 'custom', message });
    })
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()))
    .openapi({ ...param(d), type: 'string', ...(d.maxLength !== undefined ? { maxLength: d.maxLength } : {}) });
}

/**
 * A status filter: comma-separated, OR semantics, any case, the parameter
 * may be repeated. Unknown values are not an error: they are dropped and
 * reported (`ignored`, which the API returns as warnings).
 */
export function statusParam(d: Doc & { values: readonly string[] }) {
  return z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v): { statuses: string[]; ignored: IgnoredValue[] } => parseStatusList(v === undefined ? [] : typeof v === 'string' ? [v] : v, d.values))
    .openapi({ ...param(d) });
}

/** A whole number from `min` to `max`, either sign (`-7`); absent is undefined. */
export function signedIntParam(d: Doc & { min: number; max: number }) {
  const message = `must be a whole number from ${d.min} to ${d.max}`;
  return text()
    .superRefine((v, ctx) => {
      if (v === undefined) return;
      if (!/^[+-]?\d+$/.test(v)) return void ctx.addIssue({ code: 'custom', message });
      const n = Number(v);
      if (n < d.min || n > d.max) ctx.addIssue({ code: 'custom', message });
    })
    .transform((v): number | undefined => (v === undefined ? undefined : Number(v) + 0))
    .openapi({ ...param(d), type: 'integer', minimum: d.min, maximum: d.max });
}

/** A number from `min` to `max` with at most `decimals` decimals (a percentage); absent is undefined. */
export function decimalParam(d: Doc & { min: number; max: number; decimals: number }) {
  const message = `must be a number from ${d.min} to ${d.max} with at most ${d.decimals} decimals`;
  const shape = new RegExp(`^\\+?\\d+(\\.\\d{1,${d.decimals}})?$`);
  return text()
    .superRefine((v, ctx) => {
      if (v === undefined) return;
      if (!shape.test(v)) return void ctx.addIssue({ code: 'custom', message });
      const n = Number(v);
      if (n < d.min || n > d.max) ctx.addIssue({ code: 'custom', message });
    })
    .transform((v): number | undefined => (v === undefined ? undefined : Number(v)))
    .openapi({ ...param(d), type: 'number', minimum: d.min, maximum: d.max });
}

/**
 * A list: the parameter repeated (`a=1&a=2`) or comma-separated (`a=1,2`),
 * or both; each value parsed by `item` (which names what is wrong with it),
 * at most `max` values, duplicates kept once. Absent is an empty list.
 */
export function listParam<T>(d: Doc & { max: number; item: (value: string) => { value: T } | { error: string }; itemDescription: string }) {
  return z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v, ctx): T[] => {
      const values = (v === undefined ? [] : typeof v === 'string' ? [v] : v)
        .flatMap((x) => x.split(','))
        .map((x) => x.trim())
        .filter((x) => x !== '');
      const unique = [...new Set(values)];
      if (unique.length > d.max) {
        ctx.addIssue({ code: 'custom', message: `at most ${d.max} values` });
        return z.NEVER;
      }
      const out: T[] = [];
      for (const x of unique) {
        const r = d.item(x);
        if ('error' in r) {
          ctx.addIssue({ code: 'custom', message: `'${x.length > 60 ? `${x.slice(0, 60)}...` : x}' ${r.error}` });
          return z.NEVER;
        }
        out.push(r.value);
      }
      return out;
    })
    .openapi({
      ...param(d),
      param: { name: d.name, in: 'query', style: 'form', explode: true },
      type: 'array',
      items: { type: 'string', description: d.itemDescription },
      maxItems: d.max,
    });
}

/** The parameter names of a query schema (an object, or an object piped into a transform). */
export function queryShape(query: z.ZodType | null | undefined): Record<string, z.ZodType> {
  if (!query) return {};
  if (query instanceof z.ZodObject) return query.shape as Record<string, z.ZodType>;
  if (query instanceof z.ZodPipe) return queryShape(query.in as z.ZodType);
  return {};
}
