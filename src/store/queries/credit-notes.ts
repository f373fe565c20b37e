/**
 * Receivable credit notes (spec 2.6, 4.6): source LEDGER_CREDIT_NOTE, ledger
 * type ACCRECCREDIT. They take the invoices' parameters (decisions.md) and
 * page the same way. Without READ_SENSITIVE, credit notes of sensitive
 * contacts are withheld from the list and are 404 on the drill (as if absent,
 * like everything the list withholds); lines on sensitive accounts keep their
 * amounts but lose their account code.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, rows } from '../db.js';
import type { CursorPosition } from '../../domain/cursor.js';
import { canonical, canonicalOrNull, dec } from '../../domain/money.js';
import { LEDGER_STATUS_VALUES, type ItemFilters, TOTALS_CAP } from '../../domain/list-params.js';
import type { CreditNote, CreditNoteDrill } from '../../schemas/ledger.js';
import { ITEM_KEYS_FIRST, itemAggregate, itemSearchContacts, itemWhere, keysFirstFits, SENSITIVE_CONTACT } from './cash-items.js';
import { countOf, dayToDateTime, type KeysetSpec, keysetPage, sortKeyText, totalsOf } from './paging.js';
import type { ItemListResult } from './cash-items.js';

const SOURCE = 'LEDGER_CREDIT_NOTE';
const LEDGER_TYPE = 'ACCRECCREDIT';

/** remainingCredit: the ledger's RemainingCredit, else the total less its allocations. */
const REMAINING = sql`coalesce(ci.remaining_credit, ci.total - coalesce((select sum(a.amount) from credit_note_allocations a
  where a.org_id = ci.org_id and a.credit_note_id = ci.id), 0))`;

const COLUMNS = sql`ci.id, ci.number, ci.contact_id, c.name as contact_name, ci.issue_date, ci.sort_date,
  ci.status, ci.ledger_status, ci.total, ${REMAINING} as remaining, ci.currency`;

const FROM = sql`from cash_items ci left join contacts c on c.org_id = ci.org_id and c.id = ci.contact_id`;

interface CreditNoteRow extends Record<string, unknown> {
  sort_key: string;
  id: string;
  gated: boolean;
  number: string | null;
  contact_id: string | null;
  contact_name: string | null;
  issue_date: string | null;
  sort_date: string;
  status: string;
  ledger_status: string;
  total: string;
  remaining: string;
  currency: string;
}

function toCreditNote(r: CreditNoteRow): CreditNote {
  return {
    id: r.id,
    externalId: r.id,
    creditNoteNumber: r.number,
    contactId: r.contact_id,
    contactName: r.contact_name,
    issueDate: dayToDateTime(r.issue_date ?? r.sort_date),
    status: r.status as CreditNote['status'],
    ledgerStatus: r.ledger_status as CreditNote['ledgerStatus'],
    total: canonical(r.total),
    remainingCredit: canonical(r.remaining),
    allocatedAmount: canonical(dec(r.total).minus(dec(r.remaining))),
    currency: r.currency,
  };
}

export interface CreditNoteListInput {
  orgId: string;
  filters: ItemFilters;
  after: CursorPosition | null;
  limit: number;
  gate: boolean;
  totals: boolean;
  totalsCap?: number;
  /** With `q`: the contacts it names (itemSearchContacts); listCreditNotes looks them up when absent. */
  named?: readonly string[];
}

export function creditNoteKeysetSpec(input: Pick<CreditNoteListInput, 'orgId' | 'filters' | 'gate' | 'named'>): KeysetSpec {
  return {
    columns: sql`${sortKeyText(sql`ci.sort_date`, 'date')} as sort_key, ${COLUMNS}`,
    from: FROM,
    where: itemWhere(input.orgId, SOURCE, LEDGER_TYPE, input.filters, input.named),
    sortCol: sql`ci.sort_date`,
    sortKind: 'date',
    idCol: sql`ci.id`,
    gated: input.gate ? SENSITIVE_CONTACT : null,
    ...(keysFirstFits(input.filters) ? { keysFirst: ITEM_KEYS_FIRST } : {}),
  };
}

