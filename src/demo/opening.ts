/**
 * Cash on the day, and the opening balances: set at the end, so that cash on
 * the day is the profile's weeks of outflows. Also the profile's large
 * one-off bill, sized from the same outflows.
 */
import { addBankTxn } from './bank.js';
import { addContact, moveBank, type DemoContext, type Party } from './context.js';
import { DAY_MS } from './format.js';
import { addBill } from './purchases.js';

export function addOpeningBalances(ctx: DemoContext, director: Party): void {
  const { rng, start, asOf, profile, cheque, savings } = ctx;
  const allMoves = [...ctx.bankMoves.values()].flat().filter((m) => m.day <= asOf);
  /** Average weekly money out over the last 13 weeks (transfers between own accounts aside). */
  const weeklyOut = -allMoves.filter((m) => m.day > asOf - 91 && m.cents < 0 && !m.transfer).reduce((a, m) => a + m.cents, 0) / 13;
  if (profile.lumpyBill) {
    const lb = profile.lumpyBill;
    const s = addContact(ctx, lb.supplier, { supplier: true }, asOf - 400);
    addBill(ctx, s, asOf - 6, lb.inDays + 6, [{ desc: lb.desc, code: '310', cents: Math.round(lb.weeks * weeklyOut) }], cheque, { unpaid: true, reference: 'SHIPMENT' });
  }
  // The opening balances make cash on the day the profile's weeks of outflows; savings hold a fixed reserve.
  const savingsOpening = ctx.sized(4_000_000);
  const target = Math.round(profile.cashWeeks * weeklyOut);
  let netMoves = allMoves.reduce((a, m) => a + m.cents, 0);
  // A profitable business would otherwise have started with less than nothing: its owners took the profits out
  // as quarterly dividends, so that it started with a few weeks of outflows.
  const floor = Math.round(7 * weeklyOut);
  if (target - savingsOpening - netMoves < floor) {
    const surplus = floor - (target - savingsOpening - netMoves);
    payDividends(ctx, director, surplus);
    netMoves -= surplus;
  }
  const chequeOpening = target - savingsOpening - netMoves;
  ctx.journals.push({ day: start - 1, sourceId: rng.guid(), sourceType: 'MANJOURNAL', lines: [{ code: '090', net: chequeOpening }, { code: '091', net: savingsOpening }, { code: '970', net: -(chequeOpening + savingsOpening) }] });
  moveBank(ctx, cheque, start - 1, chequeOpening);
  moveBank(ctx, savings, start - 1, savingsOpening);
}

/** `surplus` paid out in equal dividends on the 20th of Jan, Apr, Jul and Oct (the last takes the rounding). */
function payDividends(ctx: DemoContext, director: Party, surplus: number): void {
  const days: number[] = [];
  for (let d = ctx.start + 90; d <= ctx.asOf - 30; d++) {
    const dt = new Date(d * DAY_MS);
    if (dt.getUTCDate() === 20 && dt.getUTCMonth() % 3 === 0) days.push(d);
  }
  let left = surplus;
  days.forEach((d, i) => {
    const cents = i === days.length - 1 ? left : Math.round(surplus / days.length);
    left -= cents;
    addBankTxn(ctx, ctx.cheque, 'SPEND', d, director, '970', cents, 'Dividend');
  });
}
