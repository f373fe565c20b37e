/**
 * The list endpoints' query parameters (spec 4.3, 4.4, 4.6, 8; decisions.md
 * "Open points of the API"): the query schemas that parse them, no store.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { money } from '../src/store/queries/paging.js';
import { canonical } from '../src/domain/money.js';
import type { z } from '@hono/zod-openapi';
import { AUTO_PAGINATE_CAP, DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../src/domain/list-params.js';
import { AccountBalancesQuery, ContactListQuery, CreditNoteListQuery, InvoiceListQuery, PurchaseOrderListQuery } from '../src/schemas/params.js';

type Raw = Record<string, string | string[]>;
/** What a query parses into (the handler's c.req.valid('query')). */
const parse = <S extends z.ZodType>(schema: S, raw: Raw): z.output<S> => schema.parse(raw);
/** The parameter a rejected query names (the 400's `parameter`). */
function rejected(schema: z.ZodType, raw: Raw): string {
  const r = schema.safeParse(raw);
  if (r.success) throw new Error(`expected ${JSON.stringify(raw)} to be rejected`);
  return String(r.error.issues[0]!.path[0]);
}
const items = (raw: Raw) => parse(InvoiceListQuery, raw);
const limitOf = (limit?: string) => items(limit === undefined ? {} : { limit }).limit;

