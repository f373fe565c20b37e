/**
 * Credits and schedules: a customer's overpayment and another's prepayment
 * (money received ahead of invoices), and the rent as a repeating bill.
 * Drawn last, so that the rest of the generated books do not depend on them.
 */
import { addAccount } from './accounts.js';
import { addBankTxn } from './bank.js';
import type { DemoContext, Party, XeroRecord } from './context.js';
import { amt, DAY_MS, msDate, msStamp } from './format.js';

export function addCreditsAndSchedules(ctx: DemoContext, landlord: Party): void {
  addAccount(ctx, '835', 'Income in Advance', 'CURRLIAB', 'LIABILITY', { TaxType: 'BASEXCLUDED' });
  // A customer paid more than it owed (kept as a credit on Accounts Receivable: Xero's overpayment), and
  // another paid a deposit before its next order (a prepayment, posted to Income in Advance).
  const openAud = ctx.invoices
    .filter((i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED' && (i.CurrencyCode ?? 'AUD') === 'AUD' && Number(i.AmountDue) > 0)
    .sort((a, b) => String(a.InvoiceID).localeCompare(String(b.InvoiceID)));
  const opInvoice = openAud[0];
  addCredit(ctx, 'Overpayment', opInvoice, ctx.asOf - 20, Math.round(Number(opInvoice?.AmountDue ?? 0) * 100 * 0.35), '610');
  const ppInvoice = openAud.find((i) => (i.Contact as { ContactID: string }).ContactID !== (opInvoice?.Contact as { ContactID: string } | undefined)?.ContactID);
  addCredit(ctx, 'Prepayment', ppInvoice, ctx.asOf - 9, ctx.sized(150_000), '835');
  addRepeatingRent(ctx, landlord);
  ctx.progress('credits and schedules', 1, 1);
}

/** Money received from the customer of `inv` ahead of what it owes, left as a credit to allocate. */
function addCredit(ctx: DemoContext, kind: 'Overpayment' | 'Prepayment', inv: XeroRecord | undefined, day: number, cents: number, code: string): void {
  if (!inv || cents <= 0) return;
  const who = inv.Contact as Party;
  const id = ctx.rng.guid();
  const type = `RECEIVE-${kind.toUpperCase()}`;
  addBankTxn(ctx, ctx.cheque, type, day, who, code, cents, `${kind} ${who.Name}`, true, kind === 'Overpayment' ? 'AROVERPAYMENT' : 'ARPREPAYMENT');
  (kind === 'Overpayment' ? ctx.overpayments : ctx.prepayments).push({
    [`${kind}ID`]: id,
    Type: type,
    Contact: { ContactID: who.ContactID, Name: who.Name },
    Date: msDate(day),
    Status: 'AUTHORISED',
    LineAmountTypes: 'NoTax',
    LineItems: [{ Description: `${kind} received`, Quantity: 1, UnitAmount: amt(cents), LineAmount: amt(cents), TaxAmount: 0, AccountCode: code }],
    SubTotal: amt(cents),
    TotalTax: 0,
    Total: amt(cents),
    RemainingCredit: amt(cents),
    Allocations: [],
    Payments: [],
    CurrencyCode: 'AUD',
    CurrencyRate: 1,
    UpdatedDateUTC: msStamp(day, 10),
  });
}

// The rent is a repeating bill in the ledger: its next documents are known, not guessed.
function addRepeatingRent(ctx: DemoContext, landlord: Party): void {
  const rentNow = ctx.sized(420_000);
  const firstOfNext = (() => {
    const dt = new Date(ctx.asOf * DAY_MS);
    return Math.floor(Date.UTC(dt.getUTCFullYear(), dt.getUTCMonth() + 1, 1) / DAY_MS);
  })();
  const firstRent = (() => {
    const dt = new Date(ctx.start * DAY_MS);
    return dt.getUTCDate() === 1 ? ctx.start : Math.floor(Date.UTC(dt.getUTCFullYear(), dt.getUTCMonth() + 1, 1) / DAY_MS);
  })();
  ctx.repeatingInvoices.push({
    RepeatingInvoiceID: ctx.rng.guid(),
    Type: 'ACCPAY',
    Reference: 'Rent',
    Contact: { ContactID: landlord.ContactID, Name: landlord.Name },
    Status: 'AUTHORISED',
    Schedule: {
      Period: 1,
      Unit: 'MONTHLY',
      DueDate: 0,
      DueDateType: 'DAYSAFTERBILLDATE',
      StartDate: msDate(firstRent),
      NextScheduledDate: msDate(firstOfNext),
    },
    LineAmountTypes: 'Exclusive',
    LineItems: [{ Description: 'Rent [Month Year]', Quantity: 1, UnitAmount: amt(rentNow), LineAmount: amt(rentNow), TaxAmount: amt(Math.round(rentNow / 10)), AccountCode: '469', TaxType: 'INPUT' }],
    SubTotal: amt(rentNow),
    TotalTax: amt(Math.round(rentNow / 10)),
    Total: amt(rentNow + Math.round(rentNow / 10)),
    CurrencyCode: 'AUD',
  });
}
