/**
 * What changed between two forecasts (docs/forecast.md#changes; issue 18):
 * the difference in ending cash and in the lowest week's closing cash,
 * explained item by item and grouped by cause, the causes' totals adding up
 * exactly to the difference.
 *
 * Why they add up: a forecast's ending cash is its starting cash plus its
 * items in, less its items out, over the 13 weeks (its lowest week's closing
 * cash the same up to that week), so the difference between two forecasts
 * is the difference in starting cash plus, per item, its new amount less its
 * old one. Each item's difference goes to exactly one cause, and the starting
 * cash's difference is split between the cash that settled documents brought
 * or took (its own cause, with the forecast it replaced), an operator's
 * opening override, and the rest (other money that moved).
 */
import { D, canonical, type Dec } from '../money.js';
import type { ItemKind } from './items.js';
import { cmpStr } from './compare.js';
import type { ForecastInput } from './types.js';

/**
 * The causes, in the order they are reported:
 * - settled: documents paid (or credited) since: the cash that arrived or left, and the forecast it replaced;
 * - new_document: documents forecast now that the earlier forecast did not know (issued since);
 * - voided_or_deleted: documents voided or deleted since;
 * - amount_changed: documents whose total was edited (or whose payment was removed);
 * - status_changed: drafts approved or sent back, purchase orders billed (the bill is a new document);
 * - dates_moved: the same document, owed the same, expected in other weeks: its due date changed, or the payment pattern was re-estimated (another week's evidence, or the time that passed while it stayed unpaid);
 * - re_estimated: recurring, scheduled and statistical items (predicted sales, run-rates) re-estimated, the weeks the horizon gained or lost included;
 * - opening_cash: other money that moved (bank transactions, payments the earlier forecast did not expect, a bank balance changed);
 * - scenario_or_override: the operator's opening-cash override and manual forecast lines.
 */
export const CHANGE_CAUSES = [
  'settled',
  'new_document',
  'voided_or_deleted',
  'amount_changed',
  'status_changed',
  'dates_moved',
  're_estimated',
  'opening_cash',
  'scenario_or_override',
] as const;
export type ChangeCause = (typeof CHANGE_CAUSES)[number];

/** Why a document's expected dates moved. */
export type MoveReason = 'due_date_changed' | 'payment_pattern';

/** One item of a forecast, its weeks added up. */
export interface ItemTotal {
  itemId: string;
  direction: 'in' | 'out';
  kind: ItemKind;
  documentId: string | null;
  contactId: string | null;
  /** Over the 13 weeks (positive). */
  amount: string;
  /** Over the weeks up to and including the forecast's lowest week. */
  toLowest: string;
  /** The week holding most of it (0-based). */
  week: number;
}

/** A document as a recompute knew it. */
export interface DocumentState {
  /** AR (invoice), AP (bill) or PO (purchase order). */
  kind: 'AR' | 'AP' | 'PO';
  contactId: string | null;
  status: string;
  total: string;
  amountDue: string;
  dueDate: string | null;
}

/** One side of the comparison: a forecast and what its recompute knew. */
export interface ChangeSide {
  startingCash: string;
  /** The starting cash the ledger gave, before an operator's override. */
  ledgerCash: string;
  endingCash: string;
  minClosingCash: string;
  lowestWeek: number;
  /** The Monday (or first day) of each week. */
  weekStarts: readonly string[];
  items: readonly ItemTotal[];
  documents: ReadonlyMap<string, DocumentState>;
  /**
   * Whether `documents` was stored with the forecast (false for one stored
   * before documents were kept): without them, a document is placed by its
   * presence in each forecast and the ledger's current state, and a payment's
   * cash stays in opening_cash.
   */
  documentsKnown?: boolean;
}

export interface ChangeItem {
  itemId: string;
  documentId: string | null;
  contactId: string | null;
  kind: ItemKind;
  direction: 'in' | 'out';
  /** Its effect on ending cash (signed). */
  change: string;
  /** Its effect on the lowest week's closing cash (signed). */
  minClosingChange: string;
  /** What it moved in the earlier forecast's 13 weeks (null: not in it). */
  oldAmount: string | null;
  newAmount: string | null;
  /** The week holding most of it, in each forecast (null: not in it). */
  oldWeekStart: string | null;
  newWeekStart: string | null;
  /** settled: the cash it brought (positive) or took (negative) since. */
  cash: string | null;
  /** dates_moved: why. */
  why: MoveReason | null;
}

export interface CauseTotal {
  cause: ChangeCause;
  /** Its effect on ending cash. */
  total: string;
  /** Its effect on the lowest week's closing cash. */
  minClosingTotal: string;
  /** Items (documents, series, lines) in it. */
  count: number;
  /** The largest, by |change| then |minClosingChange|. */
  items: ChangeItem[];
}

