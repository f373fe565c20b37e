/**
 * The inputs of the daily summary (docs/forecast.md#daily-summary) read in
 * the store: the week's cash movements, the AR ageing, unallocated credits,
 * pending anomalies and the number of bank accounts, aggregated in SQL where
 * the ledger is large, in the base currency.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';
import { addDays } from '../../domain/calendar.js';
import { canonical, dec } from '../../domain/money.js';
import { AGEING_BANDS, type AgeingBand, type ArAgeing, type MoneyEvent } from '../../domain/forecast/daily.js';
import { atDocumentRate, base } from './forecast-items.js';
import { ITEM_OF_PAYMENT, PAYMENT_SIGNED } from './payment-amounts.js';

/** Money that moved through bank accounts between two dates (inclusive): payments and spend/receive money, transfers excluded. */
export async function loadCashEvents(db: Db, orgId: string, from: string, to: string): Promise<MoneyEvent[]> {
  const list = await rows<{ id: string; date: string; amount: string; c: string | null; name: string | null; sens: boolean | null }>(
    db,
    sql`select x.id, x.date, x.amount, x.c, ct.name, ct.is_sensitive as sens from (
          select p.id, p.date, ${PAYMENT_SIGNED} as amount, i.contact_id as c
            from payments p ${ITEM_OF_PAYMENT} join organisations o on o.id = p.org_id
            where p.org_id = ${orgId} and p.status = 'AUTHORISED' and p.date between ${from} and ${to}
          union all
          select t.id, t.date, case when t.type like 'SPEND%' then -t.total else t.total end, t.contact_id
            from bank_transactions t
            where t.org_id = ${orgId} and t.status = 'AUTHORISED' and t.type not like '%TRANSFER' and t.date between ${from} and ${to}) x
        left join contacts ct on ct.org_id = ${orgId} and ct.id = x.c`,
  );
  return list.map((e) => ({
    id: e.id,
    date: e.date,
    amount: e.amount,
    contactId: e.c,
    contactName: e.name,
    contactSensitive: Boolean(e.sens),
  }));
}

/** Open AUTHORISED receivables (base currency) for the ageing. */
export async function loadOpenReceivables(db: Db, orgId: string): Promise<{ id: string; dueDate: string | null; issueDate: string | null; amountDue: string }[]> {
  return rows(
    db,
    sql`select i.id, i.due_date as "dueDate", i.issue_date as "issueDate", ${base('amount_due')} as "amountDue"
        from cash_items i join organisations o on o.id = i.org_id
        where i.org_id = ${orgId} and i.source = 'LEDGER_INVOICE' and i.ledger_status = 'AUTHORISED' and i.amount_due > 0`,
  );
}

export async function countBankAccounts(db: Db, orgId: string): Promise<number> {
  const [r] = await rows<{ n: number }>(db, sql`select count(*)::int8 as n from accounts where org_id = ${orgId} and type = 'BANK' and status = 'ACTIVE'`);
  return Number(r?.n ?? 0);
}

/**
 * The AR ageing of open sales invoices as at `asOf`, aggregated in the store
 * (the same bands and rules as `arAgeing` and `ageingBand` in
 * src/domain/forecast/daily.ts: days past the due date, else the issue date,
 * else none; current = not yet past due, then 1-30, 31-60, 61-90, over 90;
 * amounts still owed, in the base currency; only positive amounts due), so a
 * ledger with tens of thousands of open invoices sends five rows, not all of them.
 */
/**
 * The open AUTHORISED documents of one side still owed, each with what is
 * owed in the base currency and its ageing band as at `asOf` (days past the
 * due date, else the issue date): the one definition behind the daily
 * summary's `ar` and the aged receivables and payables.
 */
function ageingRows(orgId: string, source: 'LEDGER_INVOICE' | 'LEDGER_BILL', asOf: string, issuedBy = false) {
  const join = issuedBy ? sql`and coalesce(i.issue_date, ${asOf}::date) <= ${asOf}::date` : sql``;
  return ageingRowsIn(source, { join, orgs: sql`${orgId}`, asOf: sql`${asOf}::date` });
}

/**
 * The same rows (with their org_id) for one organisation or several:
 * `orgs` the organisation ids (a list), `asOf` the date each is aged at (a
 * value, or a column of what `join` adds; `join` may also be a further
 * condition on the document `i`).
 */
