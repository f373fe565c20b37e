/**
 * The invoices and bills the forecast engine reads (docs/forecast.md#history):
 * the history its behaviour models learn from (src/domain/forecast/history.ts
 * says what each part is), read as one packed text per contact and kind and
 * summarised without a document object each; and the documents it still
 * reads one by one (open ones, bills that may match a purchase order). `loadLedgerItems` reads the
 * documents themselves (what the engine summarises when it is given no
 * history).
 *
 * Every query reads the same documents: invoices and bills, voided and
 * deleted ones left out, open ones and those dated within HISTORY_DAYS.
 */
import { sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';
import { addDays } from '../../domain/calendar.js';
import { toDay } from '../../domain/forecast/days.js';
import { HistoryBuilder, setSeriesAccounts, STATUS_OF_LETTER, type DocAccounts } from '../../domain/forecast/history.js';
import { cmpStr } from '../../domain/forecast/compare.js';
import type { LedgerHistory } from '../../domain/forecast/types.js';
import type { LedgerItem } from '../../domain/forecast/types.js';

/** How far back the engine looks (days): the behaviour models use two years, seasonality three. */
export const HISTORY_DAYS = 3 * 365 + 7;

/** An amount (an SQL expression) on document `i` in the organisation `o`'s base currency at the document's rate (Xero's convention), rounded to cents. */
export const atDocumentRate = (amount: string) =>
  sql.raw(`case when i.currency = o.base_currency or i.currency_rate is null or i.currency_rate = 0 then ${amount} else round(${amount} / i.currency_rate, 2) end`);

/** A column of document `i` in the base currency (`atDocumentRate`). */
export const base = (col: string) => atDocumentRate(`i.${col}`);

/**
 * The history of the organisation's invoices and bills as of `asOf` (its
 * today): one row per contact and kind, its documents packed into one text
 * (`unpack` says how), in no particular order (the builder does not need
 * one), unpacked straight into the domain's HistoryBuilder - no row,
 * object or lookup per document, which is what reading 400,000 documents
 * costs - then the account of each contact's latest document.
 */
export async function loadHistory(db: Db, orgId: string, asOf: string, idByCode: Map<string, string>): Promise<LedgerHistory> {
  const from = addDays(asOf, -HISTORY_DAYS);
  const day = (col: string) => sql.raw(`coalesce((i.${col} - date '1970-01-01')::text, '')`);
  // Invoices and bills in two queries, aggregated by PostgreSQL on two cores at once, each unpacked here as it is done.
  // (Splitting further, by contact or by date, measured slower on two cores: more scans, more processes.)
  const part = (source: string) =>
    rows<{ c: string | null; ar: boolean; docs: string }>(
      db,
      sql`select i.contact_id as c, i.ledger_type = 'ACCREC' as ar,
            string_agg(char_length(i.id)::text || ':' || i.id || left(i.ledger_status, 1) || ${day('issue_date')} || ',' || ${day('due_date')}
              || ',' || ${day('paid_date')} || ',' || (${base('total')})::text, ';') as docs
          from cash_items i join organisations o on o.id = i.org_id
          where i.org_id = ${orgId} and i.source = ${source} and i.ledger_status not in ('VOIDED', 'DELETED')
            and (i.sort_date >= ${from} or i.ledger_status in ('AUTHORISED', 'DRAFT', 'SUBMITTED'))
          group by 1, 2`,
    );
  const builder = new HistoryBuilder(toDay(asOf));
  const pending = new Map(
    [part('LEDGER_INVOICE'), part('LEDGER_BILL')].map((p, k) => [k, p.then((r) => [k, r] as const)]),
  );
  try {
    while (pending.size > 0) {
      const [k, groups] = await Promise.race(pending.values());
      pending.delete(k);
      for (const g of groups) {
        builder.group(g.c, g.ar);
        unpack(g.docs, builder);
      }
    }
  } finally {
    for (const p of pending.values()) p.catch(() => {}); // after a failure, the other parts are not left unhandled
  }
  const { history, latest } = builder.finish();
  const accounts = await lineAccounts(db, orgId, [...new Set([...latest.ar.values(), ...latest.ap.values()])], idByCode);
  setSeriesAccounts(history, latest, (id) => accounts.get(id) ?? null);
  return history;
}

/**
 * Reads loadHistory's packed documents: `<length of id>:<id><status letter><issue>,<due>,<paid>,<total>`
 * joined by ';', days as integers or empty for null. The id is read by its
 * length (in characters, as PostgreSQL counts them), so it may hold anything.
 */
function unpack(docs: string, into: HistoryBuilder): void {
  const astral = /[\uD800-\uDFFF]/.test(docs);
  let pos = 0;
  const end = docs.length;
  while (pos < end) {
    const colon = docs.indexOf(':', pos);
    const n = intBetween(docs, pos, colon)!;
    let after = colon + 1 + n;
    if (astral) {
      // Characters beyond the Basic Multilingual Plane are two UTF-16 units each.
      after = colon + 1;
      for (let k = 0; k < n; k++) after += docs.codePointAt(after)! > 0xffff ? 2 : 1;
    }
    const id = docs.slice(colon + 1, after);
    const status = STATUS_OF_LETTER[docs[after]!] ?? docs[after]!;
    const c1 = docs.indexOf(',', after + 1);
    const c2 = docs.indexOf(',', c1 + 1);
    const c3 = docs.indexOf(',', c2 + 1);
    let stop = docs.indexOf(';', c3 + 1);
    if (stop < 0) stop = end;
    into.doc(id, status, intBetween(docs, after + 1, c1), intBetween(docs, c1 + 1, c2), intBetween(docs, c2 + 1, c3), docs.slice(c3 + 1, stop));
    pos = stop + 1;
  }
}

/** The integer written in s[from, to), or null when empty. */
function intBetween(s: string, from: number, to: number): number | null {
  if (from >= to) return null;
  let i = from;
  const negative = s.charCodeAt(i) === 45;
  if (negative) i++;
  let v = 0;
  for (; i < to; i++) v = v * 10 + (s.charCodeAt(i) - 48);
  return negative ? -v : v;
}

// ---------------------------------------------------------------------------
// The documents
// ---------------------------------------------------------------------------

/**
 * The documents themselves: every open invoice and bill (AUTHORISED, DRAFT,
 * SUBMITTED) and those of the last HISTORY_DAYS (voided and deleted ones left
 * out), as the engine reads them when given no history (the backtest reads
 * them from the raw ledger instead; tests hold loadHistory equal to their
 * summary). A bill's reference is read only when it names a purchase
 * order (all the engine uses it for). Then, in a second query, the account of
 * the largest line of the open items and of each contact's latest item: the
 * categories of what is placed and predicted.
 */
export async function loadLedgerItems(db: Db, orgId: string, asOf: string, idByCode: Map<string, string>): Promise<LedgerItem[]> {
  const from = addDays(asOf, -HISTORY_DAYS);
  // Rows come back in the engine's own shape (no second object per row: this is the largest read).
  const list = await rows<LedgerItem & Record<string, unknown>>(
    db,
    sql`select i.id, case when i.ledger_type = 'ACCREC' then 'AR' else 'AP' end as kind, i.contact_id as "contactId",
          i.ledger_status as status, i.issue_date as "issueDate", i.due_date as "dueDate", i.paid_date as "paidDate",
          ${base('total')} as total, case when i.ledger_status = 'PAID' then '0' else ${base('amount_due')} end as "amountDue",
          null as number, case when pk.k is not null then i.reference end as reference, null as "accountId"
        from cash_items i join organisations o on o.id = i.org_id
        left join (select distinct lower(trim(k)) as k from purchase_orders p, unnest(array[p.number, p.reference]) k
                   where p.org_id = ${orgId} and p.status <> 'DELETED' and trim(k) <> '') pk
          on i.ledger_type = 'ACCPAY' and pk.k = lower(trim(i.reference))
        where i.org_id = ${orgId} and i.source in ('LEDGER_INVOICE', 'LEDGER_BILL') and i.ledger_status not in ('VOIDED', 'DELETED')
          and (i.sort_date >= ${from} or i.ledger_status in ('AUTHORISED', 'DRAFT', 'SUBMITTED'))`,
  );
  // The items whose category the engine uses: open ones, and each contact's latest of each kind.
  const wanted = new Map<string, LedgerItem>();
  const latest = new Map<string, LedgerItem>();
  for (const r of list) {
    if (r.status !== 'PAID') wanted.set(r.id, r);
    if (!r.contactId) continue;
    const key = `${r.kind}:${r.contactId}`;
    const prev = latest.get(key);
    const d = r.issueDate ?? r.dueDate ?? '';
    const pd = prev ? (prev.issueDate ?? prev.dueDate ?? '') : '';
    if (!prev || d > pd || (d === pd && r.id > prev.id)) latest.set(key, r);
  }
  for (const r of latest.values()) wanted.set(r.id, r);
  await attachAccounts(db, orgId, wanted, idByCode);
  return list;
}

/**
 * The documents the engine reads one by one when given the history: the open
 * invoices and bills (what it places), and the bills that may match an open
 * purchase order - those naming an order's number or reference, and those of
 * an ordering supplier dated from 7 days before its first order to 120 days
 * after its last (src/domain/forecast/purchase-orders.ts) - with the account
 * of each one's largest line. References are compared by
 * cashline_reference_key (migration 0007: lower-cased, without any
 * whitespace), a superset of the engine's own rule (trimmed, lower-cased),
 * which then picks its candidates from these.
 */
export async function loadOpenItems(db: Db, orgId: string, asOf: string, idByCode: Map<string, string>): Promise<LedgerItem[]> {
  const from = addDays(asOf, -HISTORY_DAYS);
  const columns = sql`i.id, case when i.ledger_type = 'ACCREC' then 'AR' else 'AP' end as kind, i.contact_id as "contactId",
    i.ledger_status as status, i.issue_date as "issueDate", i.due_date as "dueDate", i.paid_date as "paidDate",
    ${base('total')} as total, case when i.ledger_status = 'PAID' then '0' else ${base('amount_due')} end as "amountDue",
    null as number, i.reference, null as "accountId"`;
  const read = sql`cash_items i join organisations o on o.id = i.org_id`;
  const documents = sql`i.org_id = ${orgId} and i.source in ('LEDGER_INVOICE', 'LEDGER_BILL') and i.ledger_status not in ('VOIDED', 'DELETED')
    and (i.sort_date >= ${from} or i.ledger_status in ('AUTHORISED', 'DRAFT', 'SUBMITTED'))`;
  // Three cheap reads (a union, not one scan testing every bill): open documents; bills of an ordering supplier in the window; bills naming an order (cash_items_bill_reference_key_idx).
  const list = await rows<LedgerItem & Record<string, unknown>>(
    db,
    sql`with po as (select number, reference, contact_id,
                      coalesce(issue_date, delivery_date, expected_arrival_date, date '1970-01-01') as day
                    from purchase_orders where org_id = ${orgId} and status <> 'DELETED'),
             keys as (select distinct cashline_reference_key(k) as k from po, unnest(array[po.number, po.reference]) k
                      where cashline_reference_key(k) <> ''),
             win as (select min(day) - 7 as lo, max(day) + 120 as hi from po where contact_id is not null)
        select ${columns} from ${read} where ${documents} and i.ledger_status in ('AUTHORISED', 'DRAFT', 'SUBMITTED')
        union
        select ${columns} from ${read} where ${documents} and i.ledger_type = 'ACCPAY'
          and i.contact_id in (select contact_id from po)
          and coalesce(i.issue_date, i.due_date, date '1970-01-01') between (select lo from win) and (select hi from win)
        union
        select ${columns} from ${read} where ${documents} and i.ledger_type = 'ACCPAY'
          and cashline_reference_key(i.reference) in (select k from keys)`,
  );
  await attachAccounts(db, orgId, new Map(list.map((r) => [r.id, r])), idByCode);
  return list;
}

/** Sets each item's accountId (the account of its largest line) and, for one of several accounts, accountIds. */
async function attachAccounts(db: Db, orgId: string, wanted: Map<string, LedgerItem>, idByCode: Map<string, string>): Promise<void> {
  for (const [id, a] of await lineAccounts(db, orgId, [...wanted.keys()], idByCode)) Object.assign(wanted.get(id)!, a);
}

/** The known accounts (ids) of a document's lines' codes, sorted, when two or more (else undefined: one account says nothing more). */
export function accountIdsOf(codes: readonly (string | null)[] | null, idByCode: Map<string, string>): string[] | undefined {
  const ids = [...new Set((codes ?? []).map((c) => (c ? idByCode.get(c) : undefined)).filter((id): id is string => id !== undefined))].sort(cmpStr);
  return ids.length > 1 ? ids : undefined;
}

/**
 * Each document's accounts: its largest line's (then its first; null when it
 * names no known account) and, when its lines name two or more known
 * accounts, all of them sorted; read 20,000 documents at a time.
 */
async function lineAccounts(db: Db, orgId: string, ids: string[], idByCode: Map<string, string>): Promise<Map<string, DocAccounts>> {
  const out = new Map<string, DocAccounts>();
  for (let i = 0; i < ids.length; i += 20_000) {
    const found = await rows<{ id: string; code: string | null; codes: string[] | null }>(
      db,
      sql`select distinct on (l.item_id) l.item_id as id, l.account_code as code,
            case when count(*) over (partition by l.item_id) > 1
              then jsonb_agg(l.account_code) over (partition by l.item_id) end as codes
          from cash_item_lines l
          where l.org_id = ${orgId} and l.item_id = any(${sql.param(ids.slice(i, i + 20_000))}::text[])
          order by l.item_id, abs(l.line_amount) desc, l.line_number`,
    );
    for (const a of found) {
      const accountIds = accountIdsOf(a.codes, idByCode);
      out.set(a.id, { accountId: a.code ? (idByCode.get(a.code) ?? null) : null, ...(accountIds ? { accountIds } : {}) });
    }
  }
  return out;
}
