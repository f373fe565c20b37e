/**
 * Money that moves through the bank without an invoice or bill: the
 * director's loan and drawings, payroll (with PAYG withheld and the super
 * guarantee accrued on pay day), the BAS and super paid quarterly, bank fees,
 * interest, and transfers between the business's own accounts.
 */
import type { Account } from './accounts.js';
import { addContact, moveBank, reconciledBy, type DemoContext, type Party } from './context.js';
import { amt, DAY_MS, msDate, msStamp } from './format.js';

/** A spend or receive money transaction; a transfer's receiving side is not posted (`post` false). */
export function addBankTxn(
  ctx: DemoContext,
  acc: Account,
  type: string,
  day: number,
  who: Party | null,
  code: string,
  cents: number,
  desc: string,
  post = true,
  sourceType?: string,
): void {
  const id = ctx.rng.guid();
  const tax = 0; // wages, drawings, fees, interest and transfers carry no GST
  const total = cents + tax;
  const receive = type.startsWith('RECEIVE');
  ctx.bankTxns.push({
    BankTransactionID: id,
    Type: type,
    ...(who ? { Contact: { ContactID: who.ContactID, Name: who.Name } } : {}),
    BankAccount: { AccountID: acc.AccountID, Code: acc.Code, Name: acc.Name },
    Date: msDate(day),
    Status: 'AUTHORISED',
    IsReconciled: reconciledBy(ctx, day),
    Reference: desc,
    CurrencyCode: 'AUD',
    LineAmountTypes: 'Exclusive',
    LineItems: [{ Description: desc, Quantity: 1, UnitAmount: amt(cents), LineAmount: amt(cents), TaxAmount: amt(tax), AccountCode: code }],
    SubTotal: amt(cents),
    TotalTax: amt(tax),
    Total: amt(total),
    UpdatedDateUTC: msStamp(day, 9),
  });
  const sign = receive ? 1 : -1;
  moveBank(ctx, acc, day, sign * total, type.endsWith('TRANSFER'));
  // A transfer is two bank transactions but one journal.
  if (!post) return;
  ctx.journals.push({ day, sourceId: id, sourceType: sourceType ?? (receive ? 'CASHREC' : 'CASHPAID'), lines: [{ code: acc.Code, net: sign * total }, { code, net: -sign * cents }, ...(tax ? [{ code: '820', net: -sign * tax }] : [])] });
}

/** Australian BAS quarters of the financial year: Q1 Jul-Sep, Q2 Oct-Dec, Q3 Jan-Mar, Q4 Apr-Jun (with the year). */
const quarterOf = (day: number) => {
  const dt = new Date(day * DAY_MS);
  const m = dt.getUTCMonth();
  const fy = m >= 6 ? dt.getUTCFullYear() + 1 : dt.getUTCFullYear();
  return `FY${fy}-Q${m >= 6 ? Math.floor((m - 6) / 3) + 1 : Math.floor((m + 6) / 3) + 1}`;
};

const EMPLOYEE_NAMES = ['Mia Chen', 'Liam Walker', 'Ava Nguyen', 'Noah Patel', 'Zoe Murphy', 'Jack Rossi'];

/** Who the bank movements are with, and what payroll has withheld and accrued by quarter. */
interface Payroll {
  employees: Party[];
  ato: Party;
  superFund: Party;
  director: Party;
  salaries: number[];
  paygByQuarter: Map<string, number>;
  superByQuarter: Map<string, number>;
}

/** The employees, the director and the bank-only movements of the three years; returns who is sensitive. */
export function addBankMovements(ctx: DemoContext): { employees: Party[]; director: Party } {
  const { rng, start, asOf } = ctx;
  // Six names: a scale above about 1.08 would want more than there are, and fails.
  const employees = Array.from({ length: Math.max(3, Math.round(6 * ctx.scale)) }, (_, i) => addContact(ctx, EMPLOYEE_NAMES[i]!, {}, start));
  const ato = addContact(ctx, 'Australian Taxation Office', { supplier: true }, start);
  const superFund = addContact(ctx, 'AustralianSuper (clearing house)', { supplier: true }, start);
  const director = addContact(ctx, 'Jane Hart (Director)', {}, start);
  const salaries = employees.map(() => rng.int(210_000, 340_000));
  const p: Payroll = { employees, ato, superFund, director, salaries, paygByQuarter: new Map(), superByQuarter: new Map() };
  addBankTxn(ctx, ctx.cheque, 'RECEIVE', start + 3, director, '880', 2_000_000, "Director's loan");
  for (let d = start; d <= asOf; d++) {
    const dom = new Date(d * DAY_MS).getUTCDate();
    if ((d - start) % 14 === 4) payDay(ctx, p, d);
    if (dom === 28) quarterlyPayments(ctx, p, d);
    if (dom === 15) addBankTxn(ctx, ctx.cheque, 'SPEND', d, director, '880', ctx.sized(300_000), "Director's drawings");
    if (dom === 28) monthEnd(ctx, d);
  }
  ctx.progress('bank', 1, 1);
  return { employees, director };
}