function ageingRowsIn(source: 'LEDGER_INVOICE' | 'LEDGER_BILL', scope: { join: SQL; orgs: SQL; asOf: SQL }) {
  const asOf = scope.asOf;
  return sql`select * from (
      select i.org_id, i.contact_id, i.due_date, ${base('amount_due')} as amount,
        case when ${asOf} - coalesce(i.due_date, i.issue_date, ${asOf}) > 90 then 'days90plus'
             when ${asOf} - coalesce(i.due_date, i.issue_date, ${asOf}) > 60 then 'days90'
             when ${asOf} - coalesce(i.due_date, i.issue_date, ${asOf}) > 30 then 'days60'
             when ${asOf} - coalesce(i.due_date, i.issue_date, ${asOf}) > 0 then 'days30'
             else 'current' end as band
      from cash_items i join organisations o on o.id = i.org_id ${scope.join}
      where i.org_id in (${scope.orgs}) and i.source = ${source} and i.ledger_status = 'AUTHORISED' and i.amount_due > 0) x
    where amount > 0`;
}

/**
 * Overdue receivables of several organisations, each aged as at its own
 * date, in one query: what the aged receivables' totals.overdue (and the
 * daily summary's ar less current) give for each one. Organisations owed
 * nothing overdue are absent.
 */
export async function overdueReceivables(db: Db, days: readonly { orgId: string; asOf: string }[]): Promise<Map<string, string>> {
  if (days.length === 0) return new Map();
  const values = sql.join(
    days.map((d) => sql`(${d.orgId}::text, ${d.asOf}::date)`),
    sql`, `,
  );
  const list = await rows<{ org_id: string; amount: string | null }>(
    db,
    sql`select a.org_id, sum(a.amount)::text as amount
        from (${ageingRowsIn('LEDGER_INVOICE', {
          join: sql`join (values ${values}) as d(org_id, as_of) on d.org_id = i.org_id`,
          orgs: sql.join(days.map((d) => sql`${d.orgId}`), sql`, `),
          asOf: sql`d.as_of`,
        })}) a
        where a.band <> 'current' group by a.org_id`,
  );
  return new Map(list.map((r) => [r.org_id, canonical(r.amount ?? '0')]));
}

export async function arAgeingInStore(db: Db, orgId: string, asOf: string): Promise<ArAgeing> {
  const found = await rows<{ band: AgeingBand; n: number | string; amount: string | null }>(
    db,
    sql`select band, count(*)::int8 as n, sum(amount) as amount from (${ageingRows(orgId, 'LEDGER_INVOICE', asOf)}) a group by band`,
  );
  const by = new Map(found.map((r) => [r.band, r]));
  const bucket = (band: AgeingBand) => ({ count: Number(by.get(band)?.n ?? 0), amount: canonical(by.get(band)?.amount ?? '0') });
  const total = found.reduce((t, r) => ({ n: t.n + Number(r.n), amount: t.amount.plus(dec(r.amount ?? '0')) }), { n: 0, amount: dec('0') });
  return {
    ...(Object.fromEntries(AGEING_BANDS.map((b) => [b, bucket(b)])) as Record<AgeingBand, { count: number; amount: string }>),
    total: { count: total.n, amount: canonical(total.amount) },
  };
}

/** The credits of each side: credit notes and overpayments sit in the AR/AP account; prepayments in the account their lines name. */
const CREDIT_TYPES = {
  AR: { account: ['ACCRECCREDIT', 'RECEIVE-OVERPAYMENT'], prepayment: 'RECEIVE-PREPAYMENT' },
  AP: { account: ['ACCPAYCREDIT', 'SPEND-OVERPAYMENT'], prepayment: 'SPEND-PREPAYMENT' },
} as const;

/**
 * Credits not yet allocated to an invoice or bill (AUTHORISED, remaining
 * credit above zero), in the base currency with each credit's own rate.
 * `account`: credit notes and overpayments, which the ledger's receivables
 * (AR) or payables (AP) account nets off the documents' amounts still owed;
 * `prepayments`: prepayments, posted to the account their lines name, not the
 * AR/AP account (docs/forecast.md#daily-summary). Both reduce what the contact
 * will pay or be paid, and the forecast nets them off its open documents.
 */
