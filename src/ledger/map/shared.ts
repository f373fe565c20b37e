/**
 * What every mapping of a Xero record shares: the context of a mapping (the
 * organisation, the time, the base currency), cash statuses, the source of a
 * ledger type, money (discounts), dates (sort_date), currencies and the
 * contact stub a document names.
 */
import type { ContactRow } from '../../store/rows.js';
import { canonical, dec } from '../../domain/money.js';
import { XeroValidationError } from '../xero/errors.js';
import { textOf } from '../xero/fields.js';

export interface MapContext {
  orgId: string;
  /** Stamped on every row as last_synced_at. */
  now: Date;
  /** Currency of records that name none (Xero omits it for the base currency); default 'AUD'. */
  baseCurrency?: string | undefined;
}

export type CashStatus = 'FORECAST' | 'ACTUAL' | 'CANCELLED';

/** The internal cash-flow label of a ledger status. */
export function cashStatus(ledgerStatus: string): CashStatus {
  switch (ledgerStatus) {
    case 'PAID':
      return 'ACTUAL';
    case 'VOIDED':
    case 'DELETED':
      return 'CANCELLED';
    default:
      return 'FORECAST';
  }
}

export const SOURCE_OF_TYPE = {
  ACCREC: 'LEDGER_INVOICE',
  ACCPAY: 'LEDGER_BILL',
  ACCRECCREDIT: 'LEDGER_CREDIT_NOTE',
  ACCPAYCREDIT: 'LEDGER_CREDIT_NOTE',
  'RECEIVE-OVERPAYMENT': 'LEDGER_OVERPAYMENT',
  'SPEND-OVERPAYMENT': 'LEDGER_OVERPAYMENT',
  'RECEIVE-PREPAYMENT': 'LEDGER_PREPAYMENT',
  'SPEND-PREPAYMENT': 'LEDGER_PREPAYMENT',
} as const;

/** Xero's DiscountRate is a percentage (50 = 50% off); the store keeps the fraction (0.5). */
export function discountFraction(percent: string): string {
  return canonical(dec(percent).div(100));
}

function utcDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** sort_date: the first of the given dates, else the UTC day of the last update. */
export function sortDateOf(fields: string, updated: Date | undefined, ...dates: Array<string | undefined>): string {
  for (const d of dates) if (d) return d;
  if (updated) return utcDay(updated);
  throw new XeroValidationError('Date', `required (the record has no ${fields} and no UpdatedDateUTC)`);
}

export function currencyOf(code: string | null | undefined, ctx: MapContext): string {
  return (textOf(code) ?? ctx.baseCurrency ?? 'AUD').toUpperCase();
}

export function contactStub(
  ref: { ContactID: string; Name?: string | null | undefined } | null | undefined,
  role: 'customer' | 'supplier' | null,
  ctx: MapContext,
): ContactRow | null {
  if (!ref || ref.Name === undefined || ref.Name === null) return null;
  return {
    orgId: ctx.orgId,
    id: ref.ContactID,
    name: ref.Name,
    isCustomer: role === 'customer',
    isSupplier: role === 'supplier',
    lastSyncedAt: ctx.now,
  };
}

export const isAbsent = (v: unknown): v is null | undefined => v === null || v === undefined;
