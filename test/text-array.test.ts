/**
 * The one-scan reader of PostgreSQL's text[] (src/store/text-array.ts), which
 * the store registers in place of pg's own: it must give what pg's parser
 * gives, for every text PostgreSQL writes and for every text it does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import pg from 'pg';
import { parseTextArray, TEXT_ARRAY_OIDS } from '../src/store/text-array.js';
import { freshStore, type TestStore } from './helpers/store.js';

// pg's own parser of text[], which the store replaces on import for text[] and varchar[]: the very function pg-types still
// registers for char[] (1014), parseStringArray.
const pgParse = pg.types.getTypeParser(1014 as Parameters<typeof pg.types.getTypeParser>[0], 'text') as (v: string) => unknown;

/** Elements as a list's category can hold, and worse: quotes, backslashes, commas, braces, spaces, "NULL", empty, Unicode. */
const element = fc.oneof(
  fc.constant(null),
  fc.string({ unit: fc.constantFrom('a', 'Z', ' ', ',', '"', '\\', '{', '}', 'N', 'U', 'L', 'é', '😀', '\t', '0') }),
  fc.constantFrom('NULL', 'null', '', ' ', 'Sales', 'Rent & rates'),
);

describe('text[] read in one scan', () => {
  let store: TestStore;
  let client: pg.Client;
  beforeAll(async () => {
    store = await freshStore('postgres');
    client = new pg.Client(store.url!);
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await store?.close();
  });

  it('reads back every array PostgreSQL writes (round trip through a real server), as pg\'s parser does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(element, { maxLength: 8 }), async (values) => {
        const { rows } = await client.query({ text: 'select $1::text[]::text as t', values: [values] });
        const text = rows[0].t as string;
        expect(parseTextArray(text)).toEqual(values);
        expect(parseTextArray(text)).toEqual(pgParse(text));
      }),
      { numRuns: 300 },
    );
  });

  it('is registered for text[] and varchar[]: a query returns arrays through it', async () => {
    expect(TEXT_ARRAY_OIDS).toEqual([1009, 1015]);
    const { rows } = await client.query(`select array['a', null, 'b "c"', '']::text[] as t, array['x,y']::varchar[] as v`);
    expect(rows[0]).toEqual({ t: ['a', null, 'b "c"', ''], v: ['x,y'] });
  });

  it('gives what pg\'s parser gives for any text, PostgreSQL\'s or not (dimensions, nesting, stray quotes and braces)', () => {
    const outcome = (f: () => unknown) => {
      try {
        return { value: f() };
      } catch (e) {
        return { error: String(e) };
      }
    };
    const text = fc.string({ unit: fc.constantFrom('{', '}', '"', '\\', ',', 'a', 'N', 'U', 'L', ' ', '[', ']', ':', '=', '1') });
    fc.assert(
      fc.property(text, (t) => {
        expect(outcome(() => parseTextArray(t))).toEqual(outcome(() => pgParse(t)));
      }),
      { numRuns: 5000 },
    );
    for (const t of ['[1:2]={a,b}', '{{a,b},{c,d}}', '{"a\\"b"}', '{a b}', '{,}', '{}', '{NULL}', '{"NULL"}', '{"a"x}']) {
      expect(outcome(() => parseTextArray(t)), t).toEqual(outcome(() => pgParse(t)));
    }
  });
});
