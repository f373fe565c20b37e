/**
 * PostgreSQL's text form of a one-dimensional text[] (`{a,"b c",NULL}`) read
 * in one scan, slicing each element out of the text: pg's own parser
 * (postgres-array) builds every element a character at a time, which for a
 * page of 200 list rows (each with its category as text[]) made most of the
 * page's garbage. Anything this does not read as PostgreSQL writes it (a
 * dimension prefix, a nested array, text outside the element forms) goes to
 * pg's parser, so the answer is always the one pg's parser gives.
 */
import pg from 'pg';

type TypeId = Parameters<typeof pg.types.getTypeParser>[0];

/** text[] and varchar[] (array types: not among pg's named builtins). */
export const TEXT_ARRAY_OIDS = [1009, 1015] as unknown as readonly TypeId[];

/** pg's own parser (the same for both types), for what the scan does not read. */
const pgParser = pg.types.getTypeParser(TEXT_ARRAY_OIDS[0]!, 'text') as (v: string) => unknown;

const OPEN = 123; // {
const CLOSE = 125; // }
const QUOTE = 34; // "
const BACKSLASH = 92; // \
const COMMA = 44; // ,

export function parseTextArray(value: string): unknown {
  if (!value) return null;
  const last = value.length - 1;
  if (value.charCodeAt(0) !== OPEN || value.charCodeAt(last) !== CLOSE) return pgParser(value);
  const out: (string | null)[] = [];
  if (last === 1) return out;
  let i = 1;
  for (;;) {
    if (value.charCodeAt(i) === QUOTE) {
      // "…": backslash escapes the next character; anything else is the element's own.
      let text = '';
      let from = ++i;
      for (;;) {
        if (i >= last) return pgParser(value);
        const c = value.charCodeAt(i);
        if (c === QUOTE) break;
        if (c === BACKSLASH) {
          if (i + 1 >= last) return pgParser(value);
          text += value.slice(from, i);
          from = ++i;
        }
        i++;
      }
      out.push(text + value.slice(from, i));
      i++;
    } else {
      // Unquoted: up to the next comma; NULL is null. Quotes, escapes and braces here are for pg's parser.
      const from = i;
      while (i < last) {
        const c = value.charCodeAt(i);
        if (c === COMMA) break;
        if (c === QUOTE || c === BACKSLASH || c === OPEN || c === CLOSE) return pgParser(value);
        i++;
      }
      if (i === from) return pgParser(value);
      const text = value.slice(from, i);
      out.push(text === 'NULL' ? null : text);
    }
    if (i === last) return out;
    if (value.charCodeAt(i) !== COMMA) return pgParser(value);
    i++;
  }
}