export async function unallocatedCredit(db: Db, orgId: string, side: 'AR' | 'AP'): Promise<{ account: { count: number; amount: string }; prepayments: { count: number; amount: string } }> {
  const types = CREDIT_TYPES[side];
  const list = await rows<{ pre: boolean; n: number | string; amount: string | null }>(
    db,
    sql`select i.ledger_type = ${types.prepayment} as pre, count(*)::int8 as n, sum(${base('amount_due')}) as amount
        from cash_items i join organisations o on o.id = i.org_id
        where i.org_id = ${orgId} and i.source in ('LEDGER_CREDIT_NOTE', 'LEDGER_OVERPAYMENT', 'LEDGER_PREPAYMENT')
          and i.ledger_type in (${types.account[0]}, ${types.account[1]}, ${types.prepayment})
          and i.ledger_status = 'AUTHORISED' and i.amount_due > 0
        group by 1`,
  );
  const of = (pre: boolean) => {
    const r = list.find((x) => Boolean(x.pre) === pre);
    return { count: Number(r?.n ?? 0), amount: canonical(r?.amount ?? '0') };
  };
  return { account: of(false), prepayments: of(true) };
}

/**
 * Pending anomalies of the 7 days ending on `asOf`, counted in SQL with the
 * rule of `pendingAnomalies` (src/domain/forecast/daily.ts): the movements of
 * the window above `factor` times the 90th percentile (percentile_disc) of the
 * same direction's movements in the `historyDays` before it, when that
 * history has at least `minHistory` movements.
 */
export async function countPendingAnomalies(db: Db, orgId: string, asOf: string, rule: { factor: number; historyDays: number; minHistory: number }): Promise<number> {
  const from = addDays(asOf, -6);
  const histFrom = addDays(from, -rule.historyDays);
  const [r] = await rows<{ n: number | string }>(
    db,
    sql`with ev as (
          select p.date, ${PAYMENT_SIGNED} as amount
            from payments p ${ITEM_OF_PAYMENT} join organisations o on o.id = p.org_id
            where p.org_id = ${orgId} and p.status = 'AUTHORISED' and p.date between ${histFrom} and ${asOf}
          union all
          select t.date, case when t.type like 'SPEND%' then -t.total else t.total end
            from bank_transactions t
            where t.org_id = ${orgId} and t.status = 'AUTHORISED' and t.type not like '%TRANSFER' and t.date between ${histFrom} and ${asOf}),
        lim as (
          select sign(amount) as s, percentile_disc(0.9) within group (order by abs(amount)) as p, count(*) as n
            from ev where date < ${from} and amount <> 0 group by sign(amount))
        select count(*)::int8 as n from ev join lim on lim.s = sign(ev.amount)
          where ev.date >= ${from} and lim.n >= ${rule.minHistory} and abs(ev.amount) > ${String(rule.factor)}::numeric * lim.p`,
  );
  return Number(r?.n ?? 0);
}

/** One contact's aged balance (base currency): what it owes (or is owed) per ageing band, with its open documents. */
export interface AgedContactRow {
  contactId: string | null;
  name: string | null;
  sensitive: boolean;
  bands: Record<AgeingBand, string>;
  documents: number;
  oldestDueDate: string | null;
}

/** Every contact with something open on one side (receivables: invoices; payables: bills), aged as at `asOf`. */
export async function agedByContact(db: Db, orgId: string, side: 'AR' | 'AP', asOf: string): Promise<AgedContactRow[]> {
  const list = await rows<{ c: string | null; name: string | null; sens: boolean | null; band: AgeingBand; n: number | string; amount: string; oldest: string | null }>(
    db,
    sql`select a.contact_id as c, ct.name, ct.is_sensitive as sens, a.band, count(*)::int8 as n, sum(a.amount) as amount, min(a.due_date)::text as oldest
        from (${ageingRows(orgId, side === 'AR' ? 'LEDGER_INVOICE' : 'LEDGER_BILL', asOf)}) a
        left join contacts ct on ct.org_id = ${orgId} and ct.id = a.contact_id
        group by a.contact_id, ct.name, ct.is_sensitive, a.band`,
  );
  const by = new Map<string, AgedContactRow>();
  for (const r of list) {
    const key = r.c ?? '';
    let row = by.get(key);
    if (!row) {
      row = { contactId: r.c, name: r.name, sensitive: Boolean(r.sens), bands: Object.fromEntries(AGEING_BANDS.map((b) => [b, '0'])) as Record<AgeingBand, string>, documents: 0, oldestDueDate: null };
      by.set(key, row);
    }
    row.bands[r.band] = canonical(dec(row.bands[r.band]).plus(r.amount));
    row.documents += Number(r.n);
    if (r.oldest && (row.oldestDueDate === null || r.oldest < row.oldestDueDate)) row.oldestDueDate = r.oldest;
  }
  return [...by.values()];
}

