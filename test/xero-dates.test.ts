import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  calendarDateToMsDate,
  parseXeroDate,
  parseXeroTimestamp,
  toMsDate,
} from '../src/ledger/xero/dates.js';
import { date as dateField, optTimestamp } from '../src/ledger/xero/fields.js';

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');
const offsetText = (minutes: number, colon: boolean) =>
  `${minutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(minutes) / 60))}${colon ? ':' : ''}${pad(Math.abs(minutes) % 60)}`;

/** Calendar dates 0001-01-01 … 9999-12-31 as 'YYYY-MM-DD'. */
const calendarDate = fc
  .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
/** Real UTC offsets, in minutes, on quarter hours. */
const offset = fc.integer({ min: -12 * 4, max: 14 * 4 }).map((q) => q * 15);
const instant = fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true });

describe('Xero calendar dates', () => {
  it('reads /Date(ms+zzzz)/ in the ledger calendar', () => {
    expect(parseXeroDate('/Date(1539993600000+0000)/')).toBe('2018-10-20');
    expect(parseXeroDate('/Date(1539993600000)/')).toBe('2018-10-20');
    // 2018-10-19T11:00Z is midnight of the 20th in UTC+13.
    expect(parseXeroDate('/Date(1539946800000+1300)/')).toBe('2018-10-20');
    // 2018-10-20T04:00Z is midnight of the 20th in UTC-4.
    expect(parseXeroDate('/Date(1540008000000-0400)/')).toBe('2018-10-20');
    expect(parseXeroDate('/Date(-86400000+0000)/')).toBe('1969-12-31');
  });

  it('reads ISO strings by their date part as written', () => {
    expect(parseXeroDate('2019-10-31T00:00:00')).toBe('2019-10-31');
    expect(parseXeroDate('2019-10-31T00:00:00Z')).toBe('2019-10-31');
    expect(parseXeroDate('2019-10-31T00:00:00+13:00')).toBe('2019-10-31');
    expect(parseXeroDate('2019-10-31T23:30:00-05:00')).toBe('2019-10-31');
    expect(parseXeroDate('2019-10-31 00:00:00')).toBe('2019-10-31');
    expect(parseXeroDate('2019-10-31T00:00:00.0000000')).toBe('2019-10-31');
    expect(parseXeroDate('2019-10-31')).toBe('2019-10-31');
    expect(parseXeroDate('2024-02-29T00:00:00')).toBe('2024-02-29');
  });

  it('rejects what is not a date', () => {
    for (const bad of [
      '',
      'not a date',
      '31/10/2019',
      '2019-02-29',
      '2019-13-01',
      '2019-10-32T00:00:00',
      '2019-10-31T25:00:00',
      '/Date(abc)/',
      '/Date(1539993600000+2500)/',
      '/Date(1539993600000+00)/',
      '/Date()/',
      '/Date(99999999999999999)/',
    ]) {
      expect(parseXeroDate(bad), bad).toBeNull();
    }
  });

  it('round-trips any calendar date through /Date(ms±zzzz)/ with any offset', () => {
    fc.assert(
      fc.property(calendarDate, offset, (d, o) => {
        expect(parseXeroDate(calendarDateToMsDate(d, o))).toBe(d);
      }),
    );
  });

  it('round-trips any calendar date through ISO strings, whatever their time and zone', () => {
    fc.assert(
      fc.property(
        calendarDate,
        fc.integer({ min: 0, max: 23 }),
        fc.integer({ min: 0, max: 59 }),
        fc.integer({ min: 0, max: 59 }),
        fc.oneof(fc.constant(''), fc.constant('Z'), offset.map((o) => offsetText(o, true)), offset.map((o) => offsetText(o, false))),
        fc.constantFrom('T', ' '),
        (d, h, m, s, zone, sep) => {
          expect(parseXeroDate(`${d}${sep}${pad(h)}:${pad(m)}:${pad(s)}${zone}`)).toBe(d);
          expect(parseXeroDate(d)).toBe(d);
        },
      ),
    );
  });
});

describe('Xero timestamps', () => {
  it('reads /Date(ms±zzzz)/ as the instant ms (the offset only tells local time)', () => {
    expect(parseXeroTimestamp('/Date(1541176290160+0000)/')).toEqual(new Date(1541176290160));
    expect(parseXeroTimestamp('/Date(1541176290160+1300)/')).toEqual(new Date(1541176290160));
    expect(parseXeroTimestamp('/Date(1552326816230)/')).toEqual(new Date(1552326816230));
  });

  it('reads ISO strings, UTC when they have no zone', () => {
    expect(parseXeroTimestamp('2018-11-02T16:31:30.16')).toEqual(new Date('2018-11-02T16:31:30.160Z'));
    expect(parseXeroTimestamp('2018-11-02 16:31:30+00:00')).toEqual(new Date('2018-11-02T16:31:30Z'));
    expect(parseXeroTimestamp('2018-11-02T16:31:30.1234567Z')).toEqual(new Date('2018-11-02T16:31:30.123Z'));
    expect(parseXeroTimestamp('2018-11-03T05:31:30+13:00')).toEqual(new Date('2018-11-02T16:31:30Z'));
    expect(parseXeroTimestamp('2018-11-02T11:31:30-0500')).toEqual(new Date('2018-11-02T16:31:30Z'));
    expect(parseXeroTimestamp('0099-01-01T00:00:00Z')!.getUTCFullYear()).toBe(99);
    expect(parseXeroTimestamp('yesterday')).toBeNull();
  });

  it('round-trips any instant through /Date()/ and ISO forms', () => {
    fc.assert(
      fc.property(instant, offset, (t, o) => {
        expect(parseXeroTimestamp(toMsDate(t, o))).toEqual(t);
        expect(parseXeroTimestamp(`/Date(${t.getTime()})/`)).toEqual(t);
        expect(parseXeroTimestamp(t.toISOString())).toEqual(t);
        expect(parseXeroTimestamp(t.toISOString().replace('Z', ''))).toEqual(t);
        // The same instant written as local wall time with its offset.
        const local = new Date(t.getTime() + o * 60_000).toISOString().replace('Z', offsetText(o, true));
        expect(parseXeroTimestamp(local)).toEqual(t);
      }),
    );
  });
});

describe('date fields', () => {
  it('give operator messages', () => {
    const bad = dateField.safeParse('2019-02-30');
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.message).toBe('not a date: "2019-02-30"');
    expect(dateField.safeParse(20191031).error!.issues[0]!.message).toBe('not a date (got number)');
    expect(dateField.safeParse(undefined).error!.issues[0]!.message).toBe('required');
    expect(dateField.parse('/Date(1539993600000+0000)/')).toBe('2018-10-20');
    expect(optTimestamp.parse(null)).toBeUndefined();
    expect(optTimestamp.parse('/Date(1541176290160+0000)/')).toEqual(new Date(1541176290160));
  });
});