export async function listCreditNotes(db: Db, query: CreditNoteListInput): Promise<ItemListResult<CreditNote>> {
  const input = { ...query, named: query.named ?? (await itemSearchContacts(db, query)) };
  const spec = creditNoteKeysetSpec(input);
  const agg = itemAggregate(input.orgId, SOURCE, LEDGER_TYPE, input.filters, input.named);
  const [page, totalCount] = await Promise.all([keysetPage<CreditNoteRow>(db, spec, input.after, input.limit), countOf(db, agg)]);
  const result: ItemListResult<CreditNote> = {
    items: page.rows.map(toCreditNote),
    next: page.next,
    totalCount,
    redactedItemCount: page.redacted,
  };
  if (input.totals) {
    const t = await totalsOf(db, agg, LEDGER_STATUS_VALUES, totalCount, input.totalsCap ?? TOTALS_CAP);
    if ('totals' in t) result.totals = t.totals;
    else result.totalsTruncated = true;
  }
  return result;
}

/** The sensitive-account test for a line's account code (lines of drills). */
export const sensitiveCode = (orgCol: SQL, codeCol: SQL) => sql`exists (select 1 from accounts sa
  where sa.org_id = ${orgCol} and sa.code = ${codeCol} and sa.is_sensitive)`;

/** A credit note with its allocations and lines; null when absent, another org's, or withheld. */
export async function getCreditNote(
  db: Db,
  input: { orgId: string; id: string; gate: boolean },
): Promise<{ creditNote: CreditNoteDrill; redactedItemCount: number } | null> {
  const [row] = await rows<CreditNoteRow & { reference: string | null; sub_total: string; total_tax: string; contact_sensitive: boolean | null }>(
    db,
    sql`select ci.sort_date as sort_key, false as gated, ${COLUMNS}, ci.reference, ci.sub_total, ci.total_tax, c.is_sensitive as contact_sensitive
      ${FROM} where ci.org_id = ${input.orgId} and ci.id = ${input.id} and ci.source = ${SOURCE} and ci.ledger_type = ${LEDGER_TYPE}`,
  );
  if (!row) return null;
  if (input.gate && row.contact_sensitive) return null;
  const [allocations, lines] = await Promise.all([
    rows<{ invoice_id: string | null; invoice_number: string | null; amount: string; date: string | null }>(
      db,
      sql`select a.invoice_id, coalesce(a.invoice_number, inv.number) as invoice_number, a.amount, a.date
        from credit_note_allocations a
        left join cash_items inv on inv.org_id = a.org_id and inv.id = a.invoice_id
        where a.org_id = ${input.orgId} and a.credit_note_id = ${input.id} order by a.seq`,
    ),
    rows<{
      description: string | null;
      quantity: string | null;
      unit_amount: string | null;
      line_amount: string;
      item_code: string | null;
      account_code: string | null;
      sensitive: boolean;
    }>(
      db,
      sql`select l.description, l.quantity, l.unit_amount, l.line_amount, l.item_code, l.account_code,
          ${sensitiveCode(sql`l.org_id`, sql`l.account_code`)} as sensitive
        from cash_item_lines l where l.org_id = ${input.orgId} and l.item_id = ${input.id} order by l.line_number`,
    ),
  ]);
  let redacted = 0;
  const base = toCreditNote(row);
  return {
    creditNote: {
      ...base,
      reference: row.reference,
      subTotal: canonical(row.sub_total),
      totalTax: canonical(row.total_tax),
      allocations: allocations.map((a) => ({
        invoiceNumber: a.invoice_number,
        invoiceExternalId: a.invoice_id,
        amount: canonical(a.amount),
        date: dayToDateTime(a.date),
      })),
      lines: lines.map((l) => {
        const masked = input.gate && l.sensitive;
        if (masked) redacted++;
        return {
          description: l.description,
          quantity: canonicalOrNull(l.quantity),
          unitAmount: canonicalOrNull(l.unit_amount),
          lineAmount: canonical(l.line_amount),
          itemCode: l.item_code,
          accountCode: masked ? null : l.account_code,
        };
      }),
    },
    redactedItemCount: redacted,
  };
}
