/**
 * A synthetic shop: a business unlike the demo's and unlike the other
 * synthetic ledger, to replay the forecast on (bench/bands.ts). A café that
 * sells over the counter six days a week: most of its money arrives as the
 * card processor's next-business-day payouts and a weekly cash deposit (bank
 * transactions, no invoices), with a strong weekday pattern, two seasonal
 * peaks (spring and early autumn), a fortnight's closure over Christmas and a
 * business that grows in its first year and shrinks after. A handful of
 * catering customers are invoiced on 14 days. It pays its produce supplier
 * weekly and its dairy every Thursday, its wages every other Thursday from
 * the bank (a fortnightly cadence, not a monthly one), rent on the 1st, VAT a
 * month after each quarter and insurance once a year; its cash runs close to
 * the line in the quiet months.
 *
 * Rows are written straight into the store (no importer), one bank account.
 * Known behaviour, for tests: `habits` holds the catering customers' habits.
 */
import type { SyntheticLedger, SyntheticOptions } from './synthetic.js';
import { addAccounts, addBankTransaction, addContact, addDocument, finish, newGen, type Gen } from './synthetic.js';
import { dayOfMonth, isoWeekday, monthOf } from '../domain/forecast/days.js';

/** Sales by weekday, Sunday first: closed on Sundays. */
const WEEKDAY = [0, 0.7, 0.8, 0.9, 1.0, 1.3, 1.6];
/** 0 Sunday ... 6 Saturday (WEEKDAY's index). */
const weekday = (day: number) => isoWeekday(day) % 7;

/** Two peaks: April and September; quiet in January and the height of summer. */
const shopSeason = (day: number) => {
  const m = monthOf(day) + dayOfMonth(day) / 31;
  return 1 + 0.22 * Math.cos(((m - 3.5) / 12) * 2 * Math.PI) + 0.12 * Math.cos(((m - 3.5) / 6) * 2 * Math.PI);
};

/** Closed from 24 December to 6 January. */
const closed = (day: number) => weekday(day) === 0 || (monthOf(day) === 11 && dayOfMonth(day) >= 24) || (monthOf(day) === 0 && dayOfMonth(day) <= 6);

/** Grows in its first year, shrinks after (in years since the start). */
const trend = (g: Gen, day: number) => {
  const t = (day - g.start) / 365;
  return 1 + 0.12 * t - 0.06 * t * t;
};

export function shopLedger(orgId: string, opts: SyntheticOptions): SyntheticLedger {
  const g = newGen(orgId, opts);
  addAccounts(g);
  g.cashMoves.push({ day: g.start - 1, cents: 3_000_000 });
  const sales = addTakings(g);
  addCatering(g);
  addSupplies(g, sales);
  addStaffAndOverheads(g, sales);
  return finish(g);
}

/** Each day's takings (cents by day), paid in by the card processor and the Monday cash deposit. */
function addTakings(g: Gen): Map<number, number> {
  const { rng, start, asOf } = g;
  const processor = addContact(g, 'Card Settlements Ltd', false);
  const sales = new Map<number, number>();
  let weekShock = 1;
  let cardOwed = 0;
  let cashOwed = 0;
  for (let d = start; d <= asOf; d++) {
    const wd = weekday(d);
    if (wd === 1) weekShock = Math.max(0.6, rng.normal(1, 0.1));
    // Payouts: each business day, everything carded since the last payout, less 1.5%.
    if (wd >= 1 && wd <= 5 && cardOwed > 0) {
      addBankTransaction(g, d, Math.round(cardOwed * 0.985), processor, '200', 'Card settlement');
      cardOwed = 0;
    }
    if (wd === 1 && cashOwed > 0) {
      addBankTransaction(g, d, cashOwed, null, '200', 'Cash deposit');
      cashOwed = 0;
    }
    if (closed(d)) continue;
    const cents = Math.round(200_000 * WEEKDAY[wd]! * shopSeason(d) * trend(g, d) * weekShock * Math.exp(rng.normal(0, 0.18)));
    sales.set(d, cents);
    const card = Math.round(cents * 0.8);
    cardOwed += card;
    cashOwed += cents - card;
  }
  return sales;
}