describe('list parameters', () => {
  it('spec 8 / decisions: limit defaults to 50 and is capped at 200 (silently)', () => {
    expect(DEFAULT_PAGE_LIMIT).toBe(50);
    expect(MAX_PAGE_LIMIT).toBe(200);
    expect(limitOf(undefined)).toBe(50);
    expect(limitOf('1')).toBe(1);
    expect(limitOf('200')).toBe(200);
    expect(limitOf('201')).toBe(200);
    expect(limitOf('99999999999999999999999')).toBe(200);
  });

  it('decisions: limit below 1 or not an integer is a 400 naming limit', () => {
    for (const bad of ['0', '-1', '1.5', 'abc', '10e1', ' ', '', '0x10', '2,3']) {
      expect(rejected(InvoiceListQuery, { limit: bad })).toBe('limit');
    }
  });

  it('spec 4.3 status: comma list, OR semantics, unknown values ignored, normalised (so cursors bind to the meaning)', () => {
    expect(items({ status: 'PAID,DRAFT,BOGUS' }).filters.statuses).toEqual(['DRAFT', 'PAID']);
    expect(items({ status: ' paid , Paid' }).filters.statuses).toEqual(['PAID']);
    expect(items({ status: ['PAID', 'VOIDED'] }).filters.statuses).toEqual(['PAID', 'VOIDED']);
    // Nothing known: no status filter at all.
    expect(items({ status: 'OVERDUE' }).filters.statuses).toEqual([]);
    // BILLED is a purchase-order status, not a ledger status.
    expect(items({ status: 'BILLED' }).filters.statuses).toEqual([]);
  });

  it('spec 4.6: purchase-order status matches the raw PO statuses verbatim (BILLED known, PAID unknown)', () => {
    expect(parse(PurchaseOrderListQuery, { status: 'BILLED,PAID' }).filters.statuses).toEqual(['BILLED']);
  });

  it('spec 4.3 dateFrom/dateTo: YYYY-MM-DD real calendar dates, otherwise a 400 naming the parameter', () => {
    expect(items({ dateFrom: '2024-02-29', dateTo: '2024-03-01' }).filters).toMatchObject({ dateFrom: '2024-02-29', dateTo: '2024-03-01' });
    expect(rejected(InvoiceListQuery, { dateFrom: '2024-02-30' })).toBe('dateFrom');
    expect(rejected(CreditNoteListQuery, { dateTo: '2023-02-29' })).toBe('dateTo');
    expect(rejected(InvoiceListQuery, { dateTo: '2024-1-5' })).toBe('dateTo');
    expect(rejected(InvoiceListQuery, { dateTo: '2024-01-05T00:00:00Z' })).toBe('dateTo');
    expect(rejected(PurchaseOrderListQuery, { dateFrom: '2024-02-02', dateTo: '2024-02-01' })).toBe('dateFrom');
  });

  it('spec 4.3: booleans lines, autoPaginate, totals; a malformed boolean is a 400 naming it', () => {
    expect(items({ lines: 'true', totals: '1', autoPaginate: 'false' })).toMatchObject({ lines: true, totals: true, autoPaginate: false });
    expect(rejected(InvoiceListQuery, { totals: 'yes' })).toBe('totals');
    expect(rejected(InvoiceListQuery, { lines: 'maybe' })).toBe('lines');
  });

  it('spec 4.3 autoPaginate: the cursor is silently ignored and the page is the 5,000 cap', () => {
    const p = items({ autoPaginate: 'true', cursor: 'garbage', limit: '10' });
    expect(p.cursor).toBeUndefined();
    expect(p.limit).toBe(AUTO_PAGINATE_CAP);
    // ... and said so (the API's warnings).
    expect(p.ignored).toEqual([expect.objectContaining({ parameter: 'cursor', value: 'garbage' })]);
    expect(items({ cursor: 'abc' }).cursor).toBe('abc');
  });

  it('decisions: unknown parameters are dropped by the parser (the pipeline warns of them); contactId is passed through, trimmed', () => {
    expect(items({ foo: 'bar', contactId: ' c-1 ' }).filters).toEqual({ statuses: [], contactId: 'c-1', dateFrom: undefined, dateTo: undefined });
  });

  it('spec 4.4 contacts: type customer|supplier|both (default both), sort recent_desc default, limit capped at 200; others a 400', () => {
    expect(parse(ContactListQuery, {})).toMatchObject({ type: 'both', sort: 'recent_desc', limit: 50, totals: false });
    expect(parse(ContactListQuery, { type: 'Customer', sort: 'revenue_desc', limit: '500' })).toMatchObject({ type: 'customer', sort: 'revenue_desc', limit: 200 });
    expect(rejected(ContactListQuery, { type: 'vendor' })).toBe('type');
    expect(rejected(ContactListQuery, { sort: 'name' })).toBe('sort');
  });

  it('decisions account-balances: date is optional (the route defaults it to today) and must be a calendar date', () => {
    expect(parse(AccountBalancesQuery, {}).date).toBeUndefined();
    expect(parse(AccountBalancesQuery, { date: '2025-06-30' }).date).toBe('2025-06-30');
    expect(rejected(AccountBalancesQuery, { date: '2025-06-31' })).toBe('date');
  });

  it('spec 1: the lists\' fast money formatting of NUMERIC text equals canonical() (digits, trimmed zeros, no exponent, no -0)', () => {
    for (const [i, o] of [['0', '0'], ['0.00', '0'], ['-0.50', '-0.5'], ['100.5000', '100.5'], ['12345678901234567890.0000001', '12345678901234567890.0000001'], ['-7', '-7']]) {
      expect(money(i!)).toBe(o);
    }
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.nat({ max: 12 }), fc.nat({ max: 4 }), (n, scale, pad) => {
        const abs = (n < 0n ? -n : n).toString().padStart(scale + 1, '0');
        const text = `${n < 0n ? '-' : ''}${scale ? `${abs.slice(0, -scale)}.${abs.slice(-scale)}` : abs}${scale ? '0'.repeat(pad) : ''}`;
        expect(money(text)).toBe(canonical(text));
      }),
    );
    // Leading zeros, and texts that are not NUMERIC's form at all: the same answer (or the same refusal) as canonical().
    const outcome = (f: () => string) => {
      try {
        return { value: f() };
      } catch (e) {
        return { error: String(e) };
      }
    };
    for (const t of ['007.50', '-00.000', '00', '-0', '.5', '1.', '-', '', '1e5', '1.2.3', '--1', ' 1', 'NaN']) expect(outcome(() => money(t)), t).toEqual(outcome(() => canonical(t)));
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('-', '0', '0', '1', '9', '.', 'e', ' ') }), (t) => {
        expect(outcome(() => money(t))).toEqual(outcome(() => canonical(t)));
      }),
      { numRuns: 3000 },
    );
  });
});
