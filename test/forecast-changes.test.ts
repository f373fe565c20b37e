/**
 * What changed (issue 18, docs/forecast.md#changes): GET
 * /api/agent/forecast/changes explains the change in ending cash and in the
 * lowest week between two forecasts by cause, and the causes' totals add up
 * exactly to the change.
 *
 * - The partition, on generated forecasts (fast-check, no store): whatever
 *   the items, documents and ledger states, the causes add up to the change.
 * - On a synced organisation (the shipped Xero-compatible server, PGlite):
 *   generated histories - rounds of ledger changes (invoices paid, voided,
 *   issued, edited, due dates moved, bills paid) synced and recomputed
 *   on later days - each explained exactly, each change under its cause;
 *   since= picks an earlier forecast; errors name their parameter.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from '@hono/zod-openapi';
import { CHANGE_CAUSES, explainChanges, type ChangeSide, type DocumentState, type ItemTotal } from '../src/domain/forecast/changes.js';
import { D } from '../src/domain/money.js';
import { syncOrganisation } from '../src/ledger/sync/sync.js';
import { recomputeForecast } from '../src/jobs/forecast.js';
import { clearCashOverride, setCashOverride } from '../src/store/queries/cash-position.js';
import type { XeroServer } from '../src/xero-server/server.js';
import { ForecastChangesResponse } from '../src/schemas/changes.js';
import { connectedOrg, syncOpts, xeroServer } from './helpers/ledger.js';
import { startTestApi, type TestApi } from './helpers/http.js';
import { NO_LIMITS } from '../bench/no-limits.js';

type Changes = z.infer<typeof ForecastChangesResponse>;
const sum = (xs: readonly string[]) => xs.reduce((a, x) => a.plus(x), new D(0));

describe('the partition (generated forecasts)', () => {
  const money = fc.integer({ min: 0, max: 5_000_00 }).map((c) => (c / 100).toFixed(2));
  const kinds = ['invoice', 'bill', 'purchase_order', 'recurring', 'predicted', 'run_rate', 'scheduled', 'manual'] as const;
  const item = fc.record({
    id: fc.integer({ min: 1, max: 12 }),
    kind: fc.constantFrom(...kinds),
    amount: money,
    low: fc.double({ min: 0, max: 1, noNaN: true }),
    week: fc.integer({ min: 0, max: 12 }),
  });
  const doc = fc.record({
    id: fc.integer({ min: 1, max: 12 }),
    kind: fc.constantFrom('AR', 'AP', 'PO'),
    status: fc.constantFrom('AUTHORISED', 'DRAFT', 'SUBMITTED'),
    total: money,
    amountDue: money,
    due: fc.constantFrom('2026-12-01', '2026-12-15', null),
  });
  const side = fc.record({
    start: money,
    override: fc.boolean(),
    ledger: money,
    items: fc.array(item, { maxLength: 10 }),
    docs: fc.array(doc, { maxLength: 10 }),
    low: fc.integer({ min: 0, max: 12 }),
    // A forecast stored before its documents were kept.
    known: fc.boolean(),
  });

  /** A side whose ending cash is its starting cash plus its items (as every forecast's is), its lowest week's closing likewise. */
  function build(s: typeof side extends fc.Arbitrary<infer T> ? T : never): ChangeSide {
    const items = new Map<string, ItemTotal>();
    for (const x of s.items) {
      const dir = x.kind === 'bill' || x.kind === 'purchase_order' ? 'out' : 'in';
      const documentId = ['invoice', 'bill', 'purchase_order'].includes(x.kind) ? `d${x.id}` : null;
      const toLowest = new D(x.amount).times(x.low).toDecimalPlaces(2).toFixed(2);
      items.set(`${dir}${x.kind}${x.id}`, { itemId: documentId ?? `${x.kind}:${x.id}`, direction: dir, kind: x.kind, documentId, contactId: null, amount: x.amount, toLowest, week: x.week });
    }
    const list = [...items.values()].filter((v, i, all) => all.findIndex((w) => w.itemId === v.itemId && w.direction === v.direction) === i);
    const net = (pick: (i: ItemTotal) => string) => list.reduce((a, i) => (i.direction === 'in' ? a.plus(pick(i)) : a.minus(pick(i))), new D(0));
    const startingCash = s.start;
    const ledgerCash = s.override ? s.ledger : s.start;
    const documents = new Map<string, DocumentState>(s.docs.map((d) => [`d${d.id}`, { kind: d.kind as DocumentState['kind'], contactId: null, status: d.status, total: d.total, amountDue: d.amountDue, dueDate: d.due }]));
    return {
      startingCash,
      ledgerCash,
      endingCash: new D(startingCash).plus(net((i) => i.amount)).toFixed(),
      minClosingCash: new D(startingCash).plus(net((i) => i.toLowest)).toFixed(),
      lowestWeek: s.low,
      weekStarts: Array.from({ length: 13 }, (_, k) => `2026-12-${String(k + 1).padStart(2, '0')}`),
      items: list,
      documents: s.known ? documents : new Map(),
      documentsKnown: s.known,
    };
  }

  it('the causes add up exactly to the change in ending cash and in the lowest week, whatever changed', () => {
    const current = fc.array(fc.record({ id: fc.integer({ min: 1, max: 12 }), status: fc.constantFrom('PAID', 'VOIDED', 'DELETED', 'AUTHORISED', 'BILLED'), due: money }), { maxLength: 12 });
    fc.assert(
      fc.property(side, side, current, (a, b, cur) => {
        const from = build(a);
        const to = build(b);
        const r = explainChanges(from, to, new Map(cur.map((c) => [`d${c.id}`, { status: c.status, amountDue: c.due }])), 3);
        expect(r.causes.map((c) => c.cause)).toEqual([...CHANGE_CAUSES]);
        expect(r.endingCashChange).toBe(new D(to.endingCash).minus(from.endingCash).toFixed());
        expect(sum(r.causes.map((c) => c.total)).eq(r.endingCashChange)).toBe(true);
        expect(sum(r.causes.map((c) => c.minClosingTotal)).eq(r.minClosingCashChange)).toBe(true);
        for (const c of r.causes) expect(c.items.length).toBeLessThanOrEqual(Math.min(3, c.count));
      }),
      { numRuns: 400 },
    );
  });
});