function payDay(ctx: DemoContext, p: Payroll, d: number): void {
  p.employees.forEach((e, i) => addBankTxn(ctx, ctx.cheque, 'SPEND', d, e, '477', p.salaries[i]!, 'Fortnightly pay'));
  // On pay day: PAYG withheld from the gross (paid to the ATO with the BAS) and the super guarantee (paid quarterly).
  const net = p.salaries.reduce((a, c) => a + c, 0);
  const payg = Math.round(net * 0.25);
  const sg = Math.round((net + payg) * 0.115);
  ctx.journals.push({ day: d, sourceId: ctx.rng.guid(), sourceType: 'MANJOURNAL', lines: [{ code: '477', net: payg }, { code: '825', net: -payg }] });
  ctx.journals.push({ day: d, sourceId: ctx.rng.guid(), sourceType: 'MANJOURNAL', lines: [{ code: '478', net: sg }, { code: '826', net: -sg }] });
  p.paygByQuarter.set(quarterOf(d), (p.paygByQuarter.get(quarterOf(d)) ?? 0) + payg);
  p.superByQuarter.set(quarterOf(d), (p.superByQuarter.get(quarterOf(d)) ?? 0) + sg);
}

// The BAS (GST and PAYG withheld of the quarter) on 28 Oct, 28 Feb, 28 Apr, 28 Jul; super on 28 Jan, Apr, Jul, Oct.
function quarterlyPayments(ctx: DemoContext, p: Payroll, d: number): void {
  const { cheque } = ctx;
  const month = new Date(d * DAY_MS).getUTCMonth();
  const basFor = { 9: 'Q3', 1: 'Q4', 3: 'Q1', 6: 'Q2' } as Record<number, string>;
  if (basFor[month]) {
    const q = quarterOf(d - (month === 1 ? 59 : 28));
    const gst = -ctx.journals.filter((j) => j.sourceType !== 'BAS' && quarterOf(j.day) === q).flatMap((j) => j.lines).filter((l) => l.code === '820').reduce((a, l) => a + l.net, 0);
    if (gst > 0) addBankTxn(ctx, cheque, 'SPEND', d, p.ato, '820', gst, `BAS ${q}: GST`, true, 'BAS');
    else if (gst < 0) addBankTxn(ctx, cheque, 'RECEIVE', d, p.ato, '820', -gst, `BAS ${q}: GST refund`, true, 'BAS');
    const payg = p.paygByQuarter.get(q) ?? 0;
    if (payg > 0) addBankTxn(ctx, cheque, 'SPEND', d, p.ato, '825', payg, `BAS ${q}: PAYG withheld`, true, 'BAS');
  }
  if ([0, 3, 6, 9].includes(month)) {
    const q = quarterOf(d - 28);
    const sg = p.superByQuarter.get(q) ?? 0;
    if (sg > 0) addBankTxn(ctx, cheque, 'SPEND', d, p.superFund, '826', sg, `Super guarantee ${q}`);
  }
}

/** The 28th: the account fee, savings interest, and the transfers. */
function monthEnd(ctx: DemoContext, d: number): void {
  const { cheque, savings, card } = ctx;
  addBankTxn(ctx, cheque, 'SPEND', d, null, '404', 2_500, 'Monthly account fee');
  addBankTxn(ctx, savings, 'RECEIVE', d, null, '270', ctx.rng.int(4_000, 9_000), 'Interest');
  // Transfers: savings top-up, and the credit card repayment.
  const transfer = (from: Account, to: Account, cents: number, desc: string) => {
    if (cents <= 0) return;
    addBankTxn(ctx, from, 'SPEND-TRANSFER', d, null, to.Code, cents, desc);
    addBankTxn(ctx, to, 'RECEIVE-TRANSFER', d, null, from.Code, cents, desc, false);
  };
  transfer(cheque, savings, ctx.sized(200_000), 'Transfer to savings');
  const cardOwing = -ctx.bankMoves.get(card.AccountID)!.reduce((a, m) => a + (m.day <= d ? m.cents : 0), 0);
  transfer(cheque, card, cardOwing, 'Credit card repayment');
}
