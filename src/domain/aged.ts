/**
 * Aged receivables and payables (docs/lists.md#aged): each contact's open
 * balance by ageing band (the daily summary's bands), sorted by what is
 * overdue (then by the whole balance, then by contact id), paged by a cursor
 * on that order, with totals over every contact that agree with the daily
 * summary's `ar`.
 */
import { canonical, D, dec, type Dec } from './money.js';
import { AGEING_BANDS, type AgeingBand } from './forecast/daily.js';
import type { CursorPosition } from './cursor.js';

export interface AgedInput {
  contactId: string | null;
  bands: Record<AgeingBand, string>;
  documents: number;
}

export interface AgedRow<T extends AgedInput> {
  row: T;
  overdue: string;
  total: string;
}

const OVERDUE: readonly AgeingBand[] = ['days30', 'days60', 'days90', 'days90plus'];

interface Keyed<T extends AgedInput> {
  row: T;
  overdue: Dec;
  total: Dec;
  id: string;
}

function keyed<T extends AgedInput>(row: T): Keyed<T> {
  const overdue = OVERDUE.reduce((a, b) => a.plus(row.bands[b]), new D(0));
  return { row, overdue, total: overdue.plus(row.bands.current), id: row.contactId ?? '' };
}

/** Overdue first (largest first), then the whole balance, then the contact id. */
function order<T extends AgedInput>(a: Keyed<T>, b: Keyed<T>): number {
  return b.overdue.comparedTo(a.overdue) || b.total.comparedTo(a.total) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** A row's cursor position: its overdue amount and balance (the sort keys) and its contact id. */
const positionOf = <T extends AgedInput>(k: Keyed<T>): CursorPosition => [`${canonical(k.overdue)}|${canonical(k.total)}`, k.id];

function fromPosition(p: CursorPosition): { overdue: Dec; total: Dec; id: string } | null {
  const [o, t] = p[0].split('|');
  try {
    return { overdue: dec(o ?? ''), total: dec(t ?? ''), id: p[1] };
  } catch {
    return null;
  }
}

export interface AgedPage<T extends AgedInput> {
  rows: AgedRow<T>[];
  next: CursorPosition | null;
  totalCount: number;
  totals: Record<AgeingBand | 'overdue' | 'total', string> & { documents: number };
}

/** The page of `limit` contacts after `after` (null: the first), and the totals over them all. */
export function agedPage<T extends AgedInput>(rows: readonly T[], after: CursorPosition | null, limit: number): AgedPage<T> {
  const all = rows.map(keyed).sort(order);
  const from = after ? fromPosition(after) : null;
  const start = from ? all.findIndex((k) => order(k, { row: k.row, ...from }) > 0) : 0;
  const first = start < 0 ? all.length : start;
  const page = all.slice(first, first + limit);
  const totals = Object.fromEntries(AGEING_BANDS.map((b) => [b, canonical(rows.reduce((a, r) => a.plus(r.bands[b]), new D(0)))])) as Record<AgeingBand, string>;
  return {
    rows: page.map((k) => ({ row: k.row, overdue: canonical(k.overdue), total: canonical(k.total) })),
    next: first + limit < all.length && page.length ? positionOf(page[page.length - 1]!) : null,
    totalCount: all.length,
    totals: {
      ...totals,
      overdue: canonical(all.reduce((a, k) => a.plus(k.overdue), new D(0))),
      total: canonical(all.reduce((a, k) => a.plus(k.total), new D(0))),
      documents: rows.reduce((a, r) => a + r.documents, 0),
    },
  };
}
