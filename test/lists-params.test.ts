/**
 * The list endpoints' query parameters (spec 4.3, 4.4, 4.6, 8; decisions.md
 * "Open points of the API"): pure parsing, no store.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { money } from '../src/store/queries/paging.js';
import { canonical } from '../src/domain/money.js';
import {
  AUTO_PAGINATE_CAP,
  DEFAULT_PAGE_LIMIT,
  MAX_PAGE_LIMIT,
  ParamError,
  PURCHASE_ORDER_STATUS_VALUES,
  parseAsOfDate,
  parseContactListParams,
  parseItemListParams,
  parseLimit,
} from '../src/domain/list-params.js';

function paramError(fn: () => unknown): ParamError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ParamError) return e;
    throw e;
  }
  throw new Error('expected a ParamError');
}

describe('list parameters', () => {
  it('spec 8 / decisions: limit defaults to 50 and is capped at 200 (silently)', () => {
    expect(DEFAULT_PAGE_LIMIT).toBe(50);
    expect(MAX_PAGE_LIMIT).toBe(200);
    expect(parseLimit(undefined)).toBe(50);
    expect(parseLimit('1')).toBe(1);
    expect(parseLimit('200')).toBe(200);
    expect(parseLimit('201')).toBe(200);
    expect(parseLimit('99999999999999999999999')).toBe(200);
  });

  it('decisions: limit below 1 or not an integer is a 400 naming limit', () => {
    for (const bad of ['0', '-1', '1.5', 'abc', '10e1', ' ', '0x10', '2,3']) {
      expect(paramError(() => parseLimit(bad)).parameter).toBe('limit');
    }
  });

  it('spec 4.3 status: comma list, OR semantics, unknown values ignored, normalised (so cursors bind to the meaning)', () => {
    expect(parseItemListParams({ status: 'PAID,DRAFT,BOGUS' }).filters.statuses).toEqual(['DRAFT', 'PAID']);
    expect(parseItemListParams({ status: ' paid , Paid' }).filters.statuses).toEqual(['PAID']);
    expect(parseItemListParams({ status: ['PAID', 'VOIDED'] }).filters.statuses).toEqual(['PAID', 'VOIDED']);
    // Nothing known: no status filter at all.
    expect(parseItemListParams({ status: 'OVERDUE' }).filters.statuses).toEqual([]);
    // BILLED is a purchase-order status, not a ledger status.
    expect(parseItemListParams({ status: 'BILLED' }).filters.statuses).toEqual([]);
  });

  it('spec 4.6: purchase-order status matches the raw PO statuses verbatim (BILLED known, PAID unknown)', () => {
    expect(parseItemListParams({ status: 'BILLED,PAID' }, PURCHASE_ORDER_STATUS_VALUES).filters.statuses).toEqual(['BILLED']);
  });

  it('spec 4.3 dateFrom/dateTo: YYYY-MM-DD real calendar dates, otherwise a 400 naming the parameter', () => {
    expect(parseItemListParams({ dateFrom: '2024-02-29', dateTo: '2024-03-01' }).filters).toMatchObject({ dateFrom: '2024-02-29', dateTo: '2024-03-01' });
    expect(paramError(() => parseItemListParams({ dateFrom: '2024-02-30' })).parameter).toBe('dateFrom');
    expect(paramError(() => parseItemListParams({ dateTo: '2023-02-29' })).parameter).toBe('dateTo');
    expect(paramError(() => parseItemListParams({ dateTo: '2024-1-5' })).parameter).toBe('dateTo');
    expect(paramError(() => parseItemListParams({ dateTo: '2024-01-05T00:00:00Z' })).parameter).toBe('dateTo');
    expect(paramError(() => parseItemListParams({ dateFrom: '2024-02-02', dateTo: '2024-02-01' })).parameter).toBe('dateFrom');
  });

  it('spec 4.3: booleans lines, autoPaginate, totals; a malformed boolean is a 400 naming it', () => {
    expect(parseItemListParams({ lines: 'true', totals: '1', autoPaginate: 'false' })).toMatchObject({ lines: true, totals: true, autoPaginate: false });
    expect(paramError(() => parseItemListParams({ totals: 'yes' })).parameter).toBe('totals');
    expect(paramError(() => parseItemListParams({ lines: 'maybe' })).parameter).toBe('lines');
  });

  it('spec 4.3 autoPaginate: the cursor is silently ignored and the page is the 5,000 cap', () => {
    const p = parseItemListParams({ autoPaginate: 'true', cursor: 'garbage', limit: '10' });
    expect(p.cursor).toBeUndefined();
    expect(p.limit).toBe(AUTO_PAGINATE_CAP);
    expect(parseItemListParams({ cursor: 'abc' }).cursor).toBe('abc');
  });

  it('decisions: unknown parameters are ignored; contactId is passed through', () => {
    expect(parseItemListParams({ foo: 'bar', contactId: 'c-1' }).filters).toEqual({ statuses: [], contactId: 'c-1', dateFrom: undefined, dateTo: undefined });
  });

  it('spec 4.4 contacts: type customer|supplier|both (default both), sort recent_desc default, limit capped at 200; others a 400', () => {
    expect(parseContactListParams({})).toMatchObject({ type: 'both', sort: 'recent_desc', limit: 50, totals: false });
    expect(parseContactListParams({ type: 'Customer', sort: 'revenue_desc', limit: '500' })).toMatchObject({ type: 'customer', sort: 'revenue_desc', limit: 200 });
    expect(paramError(() => parseContactListParams({ type: 'vendor' })).parameter).toBe('type');
    expect(paramError(() => parseContactListParams({ sort: 'name' })).parameter).toBe('sort');
  });

  it('decisions account-balances: date defaults to today and must be a calendar date', () => {
    expect(parseAsOfDate({}, '2026-03-01')).toBe('2026-03-01');
    expect(parseAsOfDate({ date: '2025-06-30' }, '2026-03-01')).toBe('2025-06-30');
    expect(paramError(() => parseAsOfDate({ date: '2025-06-31' }, '2026-03-01')).parameter).toBe('date');
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
  });
});