describe('GET /api/agent/forecast/changes on a synced organisation (pglite)', () => {
  let api: TestApi;
  let server: XeroServer;
  let org: string;
  let key: string;
  const T0 = new Date('2026-11-23T09:00:00Z');
  const day = (n: number) => new Date(T0.getTime() + n * 86_400_000);
  const get = async (query = '') => {
    const res = await api.get(`/api/agent/forecast/changes${query}`, key);
    return { status: res.status, body: (await res.json()) as Changes & { parameter?: string; error?: string } };
  };
  const sync = async (at: Date) => {
    const r = await syncOrganisation(api.store.db, org, syncOpts(server, { now: () => at, client: { perMinute: 1000 } }));
    expect(r.outcome).toBe('ok');
    await recomputeForecast(api.store.db, org, at);
  };
  /** /Date(ms+0000)/ of a day. */
  const xeroDate = (d: Date) => `/Date(${Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())}+0000)/`;
  const invoices = () => server.data.records.Invoices as Record<string, any>[];
  let rng = 7;
  const random = () => ((rng = (rng * 1_103_515_245 + 12_345) % 2 ** 31), rng / 2 ** 31);
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;

  beforeAll(async () => {
    api = await startTestApi('pglite', { now: T0.toISOString(), limiter: () => NO_LIMITS });
    // Xero's own limits are the sync tests' concern: high enough here that a round never waits for the next minute.
    server = await xeroServer({ limits: { perMinute: 1000, concurrent: 5 } });
    org = await connectedOrg(api.store.db, server, 'Changes Traders');
    await sync(T0);
    key = await api.key(org);
  }, 240_000);

  afterAll(async () => {
    await server?.close();
    await api?.close();
  });

  it('before a second forecast: from is null, every cause 0, and it says so', async () => {
    const { status, body } = await get();
    expect(status).toBe(200);
    expect(body.from).toBeNull();
    expect(body.to).not.toBeNull();
    expect(body.causes.map((c) => [c.cause, c.total])).toEqual(CHANGE_CAUSES.map((c) => [c, '0']));
    expect(body.note).toMatch(/no earlier forecast/);
  });

  it('rounds of generated ledger changes: each explained exactly, each change under its cause', async () => {
    for (let round = 1; round <= 3; round++) {
      const at = day(round * 2);
      const open = invoices().filter((i) => i.Type === 'ACCREC' && i.Status === 'AUTHORISED' && i.AmountDue > 0);
      const bills = invoices().filter((i) => i.Type === 'ACCPAY' && i.Status === 'AUTHORISED' && i.AmountDue > 0);
      // Paid: two invoices and a bill, in full, yesterday, with their payments.
      const paid = [pick(open), pick(open.filter((i) => i !== open[0])), pick(bills)].filter((x, i, all) => all.indexOf(x) === i);
      for (const inv of paid) {
        server.upsert('Invoices', { ...inv, Status: 'PAID', AmountDue: 0, AmountPaid: inv.Total, FullyPaidOnDate: xeroDate(day(round * 2 - 1)), UpdatedDateUTC: xeroDate(at) });
        server.upsert('Payments', {
          PaymentID: `pay-r${round}-${inv.InvoiceID}`,
          Date: xeroDate(day(round * 2 - 1)),
          Amount: inv.AmountDue,
          CurrencyRate: 1,
          PaymentType: inv.Type === 'ACCREC' ? 'ACCRECPAYMENT' : 'ACCPAYPAYMENT',
          Status: 'AUTHORISED',
          IsReconciled: true,
          Reference: inv.InvoiceNumber,
          Account: { AccountID: '12f73c8c-a53c-4392-840c-16a45690faad', Code: '090' },
          Invoice: { InvoiceID: inv.InvoiceID, InvoiceNumber: inv.InvoiceNumber },
          UpdatedDateUTC: xeroDate(at),
        });
      }
      const rest = open.filter((i) => !paid.includes(i));
      // Voided: one; moved: one due date far past the 13 weeks; issued: one new invoice.
      const voided = pick(rest);
      server.upsert('Invoices', { ...voided, Status: 'VOIDED', AmountDue: 0, UpdatedDateUTC: xeroDate(at) });
      const moved = pick(rest.filter((i) => i !== voided));
      server.upsert('Invoices', { ...moved, DueDate: xeroDate(day(round * 2 + 150)), UpdatedDateUTC: xeroDate(at) });
      // Edited: one invoice's total raised by 100 (what is owed with it).
      const edited = pick(rest.filter((i) => i !== voided && i !== moved));
      server.upsert('Invoices', { ...edited, Total: edited.Total + 100, AmountDue: edited.AmountDue + 100, UpdatedDateUTC: xeroDate(at) });
      const template = pick(rest.filter((i) => i !== voided && i !== moved && i !== edited));
      const fresh: Record<string, any> = { ...template, InvoiceID: `new-r${round}`, InvoiceNumber: `INV-NEW-${round}`, Date: xeroDate(at), DueDate: xeroDate(day(round * 2 + 14)), UpdatedDateUTC: xeroDate(at) };
      server.upsert('Invoices', fresh);
      await sync(at);

      const { status, body } = await get('?limit=50');
      expect(status).toBe(200);
      expect(ForecastChangesResponse.safeParse(body).success).toBe(true);
      expect(body.from!.computedAt < body.to!.computedAt).toBe(true);
      // Exact: the change is the two forecasts' difference, and the causes add up to it.
      expect(body.endingCashChange).toBe(new D(body.to!.endingCash).minus(body.from!.endingCash).toFixed());
      expect(body.minClosingCashChange).toBe(new D(body.to!.minClosingCash).minus(body.from!.minClosingCash).toFixed());
      expect(sum(body.causes.map((c) => c.total)).toFixed()).toBe(new D(body.endingCashChange).toFixed());
      expect(sum(body.causes.map((c) => c.minClosingTotal)).toFixed()).toBe(new D(body.minClosingCashChange).toFixed());
      // Each change under its cause (the documents the earlier forecast had within its 13 weeks).
      const cause = (c: string) => body.causes.find((x) => x.cause === c)!;
      const ids = (c: string) => cause(c).items.map((i) => i.documentId);
      for (const inv of paid) {
        const item = cause('settled').items.find((i) => i.documentId === inv.InvoiceID);
        expect(item, `paid ${inv.InvoiceNumber}`).toBeDefined();
        expect(new D(item!.cash!).abs().toFixed(2)).toBe(new D(inv.AmountDue).toFixed(2));
        expect(new D(item!.cash!).gt(0)).toBe(inv.Type === 'ACCREC');
        expect(item!.newAmount).toBeNull();
      }
      expect(ids('voided_or_deleted')).toContain(voided.InvoiceID);
      expect(ids('new_document')).toContain(fresh.InvoiceID);
      expect(ids('amount_changed')).toContain(edited.InvoiceID);
      const m = cause('dates_moved').items.find((i) => i.documentId === moved.InvoiceID);
      expect(m?.why).toBe('due_date_changed');
      // Names and numbers come with the items.
      const named = cause('new_document').items.find((i) => i.documentId === fresh.InvoiceID)!;
      expect(named.number).toBe(fresh.InvoiceNumber);
      expect(named.contactName).toBe(fresh.Contact.Name);
    }
  }, 300_000);

  it("an operator's opening-cash override is scenario_or_override, exactly, and nothing of it other money", async () => {
    const before = (await get()).body.to!;
    await setCashOverride(api.store.db, org, '123456.78', 'test', day(7));
    await recomputeForecast(api.store.db, org, day(7));
    const { body } = await get('?limit=1');
    const cause = (c: string) => body.causes.find((x) => x.cause === c)!;
    expect(body.to!.startingCash).toBe('123456.78');
    // The books did not change: the whole change of starting cash is the override's, none of it other money.
    expect(cause('scenario_or_override').total).toBe(new D('123456.78').minus(before.startingCash).toFixed());
    expect(cause('opening_cash').total).toBe('0');
    expect(sum(body.causes.map((c) => c.total)).toFixed()).toBe(new D(body.endingCashChange).toFixed());
    await clearCashOverride(api.store.db, org);
    await recomputeForecast(api.store.db, org, new Date(day(7).getTime() + 60_000));
  });

  it('since= compares with the latest forecast on or before that date; limit cuts the lists, not the totals', async () => {
    const all = (await get('?limit=50')).body;
    const since = (await get('?since=2026-11-23&limit=1')).body;
    expect(since.from!.asOfDate).toBe('2026-11-23');
    expect(since.to!.snapshotId).toBe(all.to!.snapshotId);
    expect(sum(since.causes.map((c) => c.total)).toFixed()).toBe(new D(since.endingCashChange).toFixed());
    for (const c of since.causes) expect(c.items.length).toBeLessThanOrEqual(1);
    // Over the three rounds, the invoices paid since the first forecast are all settled.
    expect(since.causes.find((c) => c.cause === 'settled')!.count).toBeGreaterThanOrEqual(all.causes.find((c) => c.cause === 'settled')!.count);
  });

  it('errors name their parameter: a date with no forecast kept on or before it is 404 since; bad values are 400', async () => {
    const early = await get('?since=2026-01-01');
    expect([early.status, early.body.error, early.body.parameter]).toEqual([404, 'not_found', 'since']);
    for (const [q, p] of [['?since=2026-02-30', 'since'], ['?limit=0', 'limit'], ['?limit=x', 'limit']] as const) {
      const r = await get(q);
      expect([r.status, r.body.parameter]).toEqual([400, p]);
    }
  });
});