export interface ChangeExplanation {
  endingCashChange: string;
  minClosingCashChange: string;
  causes: CauseTotal[];
}

/** The ledger's current state of documents no longer forecast (paid, voided, deleted, billed): status and amount due; absent: gone from the ledger. */
export type CurrentDocuments = ReadonlyMap<string, { status: string; amountDue: string }>;

const STATISTICAL: ReadonlySet<ItemKind> = new Set(['scheduled', 'recurring', 'predicted', 'run_rate']);
const signed = (direction: 'in' | 'out', x: Dec) => (direction === 'in' ? x : x.neg());

interface Acc {
  total: Dec;
  low: Dec;
  items: ChangeItem[];
}

/** Explains `to` against `from`, item by item (`current`: the ledger's state of documents `to` no longer knows). */
export function explainChanges(from: ChangeSide, to: ChangeSide, current: CurrentDocuments, topItems: number): ChangeExplanation {
  const acc = new Map<ChangeCause, Acc>(CHANGE_CAUSES.map((c) => [c, { total: new D(0), low: new D(0), items: [] }]));
  const add = (cause: ChangeCause, total: Dec, low: Dec, item?: ChangeItem) => {
    const a = acc.get(cause)!;
    a.total = a.total.plus(total);
    a.low = a.low.plus(low);
    if (item) a.items.push(item);
  };

  // Each item of either forecast, paired by id and direction; then the documents settled since that neither had within its 13 weeks (their cash, nothing it replaced).
  const pairs = new Map<string, { it: ItemTotal; old?: ItemTotal; neu?: ItemTotal }>();
  const pairOf = (it: ItemTotal) => {
    const key = `${it.direction}${it.itemId}`;
    let p = pairs.get(key);
    if (!p) pairs.set(key, (p = { it }));
    return p;
  };
  for (const it of from.items) pairOf(it).old = it;
  for (const it of to.items) Object.assign(pairOf(it), { it, neu: it });
  const forecast = new Set([...pairs.values()].map((p) => p.it.documentId));
  const unforecast = [...from.documents]
    .filter(([id, was]) => !forecast.has(id) && was.kind !== 'PO')
    .map(([id, was]): ItemTotal => ({ itemId: id, direction: was.kind === 'AR' ? 'in' : 'out', kind: was.kind === 'AR' ? 'invoice' : 'bill', documentId: id, contactId: was.contactId, amount: '0', toLowest: '0', week: 0 }));

  let settledCash = new D(0);
  for (const { it, old, neu } of [...pairs.values(), ...unforecast.map((it) => ({ it, old: undefined, neu: undefined }))]) {
    const o = old ? signed(it.direction, new D(old.amount)) : new D(0);
    const n = neu ? signed(it.direction, new D(neu.amount)) : new D(0);
    const oLow = old ? signed(it.direction, new D(old.toLowest)) : new D(0);
    const nLow = neu ? signed(it.direction, new D(neu.toLowest)) : new D(0);
    const { cause, cash, why } = classify(it, old !== undefined, from, to, current);
    // A document neither forecast had counts only when it was settled since.
    if (!old && !neu && cause !== 'settled') continue;
    const total = n.minus(o).plus(cash);
    const low = nLow.minus(oLow).plus(cash);
    settledCash = settledCash.plus(cash);
    if (total.isZero() && low.isZero() && cash.isZero()) continue;
    add(cause, total, low, {
      itemId: it.itemId,
      documentId: it.documentId,
      contactId: it.contactId,
      kind: it.kind,
      direction: it.direction,
      change: canonical(total),
      minClosingChange: canonical(low),
      oldAmount: old ? canonical(old.amount) : null,
      newAmount: neu ? canonical(neu.amount) : null,
      oldWeekStart: old ? (from.weekStarts[old.week] ?? null) : null,
      newWeekStart: neu ? (to.weekStarts[neu.week] ?? null) : null,
      cash: cause === 'settled' ? canonical(cash) : null,
      why,
    });
  }

  // The starting cash: the operator's override, the settled documents' cash (counted above), and the rest.
  const override = new D(to.startingCash).minus(to.ledgerCash).minus(new D(from.startingCash).minus(from.ledgerCash));
  add('scenario_or_override', override, override);
  const rest = new D(to.ledgerCash).minus(from.ledgerCash).minus(settledCash);
  add('opening_cash', rest, rest);

  const byChange = (a: ChangeItem, b: ChangeItem) =>
    new D(b.change).abs().cmp(new D(a.change).abs()) || new D(b.minClosingChange).abs().cmp(new D(a.minClosingChange).abs()) || cmpStr(a.itemId, b.itemId);
  return {
    endingCashChange: canonical(new D(to.endingCash).minus(from.endingCash)),
    minClosingCashChange: canonical(new D(to.minClosingCash).minus(from.minClosingCash)),
    causes: CHANGE_CAUSES.map((cause) => {
      const a = acc.get(cause)!;
      return { cause, total: canonical(a.total), minClosingTotal: canonical(a.low), count: a.items.length, items: a.items.sort(byChange).slice(0, topItems) };
    }),
  };
}