/** Eight catering customers, invoiced on 14 days about monthly; two of them pay late. */
function addCatering(g: Gen): void {
  const { rng, start, asOf } = g;
  for (let i = 0; i < 8; i++) {
    const cid = addContact(g, `Catering client ${i + 1}`, true);
    const late = i < 2;
    g.out.habits.set(cid, { habit: late ? 'late' : 'prompt', meanDelay: late ? 20 : 0 });
    const level = rng.int(40_000, 200_000);
    for (let d = start + rng.int(0, 60); d <= asOf; d += rng.int(20, 45)) {
      if (closed(d)) continue;
      const delay = late ? Math.round(rng.normal(20, 8)) : Math.round(rng.normal(0, 2));
      addDocument(g, 'AR', cid, d, 14, Math.round(level * Math.exp(rng.normal(0, 0.3))), '200', { delays: [delay] });
    }
  }
}

const sumSales = (sales: Map<number, number>, from: number, to: number) => {
  let s = 0;
  for (let d = from; d <= to; d++) s += sales.get(d) ?? 0;
  return s;
};

/** Produce billed every Monday for the week before (7 days), dairy every Thursday (14 days), coffee monthly (30 days). */
function addSupplies(g: Gen, sales: Map<number, number>): void {
  const { rng, start, asOf } = g;
  const produce = addContact(g, 'Fresh Produce Co', false);
  const dairy = addContact(g, 'Dairy Direct', false);
  const coffee = addContact(g, 'Bean Merchants', false);
  for (let d = start + 7; d <= asOf; d++) {
    const week = sumSales(sales, d - 7, d - 1);
    if (weekday(d) === 1 && week > 0) addDocument(g, 'AP', produce, d, 7, Math.round(week * 0.28 * Math.exp(rng.normal(0, 0.08))), '310', { delays: [rng.chance(0.2) ? 1 : 0] });
    if (weekday(d) === 4 && week > 0) addDocument(g, 'AP', dairy, d, 14, Math.round(week * 0.09 * Math.exp(rng.normal(0, 0.1))), '310', { delays: [0] });
    if (dayOfMonth(d) === 1) addDocument(g, 'AP', coffee, d, 30, Math.round(sumSales(sales, d - 30, d - 1) * 0.05), '310', { delays: [rng.int(-2, 3)] });
  }
}

/** Wages every other Thursday, rent on the 1st, VAT on the 7th of the month after each quarter, utilities quarterly, insurance each March, the owner's drawing on the 15th. */
function addStaffAndOverheads(g: Gen, sales: Map<number, number>): void {
  const { rng, start, asOf } = g;
  const payroll = addContact(g, 'Payroll', false);
  const landlord = addContact(g, 'High Street Properties', false);
  const taxOffice = addContact(g, 'Tax Office', false);
  const utility = addContact(g, 'Power & Water', false);
  const insurer = addContact(g, 'Shopkeepers Mutual', false);
  const owner = addContact(g, 'Owner', false);
  // The first Thursday on or after the start: pay day, then every 14 days.
  let payDay = start;
  while (weekday(payDay) !== 4) payDay++;
  let rent = 550_000;
  for (let d = start; d <= asOf; d++) {
    const dom = dayOfMonth(d);
    const month = monthOf(d);
    if (d === payDay) {
      addBankTransaction(g, d, -Math.round(200_000 + sumSales(sales, d - 14, d - 1) * 0.3), payroll, '477', 'Wages');
      payDay += 14;
    }
    if (dom === 1) {
      if (month === 6) rent = Math.round(rent * 1.03);
      addBankTransaction(g, d, -rent, landlord, '469', 'Rent');
    }
    if (dom === 7 && month % 3 === 0) {
      const quarter = sumSales(sales, d - 6 - 92, d - 7);
      addBankTransaction(g, d, -Math.round(quarter * 0.1), taxOffice, '820', 'VAT return');
    }
    if (dom === 10 && month % 3 === 1) addDocument(g, 'AP', utility, d, 21, Math.round(rng.normal(180_000, 25_000)), '445', { delays: [rng.int(0, 4)] });
    if (dom === 5 && month === 2) addDocument(g, 'AP', insurer, d, 30, 480_000, '429', { delays: [0] });
    if (dom === 15) addBankTransaction(g, d, -600_000, owner, '880', 'Owner drawing');
  }
}
