/**
 * Opening cash (spec 2.2 CashPositionResponse; docs/forecast.md#opening-cash).
 * - ledgerReconciledTotal: the plain sum of the reconciled balances of the
 *   organisation's RECONCILED accounts (balanceSource RECONCILED: no feed
 *   statement known), exactly as the spec words it; accounts read from a
 *   statement are not part of it (their statement balance counts in
 *   effectiveStartingCash, so it shows as drift).
 * - Without an override (source ledger_reconciled), each account contributes
 *   its statement balance when a feed statement is known (balanceSource
 *   STATEMENT), else its reconciled balance plus the net of its AUTHORISED
 *   unreconciled payments and bank transactions dated up to today: money that
 *   has moved but is not reconciled yet. The auto-detected adjustment is
 *   effectiveStartingCash - ledgerReconciledTotal.
 * - With the operator's override (source manual): the override amount plus
 *   the net of the movements dated after the day it was set; the adjustment
 *   is that net.
 */
import { canonical, D, dec } from '../money.js';
import type { BankAccountBalance, CashOverride, CashPosition } from './types.js';

export function cashPosition(input: {
  asOf: string;
  currency: string;
  bankAccounts: readonly BankAccountBalance[];
  override: CashOverride | null;
}): CashPosition {
  let reconciled = new D(0);
  let effective = new D(0);
  const accounts = input.bankAccounts.map((a) => {
    const rec = dec(a.reconciledBalance);
    const statementKnown = a.statementBalance !== null;
    const own = statementKnown ? dec(a.statementBalance) : rec.plus(dec(a.unreconciledNet));
    if (!statementKnown) reconciled = reconciled.plus(rec);
    effective = effective.plus(own);
    return {
      id: a.id,
      name: a.name,
      currency: a.currency,
      reconciledBalance: canonical(rec),
      statementBalance: canonical(statementKnown ? dec(a.statementBalance) : rec.plus(dec(a.unreconciledNet))),
      balanceSource: statementKnown ? ('STATEMENT' as const) : ('RECONCILED' as const),
      effectiveBalance: canonical(own),
    };
  });
  if (input.override) {
    const base = dec(input.override.amount);
    const since = dec(input.override.movementsSince);
    const eff = base.plus(since);
    return {
      asOfDate: input.asOf,
      startingCash: canonical(eff),
      source: 'manual',
      ledgerReconciledTotal: canonical(reconciled),
      effectiveStartingCash: canonical(eff),
      adjustment: canonical(since),
      currency: input.currency,
      accounts,
    };
  }
  return {
    asOfDate: input.asOf,
    startingCash: canonical(effective),
    source: 'ledger_reconciled',
    ledgerReconciledTotal: canonical(reconciled),
    effectiveStartingCash: canonical(effective),
    adjustment: canonical(effective.minus(reconciled)),
    currency: input.currency,
    accounts,
  };
}
