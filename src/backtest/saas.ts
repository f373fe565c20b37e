/**
 * A synthetic subscription business (software as a service): a business
 * unlike the demo's, the other synthetic ledger's and the shop's, to replay
 * the forecast on (bench/bands.ts). Each customer is invoiced on the day of
 * the month it signed up (monthly plans) or once a year (annual plans, a
 * fifth of them), charged by card on the day (a failed charge is retried
 * and paid days later, now and then never), and leaves at a steady rate; new
 * customers sign up at a rate that grows. Its costs: hosting billed monthly
 * (growing with its customers), wages monthly from the bank, a few
 * contractors invoicing now and then on 14 days, software subscriptions by
 * card, VAT quarterly.
 *
 * Rows are written straight into the store (no importer), one bank account.
 */
import type { SyntheticLedger, SyntheticOptions } from './synthetic.js';
import { addAccounts, addBankTransaction, addContact, addDocument, finish, newGen, type Gen } from './synthetic.js';
import { addMonths, dayOfMonth, isoWeekday, monthOf } from '../domain/forecast/days.js';

const PLANS = [2_900, 9_900, 29_900];

export function saasLedger(orgId: string, opts: SyntheticOptions): SyntheticLedger {
  const g = newGen(orgId, opts);
  addAccounts(g);
  g.cashMoves.push({ day: g.start - 1, cents: 30_000_000 });
  const active = addSubscribers(g);
  addCosts(g, active);
  return finish(g);
}

/** The subscribers: their invoices and card payments; returns the number of active subscribers per day (from the start). */
function addSubscribers(g: Gen): number[] {
  const { rng, start, asOf } = g;
  const active = new Array<number>(asOf - start + 1).fill(0);
  let i = 0;
  const subscribe = (from: number) => {
    const cid = addContact(g, `Subscriber ${++i}`, true);
    const annual = rng.chance(0.2);
    const plan = PLANS[rng.chance(0.6) ? 0 : rng.chance(0.75) ? 1 : 2]!;
    const cents = annual ? plan * 10 : plan;
    // Leaves after a geometric number of months (3% a month; annual plans renew 80% of the time).
    const dom = dayOfMonth(from);
    let until = asOf + 1;
    for (let k = 0, d = from; d <= asOf; k++) {
      const months = annual ? 12 : 1;
      const next = addMonths(from, (k + 1) * months, dom);
      const failed = rng.chance(0.06);
      const delay = failed ? (rng.chance(0.15) ? null : rng.int(2, 12)) : 0;
      addDocument(g, 'AR', cid, d, 0, cents, '200', { delays: delay === null ? null : [delay] });
      if (rng.chance(annual ? 0.2 : 0.03)) {
        until = next;
        break;
      }
      d = next;
    }
    for (let d = from; d < Math.min(until, asOf + 1); d++) active[d - start]!++;
    g.out.habits.set(cid, { habit: 'prompt', meanDelay: 0 });
  };
  // The subscribers it had when the books start: their renewal days spread over the first month.
  for (let k = 0; k < 120; k++) subscribe(start + rng.int(0, 29));
  for (let d = start + 1; d <= asOf; d++) {
    // Sign-ups: about 0.6 a day at first, growing 40% a year, fewer at weekends.
    const rate = 0.6 * (1 + (0.4 * (d - start)) / 365) * (isoWeekday(d) >= 6 ? 0.4 : 1.2);
    let n = 0;
    for (let p = Math.exp(-rate), u = rng.next(), c = p; u > c; ) {
      n++;
      p *= rate / n;
      c += p;
    }
    for (let j = 0; j < n; j++) subscribe(d);
  }
  return active;
}

/** Hosting monthly (on 14 days, growing with the subscribers), wages on the 28th, contractors now and then, software by card, VAT quarterly. */
function addCosts(g: Gen, active: number[]): void {
  const { rng, start, asOf } = g;
  const cloud = addContact(g, 'Cloud Hosting Inc', false);
  const payroll = addContact(g, 'Payroll', false);
  const taxOffice = addContact(g, 'Tax Office', false);
  const contractors = Array.from({ length: 4 }, (_, k) => addContact(g, `Contractor ${k + 1}`, false));
  let staff = 4;
  for (let d = start; d <= asOf; d++) {
    const dom = dayOfMonth(d);
    const month = monthOf(d);
    const users = active[d - start]!;
    if (dom === 3) addDocument(g, 'AP', cloud, d, 14, Math.round(40_000 + users * 450 * Math.exp(rng.normal(0, 0.05))), '310', { delays: [0] });
    if (dom === 28) {
      // A hire every few months as the business grows.
      if (users > staff * 90) staff++;
      addBankTransaction(g, d, -staff * 520_000, payroll, '477', 'Salaries');
    }
    if (dom === 10 && month % 3 === 0) addBankTransaction(g, d, -Math.round(users * 9_000 * 3 * 0.2 * 0.5), taxOffice, '820', 'VAT return');
    for (const c of contractors) if (rng.chance(1 / 90)) addDocument(g, 'AP', c, d, 14, rng.int(150_000, 900_000), '429', { delays: [rng.int(0, 5)] });
    if (rng.chance(1 / 5)) addBankTransaction(g, d, -rng.int(1_000, 40_000), null, '485', `Card ${rng.int(100, 999)} software`);
  }
}