const ZERO = new D(0);

/** The cause of one item's difference (`inOld`: the earlier forecast had it), with the cash a settled document brought (signed; 0 otherwise). */
function classify(it: ItemTotal, inOld: boolean, from: ChangeSide, to: ChangeSide, current: CurrentDocuments): { cause: ChangeCause; cash: Dec; why: MoveReason | null } {
  if (it.kind === 'manual') return { cause: 'scenario_or_override', cash: ZERO, why: null };
  if (STATISTICAL.has(it.kind) || it.documentId === null) return { cause: 're_estimated', cash: ZERO, why: null };
  const id = it.documentId;
  if (from.documentsKnown === false) return unknownDocuments(it, inOld, to, current);
  const was = from.documents.get(id);
  if (!was) return { cause: 'new_document', cash: ZERO, why: null };
  const now = to.documents.get(id);
  const sign = (x: Dec) => (was.kind === 'AP' ? x.neg() : x);
  if (!now) {
    const cur = current.get(id);
    if (!cur || cur.status === 'VOIDED' || cur.status === 'DELETED') return { cause: 'voided_or_deleted', cash: ZERO, why: null };
    if (was.kind === 'PO' || cur.status === 'BILLED') return { cause: 'status_changed', cash: ZERO, why: null };
    // Paid (or credited) in full, or down to what the forecast no longer counts.
    const paid = new D(was.amountDue).minus(cur.amountDue);
    return paid.gt(0) ? { cause: 'settled', cash: sign(paid), why: null } : { cause: 'dates_moved', cash: ZERO, why: 'payment_pattern' };
  }
  if (now.status !== was.status) return { cause: 'status_changed', cash: ZERO, why: null };
  if (!new D(now.total).eq(was.total)) return { cause: 'amount_changed', cash: ZERO, why: null };
  const paid = new D(was.amountDue).minus(now.amountDue);
  if (paid.gt(0)) return { cause: 'settled', cash: sign(paid), why: null };
  if (paid.lt(0)) return { cause: 'amount_changed', cash: ZERO, why: null };
  return { cause: 'dates_moved', cash: ZERO, why: now.dueDate !== was.dueDate ? 'due_date_changed' : 'payment_pattern' };
}

/** The earlier forecast's documents are unknown: by the item's presence in each forecast and the ledger's state now. */
function unknownDocuments(it: ItemTotal, inOld: boolean, to: ChangeSide, current: CurrentDocuments): { cause: ChangeCause; cash: Dec; why: MoveReason | null } {
  if (!inOld) return { cause: 'new_document', cash: ZERO, why: null };
  if (to.documents.has(it.documentId!)) return { cause: 'dates_moved', cash: ZERO, why: 'payment_pattern' };
  const cur = current.get(it.documentId!);
  if (!cur || cur.status === 'VOIDED' || cur.status === 'DELETED') return { cause: 'voided_or_deleted', cash: ZERO, why: null };
  return { cause: cur.status === 'BILLED' ? 'status_changed' : 'settled', cash: ZERO, why: null };
}

/** The documents a recompute's input holds open (what GET /forecast/changes compares): approved invoices and bills with something due, drafts, submitted ones, and purchase orders not billed. */
export function openDocuments(input: Pick<ForecastInput, 'items' | 'purchaseOrders'>): (DocumentState & { id: string })[] {
  const out: (DocumentState & { id: string })[] = [];
  for (const it of input.items) {
    const open = it.status === 'DRAFT' || it.status === 'SUBMITTED' || (it.status === 'AUTHORISED' && new D(it.amountDue).gt(0));
    if (open) out.push({ id: it.id, kind: it.kind, contactId: it.contactId, status: it.status, total: it.total, amountDue: it.amountDue, dueDate: it.dueDate });
  }
  for (const po of input.purchaseOrders) {
    if (po.status === 'BILLED' || po.status === 'DELETED') continue;
    out.push({ id: po.id, kind: 'PO', contactId: po.contactId, status: po.status, total: po.total, amountDue: po.total, dueDate: po.expectedArrivalDate ?? po.deliveryDate });
  }
  return out;
}
