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
import type { BankAccountBalance, CashOverride, CashPosition, CashPositionAccount } from './types.js';

/**
 * The one definition of an account's balances (decisions.md "Bank balances";
 * docs/balances.md), used by /bank-accounts, /cash-position and the
 * forecast's opening cash alike:
 * - reconciledBalance: the ledger's balance of reconciled transactions;
 * - statementBalance: the bank statement's balance when a feed statement is
 *   known, else the reconciled balance plus the net of the AUTHORISED
 *   unreconciled payments and bank transactions dated up to the day (money
 *   that has moved in the ledger but is not matched to the statement yet);
 * - balanceSource: STATEMENT or RECONCILED, which of the two the forecast
 *   starts from, with `basis` saying why and by how much it moved.
 * The forecast starts each account from its statementBalance: under
 * STATEMENT it is the bank's own figure; under RECONCILED it is the
 * reconciled balance adjusted by the unreconciled movements.
 */
export function accountBalances(a: BankAccountBalance): Omit<CashPositionAccount, 'id' | 'name' | 'currency'> {
  const rec = dec(a.reconciledBalance);
  if (a.statementBalance !== null) {
    const stmt = dec(a.statementBalance);
    return {
      reconciledBalance: canonical(rec),
      statementBalance: canonical(stmt),
      balanceSource: 'STATEMENT',
      effectiveBalance: canonical(stmt),
      basis: `The bank feed's statement balance (${canonical(stmt.minus(rec))} from the reconciled balance): the bank's own figure is the best start.`,
    };
  }
  const unrec = dec(a.unreconciledNet);
  const stmt = rec.plus(unrec);
  return {
    reconciledBalance: canonical(rec),
    statementBalance: canonical(stmt),
    balanceSource: 'RECONCILED',
    effectiveBalance: canonical(stmt),
    basis: unrec.isZero()
      ? 'No bank statement is known and nothing is unreconciled: the reconciled balance.'
      : `No bank statement is known: the reconciled balance adjusted by ${canonical(unrec)} of unreconciled payments and bank transactions dated up to today.`,
  };
}

export function cashPosition(input: {
  asOf: string;
  currency: string;
  bankAccounts: readonly BankAccountBalance[];
  override: CashOverride | null;
}): CashPosition {
  let reconciled = new D(0);
  let effective = new D(0);
  const accounts = input.bankAccounts.map((a) => {
    const b = accountBalances(a);
    if (b.balanceSource === 'RECONCILED') reconciled = reconciled.plus(b.reconciledBalance);
    effective = effective.plus(b.effectiveBalance);
    return { id: a.id, name: a.name, currency: a.currency, ...b };
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
