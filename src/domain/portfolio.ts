/**
 * The partner portfolio (docs/portfolio.md): every client organisation of a
 * practice ranked by how close it is to running out of cash, paged by a
 * keyset cursor on that order. Pure: the figures come from the store.
 *
 * The risk order, most at risk first:
 *  1. organisations with a forecast before those without one (no forecast
 *     yet: nothing to rank them by but what they are owed);
 *  2. the shortfall probability of the latest BASE forecast, highest first
 *     (a forecast without bands, before engine version 3, has none: it comes
 *     after every probability, 0 included);
 *  3. the headroom, lowest first: the lowest closing cash of the 13 weeks
 *     minus the shortfall threshold (the organisation's cash buffer, else 0),
 *     so a client forecast to fall furthest below its buffer comes first;
 *  4. overdue receivables, largest first (when the key may see them);
 *  5. the name (English collation, case- and accent-insensitive), then the
 *     exact name, then the id: a total order, so paging never skips or
 *     repeats a row.
 */
import { canonical, dec, type Dec } from './money.js';
import { type CursorPosition, InvalidCursorError } from './cursor.js';

/** What the order reads of one organisation. */
export interface RiskFacts {
  orgId: string;
  name: string;
  /** Null: no forecast yet. */
  forecast: {
    /** shortfall.probability of the forecast; null when it has no bands. */
    shortfallProbability: number | null;
    /** minClosingCash minus the shortfall threshold (a decimal string). */
    headroom: string;
  } | null;
  /** Overdue receivables (a decimal string); null when the key may not see them (then no row is ranked by them). */
  overdue: string | null;
}

/** minClosingCash minus the shortfall threshold, as a canonical decimal string. */
export const headroomOf = (minClosingCash: string, threshold: string): string => canonical(dec(minClosingCash).minus(dec(threshold)));

interface Keyed<T extends RiskFacts> {
  row: T;
  has: boolean;
  p: number | null;
  headroom: Dec | null;
  overdue: Dec;
  name: string;
  id: string;
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
const raw = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function keyed<T extends RiskFacts>(row: T): Keyed<T> {
  return {
    row,
    has: row.forecast !== null,
    p: row.forecast?.shortfallProbability ?? null,
    headroom: row.forecast ? dec(row.forecast.headroom) : null,
    overdue: dec(row.overdue ?? '0'),
    name: row.name,
    id: row.orgId,
  };
}

type Key = Omit<Keyed<RiskFacts>, 'row'>;

/** Negative when `a` is more at risk than `b` (see the module comment). */
function order(a: Key, b: Key): number {
  if (a.has !== b.has) return a.has ? -1 : 1;
  if (a.p !== b.p) {
    if (a.p === null) return 1;
    if (b.p === null) return -1;
    return b.p - a.p;
  }
  const h = a.headroom && b.headroom ? a.headroom.comparedTo(b.headroom) : 0;
  return h || b.overdue.comparedTo(a.overdue) || collator.compare(a.name, b.name) || raw(a.name, b.name) || raw(a.id, b.id);
}

/** A row's cursor position: its sort keys (JSON) and its organisation id. */
function positionOf(k: Key): CursorPosition {
  return [JSON.stringify([k.has, k.p, k.headroom ? canonical(k.headroom) : null, canonical(k.overdue), k.name]), k.id];
}

function fromPosition(p: CursorPosition): Key {
  try {
    const [has, prob, headroom, overdue, name] = JSON.parse(p[0]) as unknown[];
    if (typeof has !== 'boolean' || !(prob === null || typeof prob === 'number') || !(headroom === null || typeof headroom === 'string')) throw new Error();
    if (typeof overdue !== 'string' || typeof name !== 'string') throw new Error();
    return { has, p: prob, headroom: headroom === null ? null : dec(headroom), overdue: dec(overdue), name, id: p[1] };
  } catch {
    throw new InvalidCursorError();
  }
}

export interface PortfolioPage<T extends RiskFacts> {
  /** The page's rows, most at risk first. */
  rows: T[];
  /** The position after the last row (null on the last page). */
  next: CursorPosition | null;
  /** The cursor position of each row of the page (to resume after any of them). */
  positions: CursorPosition[];
  totalCount: number;
}

/** The `limit` rows after `after` (null: from the first) in the risk order. */
export function portfolioPage<T extends RiskFacts>(rows: readonly T[], after: CursorPosition | null, limit: number): PortfolioPage<T> {
  const all = rows.map(keyed).sort(order);
  const from = after ? fromPosition(after) : null;
  const start = from ? all.findIndex((k) => order(k, from) > 0) : 0;
  const first = start < 0 ? all.length : start;
  const page = all.slice(first, first + limit);
  const positions = page.map(positionOf);
  return {
    rows: page.map((k) => k.row),
    next: first + limit < all.length && page.length ? positions[positions.length - 1]! : null,
    positions,
    totalCount: all.length,
  };
}