/**
 * What was paid (AUTHORISED payments) or allocated (credit allocations, on
 * the side `allocated` names) after `asOf` on the documents `i` that `which`
 * selects, at each document's rate: what rolls today's open amounts back to
 * the end of `asOf`.
 */
function settledAfter(orgId: string, asOf: string, which: SQL, allocated: 'invoice_id' | 'credit_note_id') {
  return sql`select sum(x.amount) from (
      select ${atDocumentRate('p.amount')} as amount
        from payments p join cash_items i on i.org_id = p.org_id and i.id = p.item_id join organisations o on o.id = p.org_id
        where p.org_id = ${orgId} and p.status = 'AUTHORISED' and p.date > ${asOf}::date and ${which}
      union all
      select ${atDocumentRate('c.amount')}
        from credit_note_allocations c join cash_items i on i.org_id = c.org_id and i.id = c.${sql.raw(allocated)} join organisations o on o.id = c.org_id
        where c.org_id = ${orgId} and c.date > ${asOf}::date and ${which}) x`;
}

/**
 * The receivables (AR) or payables (AP) control account's balance at the end
 * of `asOf` as the documents tell it, in the base currency (docs/sync.md
 * "What Xero may not let Cashline read"): what the open documents owed less
 * the credit not yet allocated, the balance the ledger's account holds
 * (test/balances-agree.test.ts).
 * - owed: the aged definition (`ageingRows`: what each open AUTHORISED
 *   invoice or bill still owes) over the documents issued on or before
 *   `asOf`, plus what was paid or credited on them after `asOf`: today's
 *   amounts rolled back to the date, as a bank account's balance is
 *   (actuals.ts `balancesAtStartOf`). For today, with nothing dated later, it
 *   is the aged report's total to the cent.
 * - credit: `unallocatedCredit`'s `account` part (credit notes and
 *   overpayments, which sit in the control account) issued on or before
 *   `asOf`, plus what was allocated or refunded from them after it.
 */
export async function controlAccountAt(db: Db, orgId: string, side: 'AR' | 'AP', asOf: string): Promise<{ owed: string; credit: string; balance: string }> {
  const source = side === 'AR' ? 'LEDGER_INVOICE' : 'LEDGER_BILL';
  const [a, b] = CREDIT_TYPES[side].account;
  const issued = sql`coalesce(i.issue_date, ${asOf}::date) <= ${asOf}::date`;
  const docs = sql`i.org_id = ${orgId} and i.source = ${source} and i.ledger_status in ('AUTHORISED', 'PAID') and ${issued}`;
  const credits = sql`i.org_id = ${orgId} and i.source in ('LEDGER_CREDIT_NOTE', 'LEDGER_OVERPAYMENT') and i.ledger_type in (${a}, ${b})
    and i.ledger_status in ('AUTHORISED', 'PAID') and ${issued}`;
  const [r] = await rows<{ open: string | null; paid: string | null; unalloc: string | null; used: string | null }>(
    db,
    sql`select (select sum(x.amount) from (${ageingRows(orgId, source, asOf, true)}) x) as open,
          (${settledAfter(orgId, asOf, docs, 'invoice_id')}) as paid,
          (select sum(${base('amount_due')}) from cash_items i join organisations o on o.id = i.org_id
             where ${credits} and i.ledger_status = 'AUTHORISED' and i.amount_due > 0) as unalloc,
          (${settledAfter(orgId, asOf, credits, 'credit_note_id')}) as used`,
  );
  const owed = dec(r?.open ?? '0').plus(dec(r?.paid ?? '0'));
  const credit = dec(r?.unalloc ?? '0').plus(dec(r?.used ?? '0'));
  return { owed: canonical(owed), credit: canonical(credit), balance: canonical(owed.minus(credit)) };
}
