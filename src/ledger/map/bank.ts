/** The bank: bank transactions (GET /BankTransactions) and bank balances (Reports/BankSummary). */
import type { AccountRow, BankBalanceRow, BankTransactionRow, MappedBankSummary, MappedBankTransaction } from '../../store/rows.js';
import { XeroValidationError, parseWith } from '../xero/errors.js';
import { XeroBankSummary, XeroBankTransaction, type XeroReportRowT } from '../xero/schemas.js';
import { decimalOf, optDecimalOf, reportAmount, textOf } from '../xero/fields.js';
import { jsonTypeOf } from '../xero/json.js';
import { contactStub, currencyOf, type MapContext } from './shared.js';

export function mapBankTransaction(raw: unknown, ctx: MapContext): MappedBankTransaction {
  const t = parseWith(XeroBankTransaction, raw);
  const currency = currencyOf(t.CurrencyCode, ctx);
  const lines =
    t.LineItems && t.LineItems.length > 0
      ? t.LineItems.map((li) => ({
          description: li.Description ?? null,
          quantity: optDecimalOf(li.Quantity),
          unitAmount: optDecimalOf(li.UnitAmount),
          lineAmount: optDecimalOf(li.LineAmount),
          taxAmount: optDecimalOf(li.TaxAmount),
          accountCode: textOf(li.AccountCode),
        }))
      : undefined;
  const transaction: BankTransactionRow = {
    orgId: ctx.orgId,
    id: t.BankTransactionID,
    type: t.Type,
    contactId: t.Contact?.ContactID ?? null,
    bankAccountId: t.BankAccount.AccountID,
    date: t.Date,
    status: t.Status,
    isReconciled: t.IsReconciled ?? undefined,
    reference: t.Reference ?? null,
    currency,
    subTotal: decimalOf(t.SubTotal),
    totalTax: decimalOf(t.TotalTax),
    total: decimalOf(t.Total),
    lines,
    ledgerUpdatedAt: t.UpdatedDateUTC ?? null,
    lastSyncedAt: ctx.now,
  };
  const isReceive = t.Type.startsWith('RECEIVE');
  const bankName = t.BankAccount.Name;
  return {
    transaction,
    contact: contactStub(t.Contact, isReceive ? 'customer' : 'supplier', ctx),
    account:
      bankName !== undefined && bankName !== null && bankName !== ''
        ? {
            orgId: ctx.orgId,
            id: t.BankAccount.AccountID,
            code: textOf(t.BankAccount.Code),
            name: bankName,
            type: 'BANK',
            class: 'ASSET',
            currency,
            lastSyncedAt: ctx.now,
          }
        : null,
  };
}

const ACCOUNT_ATTRIBUTE_IDS = new Set(['accountid', 'account']);

/**
 * The Reports/BankSummary body: one balance per bank-account row. The row's
 * account id is in its cells' Attributes (Id accountID or account); the
 * closing balance (the column headed "Closing Balance", else the last cell)
 * is the ledger's reconciled balance. statement_balance is not known here.
 */
export function mapBankSummary(raw: unknown, ctx: MapContext): MappedBankSummary {
  const body = parseWith(XeroBankSummary, raw);
  const balances = new Map<string, BankBalanceRow>();
  const accounts = new Map<string, AccountRow>();
  body.Reports.forEach((report, r) => {
    // The ledger's own time of the report, never later than ours (a ledger clock ahead of ours is not a time in the future).
    const syncedAt = report.UpdatedDateUTC && report.UpdatedDateUTC < ctx.now ? report.UpdatedDateUTC : ctx.now;
    let closingColumn: number | undefined;
    const walk = (rows: XeroReportRowT[] | null | undefined, path: Array<string | number>) => {
      (rows ?? []).forEach((row, i) => {
        const here = [...path, 'Rows', i];
        const type = (row.RowType ?? '').toLowerCase();
        const cells = row.Cells ?? [];
        if (type === 'header') {
          const idx = cells.findIndex((c) => typeof c.Value === 'string' && c.Value.trim().toLowerCase() === 'closing balance');
          if (idx >= 0) closingColumn = idx;
        } else if (type === 'section') {
          walk(row.Rows, here);
        } else if (type === 'row') {
          let accountId: string | undefined;
          for (const cell of cells) {
            for (const attr of cell.Attributes ?? []) {
              if (attr.Id && ACCOUNT_ATTRIBUTE_IDS.has(attr.Id.toLowerCase()) && attr.Value) {
                accountId ??= attr.Value;
              }
            }
          }
          if (accountId === undefined) {
            throw new XeroValidationError(
              formatReportPath([...here, 'Cells']),
              'no account id (an attribute accountID) in the row',
            );
          }
          const col = closingColumn ?? cells.length - 1;
          const cellPath = [...here, 'Cells', col, 'Value'];
          if (col < 0 || col >= cells.length) throw new XeroValidationError(formatReportPath(cellPath), 'required');
          const amount = parseWith(reportAmount, cells[col]!.Value, cellPath);
          balances.set(accountId, {
            orgId: ctx.orgId,
            accountId,
            reconciledBalance: amount,
            statementBalance: null,
            balanceSyncedAt: syncedAt,
          });
          const name = cells[0]?.Value;
          if (typeof name === 'string' && name.trim() !== '' && jsonTypeOf(name) === 'string') {
            accounts.set(accountId, {
              orgId: ctx.orgId,
              id: accountId,
              name,
              type: 'BANK',
              class: 'ASSET',
              lastSyncedAt: ctx.now,
            });
          }
        }
      });
    };
    walk(report.Rows, ['Reports', r]);
  });
  return { balances: [...balances.values()], accounts: [...accounts.values()] };
}

function formatReportPath(path: Array<string | number>): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out ? `.${seg}` : seg;
  return out;
}
