/**
 * The pure parts of the clients: the endpoint catalogue (one entry per
 * endpoint, every parameter with a rule), the parameter checks, the table
 * format and the forecast chart (spec 2.3 ForecastResponse fixture).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from '@hono/zod-openapi';
import { ENDPOINTS, ParamError, checkParam, endpoint, flagOf, paramsOf, toolName } from '../src/schemas/endpoints.js';
import { intParam } from '../src/schemas/query.js';
import { numericFields, renderTable } from '../src/cli/format.js';
import { forecastChart, groupThousands, type ForecastChartInput } from '../src/cli/chart.js';
import { ContactDrillResponse, InvoicesResponse } from '../src/schemas/ledger.js';
import { StatusResponse } from '../src/schemas/status.js';
import { firstSentence, runCli, TABLE_FIRST, TABLE_WIDTH } from '../src/cli/main.js';
import EXAMPLES from '../src/schemas/examples.json' with { type: 'json' };

const forecast = JSON.parse(readFileSync(resolve(import.meta.dirname, 'fixtures', 'forecast-response.json'), 'utf8')) as ForecastChartInput & {
  weeks: { weekStart: string; closing: string }[];
};

const entry = (name: string) => ENDPOINTS.find((e) => e.name === name)!;
const spec = (name: string, param: string) => paramsOf(entry(name)).find((p) => p.name === param)!;

describe('endpoint catalogue', () => {
  it('has one entry per endpoint served today, with X-Service-Tool-safe tool names (spec 5.6) and distinct flags', () => {
    expect(ENDPOINTS.map((e) => e.name)).toEqual([
      'status', 'orgs', 'portfolio', 'bank-accounts', 'account-balances', 'invoices', 'bills', 'credit-notes',
      'credit-note', 'purchase-orders', 'purchase-order', 'contacts', 'contact',
      'cash-position', 'forecast', 'forecast-items', 'forecast-accuracy', 'forecast-changes', 'collections', 'receivables-aged', 'payables-aged', 'scenarios', 'daily-summary', 'revenue', 'expenses', 'contacts-summary', 'cohorts', 'retention', 'brief',
    ]);
    for (const e of ENDPOINTS) {
      expect(`service.${toolName(e)}`).toMatch(/^service\.[a-z_]+$/);
      expect(`service.cli_${toolName(e)}`).toMatch(/^service\.[a-z_]+$/);
      expect(e.path.startsWith('/api/agent/')).toBe(true);
      // A drill's id is {id}, or {orgId} (the server's name) when it defaults to the organisation (the daily brief).
      expect(Boolean(e.id)).toBe(e.path.includes(e.id?.defaultsToOrg && e.path.includes('{orgId}') ? '{orgId}' : '{id}'));
      const flags = paramsOf(e).map((p) => flagOf(p.name));
      expect(new Set(flags).size).toBe(flags.length);
      expect(e.description.length).toBeGreaterThan(80);
    }
    expect(flagOf('autoPaginate')).toBe('all');
    expect(flagOf('contactId')).toBe('contact-id');
    expect(flagOf('topN')).toBe('top-n');
    expect(flagOf('scenarioId')).toBe('scenario');
  });

  it("derives each parameter's kind, bounds and description from the server's schema (integers, booleans, enums, dates)", () => {
    for (const e of ENDPOINTS) for (const p of paramsOf(e)) expect(p.description.length, `${e.name} ${p.name}`).toBeGreaterThan(10);
    expect(spec('invoices', 'limit')).toMatchObject({ kind: 'integer', minimum: 1 });
    expect(spec('invoices', 'limit').maximum).toBeUndefined(); // capped, not refused
    expect(spec('invoices', 'autoPaginate').kind).toBe('boolean');
    expect(spec('invoices', 'dateFrom').kind).toBe('date');
    expect(spec('invoices', 'status').kind).toBe('text');
    expect(spec('forecast', 'weeks')).toMatchObject({ kind: 'integer', minimum: 1, maximum: 13 });
    expect(spec('revenue', 'topN')).toMatchObject({ kind: 'integer', minimum: 1, maximum: 100 });
    expect(spec('retention', 'periods')).toMatchObject({ kind: 'integer', minimum: 1, maximum: 24 });
    expect(spec('retention', 'metric')).toMatchObject({ kind: 'enum', values: ['retention', 'customers', 'revenue'] });
    expect(spec('contacts', 'type')).toMatchObject({ kind: 'enum', values: ['customer', 'supplier', 'both'] });
  });

  it('a parameter added to a server schema reaches the clients with its type and its check, and no client code', () => {
    const e = endpoint({
      name: 'x',
      path: '/api/agent/x',
      query: z.object({ size: intParam({ name: 'size', min: 2, max: 5, default: 2, description: 'How big the thing is.' }) }),
      response: z.object({}),
      summary: 'x',
      description: 'x',
    });
    expect(paramsOf(e)).toEqual([{ name: 'size', kind: 'integer', minimum: 2, maximum: 5, description: 'How big the thing is.' }]);
    expect(checkParam(e, 'size', '--size', '5')).toBe('5');
    expect(() => checkParam(e, 'size', '--size', '6')).toThrow("--size must be a whole number from 2 to 5, got '6'");
    expect(() =>
      endpoint({ name: 'y', path: '/api/agent/y', query: null, response: z.object({}), id: { description: 'id' }, summary: 'y', description: 'y' }),
    ).toThrow(/\{id\}/);
  });

  it("checks values with the server's own parsers: real dates, limit >= 1, top-n 1-100, periods 1-24, weeks 1-13, enums", () => {
    const check = (name: string, param: string, label: string, value: string) => checkParam(entry(name), param, label, value);
    expect(check('invoices', 'dateFrom', '--date-from', '2024-02-29')).toBe('2024-02-29');
    expect(() => check('invoices', 'dateFrom', '--date-from', '2023-02-29')).toThrow(ParamError);
    expect(() => check('invoices', 'dateTo', '--date-to', '2026-1-5')).toThrow(/--date-to must be a real date YYYY-MM-DD/);
    expect(check('invoices', 'limit', '--limit', '500')).toBe('500'); // the server caps it
    expect(() => check('invoices', 'limit', '--limit', '0')).toThrow("--limit must be a whole number of at least 1, got '0'");
    expect(() => check('invoices', 'limit', '--limit', '2.5')).toThrow(ParamError);
    expect(check('revenue', 'topN', '--top-n', '100')).toBe('100');
    expect(() => check('revenue', 'topN', '--top-n', '101')).toThrow(/--top-n must be a whole number from 1 to 100, got '101'/);
    expect(() => check('retention', 'periods', 'periods', '25')).toThrow(/1 to 24/);
    expect(() => check('forecast', 'weeks', '--weeks', '14')).toThrow(/1 to 13/);
    expect(() => check('retention', 'metric', '--metric', 'ltv')).toThrow(/retention, customers, revenue/);
    expect(() => check('contacts', 'type', '--type', 'robots')).toThrow(ParamError);
    expect(() => check('invoices', 'cursor', '--cursor', ' ')).toThrow(/must not be empty/);
    expect(() => check('forecast', 'scenarioId', '--scenario', 'x'.repeat(101))).toThrow(/1 to 100 characters/);
  });
});

describe('--format table', () => {
  const invoices = {
    invoices: [
      { id: 'c', invoiceNumber: 'INV-3', amount: '300.25', currency: 'AUD', expectedDate: '2026-11-01T00:00:00.000Z', actualDate: null, status: 'FORECAST', ledgerStatus: 'AUTHORISED', contactName: 'Acme' },
      { id: 'a', invoiceNumber: 'INV-1', amount: '100.5', currency: 'AUD', expectedDate: '2026-10-01T00:00:00.000Z', actualDate: '2026-10-03T04:00:00.000Z', status: 'ACTUAL', ledgerStatus: 'PAID', contactName: 'Bob' },
      { id: 'b', invoiceNumber: 'INV-2', amount: '12000', currency: 'AUD', expectedDate: '2026-10-01T00:00:00.000Z', actualDate: null, status: 'FORECAST', ledgerStatus: 'AUTHORISED', contactName: null },
    ],
    nextCursor: null,
    totalCount: 3,
    redactedItemCount: 0,
    totals: { byStatus: { PAID: { count: 1, amount: '100.5' }, AUTHORISED: { count: 2, amount: '12300.25' } }, grandTotal: { count: 3, amount: '12400.75' }, currency: 'AUD' },
  };

  it('knows the money fields from the response schema', () => {
    const inv = numericFields(InvoicesResponse);
    expect([...inv.money]).toEqual(expect.arrayContaining(['amount', 'lineAmount']));
    expect(inv.money.has('invoiceNumber')).toBe(false);
    expect(inv.numbers.has('totalCount')).toBe(true);
    const contact = numericFields(ContactDrillResponse);
    expect([...contact.money]).toEqual(expect.arrayContaining(['availableCredit', 'revenueAllTime', 'amount', 'amountDue']));
    expect(numericFields(StatusResponse).numbers.has('remaining')).toBe(true);
  });

  it('aligns columns, right-aligns money with the decimal points lined up, and keeps values exact', () => {
    const out = renderTable(invoices, numericFields(InvoicesResponse));
    const lines = out.split('\n');
    const head = lines.findIndex((l) => l.startsWith('id '));
    expect(lines[head - 1]).toBe('invoices (3)');
    const table = lines.slice(head, head + 5);
    expect(table[1]).toMatch(/^-+( +-+)+$/);
    // Every column starts at the same offset on every row.
    const col = (name: string) => table[0]!.indexOf(name);
    expect(table.slice(2).map((l) => l.slice(col('currency'), col('currency') + 3))).toEqual(['AUD', 'AUD', 'AUD']);
    // Money: right-aligned (ends at the header's end), padded to 2 fraction digits.
    const amountEnd = col('amount') + 'amount'.length;
    const amounts = table.slice(2).map((l) => l.slice(0, amountEnd).trimEnd().split(/\s+/).pop());
    expect(amounts).toEqual(['300.25', '100.50', '12000.00']);
    for (const l of table.slice(2)) expect(l[amountEnd - 1]).toMatch(/\d/);
    expect(new Set(table.slice(2).map((l) => l.indexOf('.'))).size).toBe(1);
    // Midnight-UTC instants show as dates; other instants stay whole.
    expect(table[2]).toContain('2026-11-01 ');
    expect(table[3]).toContain('2026-10-03T04:00:00.000Z');
    // A map of buckets is a table keyed by its keys.
    expect(out).toMatch(/totals\.byStatus\nkey +count +amount\n-+ +-+ +-+\nPAID +1 +100\.50\nAUTHORISED +2 +12300\.25/);
    expect(out).toMatch(/totals\.grandTotal\ncount +3\namount +12400\.75/);
  });

  it('renders drills as sections with their nested lists, and alerts first', () => {
    const out = renderTable(
      {
        contact: {
          id: 'x', name: 'Acme', revenueAllTime: '1234.5', availableCredit: '0', cadence: 'MONTHLY',
          recentPaidInvoices: [{ id: 'i', amount: '5', daysLate: -2 }, { id: 'j', amount: '15.25', daysLate: 12 }],
        },
        redactedItemCount: 0,
        ledgerAlert: { severity: 'critical', kind: 'reconnect_required', message: 'Reconnect Xero', lastSuccessfulSync: null, cta: { label: 'Reconnect', url: 'https://example.test' } },
      },
      numericFields(ContactDrillResponse),
    );
    const lines = out.split('\n');
    expect(lines[0]).toBe('LEDGER ALERT [critical] reconnect_required: Reconnect Xero (last successful sync: never) -> Reconnect: https://example.test');
    expect(out).toContain('\ncontact\nid               x\nname             Acme\nrevenueAllTime   1234.50\navailableCredit        0\ncadence          MONTHLY\n');
    expect(out).toMatch(/contact\.recentPaidInvoices \(2\)\nid +amount +daysLate\n[- ]+\ni +5\.00 +-2\nj +15\.25 +12/);
  });

  it('without a schema, decimal-string columns count as money', () => {
    const out = renderTable({ rows: [{ code: '200', balance: '1.5' }, { code: '3000', balance: '-20' }] });
    expect(out).toContain('code  balance\n----  -------\n200      1.50\n3000   -20.00\n');
  });

  // Issue 19: every answer of the demo (the OpenAPI examples, src/schemas/examples.json) as the CLI prints it.
  const examples = EXAMPLES as Record<string, unknown>;
  const fitted = (path: string) => renderTable(examples[path], { ...numericFields(ENDPOINTS.find((e) => e.path === path)!.response), width: TABLE_WIDTH });

  it('fits an 80-column terminal: every line of every demo answer is at most 80 columns', () => {
    const paths = ENDPOINTS.map((e) => e.path).filter((p) => examples[p] !== undefined);
    expect(paths.length).toBeGreaterThan(20);
    for (const path of paths) {
      const wide = fitted(path).split('\n').filter((l) => l.length > TABLE_WIDTH);
      expect(wide, `${path}: lines over ${TABLE_WIDTH} columns`).toEqual([]);
    }
    // The same answers unfitted are much wider: the fitting is what keeps them in.
    expect(Math.max(...renderTable(examples['/api/agent/invoices'], numericFields(InvoicesResponse)).split('\n').map((l) => l.length))).toBeGreaterThan(150);
  });

  it('a wide list keeps its ids whole and its amounts right-aligned, names what it leaves out, and wraps long text', () => {
    const out = fitted('/api/agent/invoices');
    const lines = out.split('\n');
    const head = lines.findIndex((l) => l.startsWith('id '));
    expect(lines[head - 1]).toMatch(/^invoices \(\d+\)$/);
    const header = lines[head]!;
    expect(header).toMatch(/^id +invoiceNumber .*amount/);
    const rows = lines.slice(head + 2, lines.indexOf('', head));
    const body = (examples['/api/agent/invoices'] as { invoices: { id: string; invoiceNumber: string; amount: string }[] }).invoices;
    // The first column (the id a drill takes) is never cut.
    expect(rows.filter((r) => !r.startsWith(' ')).map((r) => r.split(' ')[0])).toEqual(body.map((i) => i.id));
    // Money right-aligned: each amount ends where the header 'amount' ends, decimal points lined up, values exact.
    const end = header.indexOf('amount') + 'amount'.length;
    const amounts = rows.filter((r) => !r.startsWith(' ')).map((r) => r.slice(0, end).trimEnd().split(/\s+/).pop()!);
    expect(amounts.map((a) => Number(a))).toEqual(body.map((i) => Number(i.amount)));
    expect(new Set(rows.filter((r) => !r.startsWith(' ')).map((r) => r.slice(0, end).lastIndexOf('.'))).size).toBe(1);
    // What did not fit is named, so nothing is lost silently.
    expect(out).toMatch(/\(not shown, to fit 80 columns: [^)]*externalId[^)]*; --format json has every field\)/);
    // Long text of a record wraps under itself (the daily summary's narrative).
    const daily = fitted('/api/agent/daily-summary').split('\n');
    const at = daily.findIndex((l) => l.startsWith('narrative '));
    expect(daily[at + 1]).toMatch(/^ {11,}\S/);
    const narrative = (examples['/api/agent/daily-summary'] as { narrative: string }).narrative;
    const indent = daily[at]!.indexOf(narrative.slice(0, 10));
    const rejoined = [daily[at]!.slice(indent), ...daily.slice(at + 1).filter((l, i, all) => all.slice(0, i + 1).every((x) => x.startsWith(' '.repeat(indent)))).map((l) => l.trim())].join(' ');
    expect(rejoined).toBe(narrative);
  });

  it("issue 17: a forecast's weeks keep what a person reads first (inflow, outflow, closing, its 80% band, the shortfall chance) and leave the accounts' breakdown out", () => {
    const out = renderTable(examples['/api/agent/forecast'], { ...numericFields(entry('forecast').response), width: TABLE_WIDTH, first: TABLE_FIRST.forecast! });
    const lines = out.split('\n');
    const head = lines.findIndex((l) => l.startsWith('weekStart '));
    expect(lines[head]).toMatch(/^weekStart +inflow +outflow +closing +closing P10 +closing P90 +shortfall$/);
    const body = examples['/api/agent/forecast'] as { weeks: { closing: string; bands: { closing: { p10: string; p90: string } } }[] };
    const rows = lines.slice(head + 2, head + 2 + body.weeks.length);
    rows.forEach((r, i) => {
      const cells = r.trim().split(/\s+/);
      // closing, P10 and P90 are the week's, exact, right-aligned money.
      expect(cells.slice(3, 6).map(Number)).toEqual([body.weeks[i]!.closing, body.weeks[i]!.bands.closing.p10, body.weeks[i]!.bands.closing.p90].map(Number));
    });
    const p10 = lines[head]!.indexOf('closing P10') + 'closing P10'.length;
    expect(new Set(rows.map((r) => r.slice(0, p10).lastIndexOf('.')))).toEqual(new Set([p10 - 3]));
    // The accounts' breakdown (a map keyed by account) says least: left out, and named.
    expect(lines[head]).not.toContain('categories');
    expect(out).toMatch(/\(not shown, to fit 80 columns: [^)]*categories\.…/);
    // Without the hint, a map's field is still no column a person reads first (a name under categories.accounts is not a contact's).
    const plain = renderTable(examples['/api/agent/forecast'], { ...numericFields(entry('forecast').response), width: TABLE_WIDTH });
    expect(plain.split('\n').find((l) => l.startsWith('weekStart '))).not.toContain('categories');
  });

  it("the track record's horizons keep whether the ranges held: each horizon's receipts and closing WAPE and their share inside the 80% band", () => {
    const out = renderTable(examples['/api/agent/forecast/accuracy'], { ...numericFields(entry('forecast-accuracy').response), width: TABLE_WIDTH, first: TABLE_FIRST['forecast-accuracy']! });
    const lines = out.split('\n');
    const head = lines.findIndex((l) => l.startsWith('weeksAhead '));
    expect(lines[head]).toMatch(/^weeksAhead +receipts WAPE +receipts in band +closing WAPE +closing in band$/);
    const body = examples['/api/agent/forecast/accuracy'] as { horizons: { receipts: { wape: number | null; coverage80: number | null } }[] };
    const first = lines[head + 2]!.trim().split(/\s+/);
    expect(first.slice(1, 3).map(Number)).toEqual([body.horizons[0]!.receipts.wape, body.horizons[0]!.receipts.coverage80]);
  });

  it('leaves a table that fits as it is', () => {
    const narrow = renderTable({ rows: [{ code: '200', balance: '1.5' }] }, { width: TABLE_WIDTH });
    expect(narrow).toBe(renderTable({ rows: [{ code: '200', balance: '1.5' }] }));
  });
});

describe('cashline --help', () => {
  const help = async (args: string[]) => {
    let out = '';
    const io = { stdout: (t: string) => void (out += t), stderr: (t: string) => void (out += t), env: {} };
    expect(await runCli([...args, '--help'], io)).toBe(0);
    return out;
  };
  const flat = (s: string) => s.replace(/\s+/g, ' ');

  it("shows each flag with the first sentence of the server's description of its parameter (the OpenAPI document's)", async () => {
    for (const name of ['invoices', 'contacts', 'forecast', 'revenue', 'retention']) {
      const out = flat(await help([name]));
      for (const p of paramsOf(entry(name))) {
        expect(out, `${name} --${flagOf(p.name)}`).toContain(`--${flagOf(p.name)}`);
        expect(out, `${name} --${flagOf(p.name)}`).toContain(flat(firstSentence(p.description)));
      }
    }
    const invoices = flat(await help(['invoices']));
    expect(invoices).toContain(
      "--overdue Only what is overdue: AUTHORISED, still owed (amountDue above 0) and due before today in the organisation's time zone",
    );
    expect(invoices).toContain('--status <value> Comma-separated statuses from DRAFT, SUBMITTED, AUTHORISED, PAID, VOIDED, DELETED (OR semantics; case-insensitive;');
    expect(invoices).toMatch(/--limit <n> Rows per page: default \d+; values above 200 are capped at 200/);
  });

  it('takes the first sentence, not a stop inside parentheses, quotes or an abbreviation, and drops markdown code marks', () => {
    expect(firstSentence('One (a. b. c). Two.')).toBe('One (a. b. c)');
    expect(firstSentence("Finds ('a. b' too), e.g. this. Then.")).toBe("Finds ('a. b' too), e.g. this");
    expect(firstSentence('Rows per page: default 50; capped at 200.')).toBe('Rows per page: default 50; capped at 200');
    expect(firstSentence('Names are `Sensitive account` here. More.')).toBe('Names are Sensitive account here');
    expect(firstSentence('A version 1.5 value')).toBe('A version 1.5 value');
  });
});

describe('forecast chart', () => {
  const bars = (out: string) => out.split('\n').filter((l) => /^\s?\d+  \d{4}-\d{2}-\d{2}/.test(l));

  it('draws the 13 weeks of a ForecastResponse in order, one bar each, labelled with the exact closing cash', () => {
    const out = forecastChart(forecast, { width: 48 });
    expect(out.split('\n')[0]).toBe('Closing cash by week, 13 weeks (Base)');
    const rows = bars(out);
    expect(rows).toHaveLength(13);
    rows.forEach((r, i) => {
      expect(r.startsWith(`${String(i + 1).padStart(2)}  ${forecast.weeks[i]!.weekStart}  `)).toBe(true);
      // The exact amount, as --format table shows money: grouped, and in cents ('18250.4' as 18,250.40).
      const [whole, fraction = ''] = forecast.weeks[i]!.closing.split('.');
      expect(r).toContain(`${groupThousands(whole!)}.${fraction.padEnd(2, '0')}`);
    });
    expect(out).toContain(`starting 18,250.40, ending 7,050.35, lowest -1,449.90 (week 7, ${forecast.weeks[6]!.weekStart})`);
    expect(rows[6]).toMatch(/<- lowest$/);
    expect(rows.filter((r) => r.includes('<- lowest'))).toHaveLength(1);
  });

  it('bar lengths follow the amounts, from one zero axis; negative weeks go left of it', () => {
    const rows = bars(forecastChart(forecast, { width: 48 }));
    const axis = rows.map((r) => r.indexOf('|'));
    expect(new Set(axis).size).toBe(1);
    const pos = rows.map((r) => (r.match(/█/g) ?? []).length);
    const neg = rows.map((r) => (r.match(/▓/g) ?? []).length);
    const closings = forecast.weeks.map((w) => Number(w.closing));
    // Largest positive week: the full right side (span 17,900.3 over 48 columns: 4 left, 44 right).
    expect(pos[0]).toBe(44);
    expect(neg[6]).toBe(4);
    expect(neg[3]).toBe(4); // -1,349.9 is 3.6 columns
    closings.forEach((c, i) => {
      if (c < 0) expect(pos[i]).toBe(0);
      else expect(neg[i]).toBe(0);
      for (let j = 0; j < closings.length; j++)
        if (c >= 0 && closings[j]! >= 0 && c > closings[j]!) expect(pos[i]).toBeGreaterThanOrEqual(pos[j]!);
    });
    // 2,950.35 over 17,900.3 of 48 columns is 7.9: 8.
    expect(pos[7]).toBe(8);
  });

  it('all-positive weeks have no left side; flat zero weeks draw no bars; the lowest week is found when not given', () => {
    const up = forecastChart({ startingCash: '10', endingCash: '30', weeks: [{ weekStart: '2026-01-05', closing: '10' }, { weekStart: '2026-01-12', closing: '30' }] }, { width: 30 });
    const [a, b] = bars(up);
    expect(a).not.toContain('|');
    expect((a!.match(/█/g) ?? []).length).toBe(10);
    expect((b!.match(/█/g) ?? []).length).toBe(30);
    expect(a).toMatch(/<- lowest$/);
    const flat = forecastChart({ startingCash: '0', endingCash: '0', weeks: [{ weekStart: '2026-01-05', closing: '0' }] });
    expect(flat).not.toMatch(/[█▓]/);
    expect(forecastChart({ startingCash: '0', endingCash: '0', weeks: [] })).toContain('(no weeks)');
  });

  it('issue 17: with bands, each week shows its 80% band from P10 to P90 around the bar, the range in figures, and the chance of going below zero', () => {
    const weeks = [
      { weekStart: '2026-01-05', closing: '100', bands: { closing: { p10: '60', p90: '140' }, calibrated: true } },
      { weekStart: '2026-01-12', closing: '50', bands: { closing: { p10: '-50', p90: '150' }, calibrated: true } },
    ];
    const out = forecastChart({ startingCash: '120', endingCash: '50', weeks, shortfall: { threshold: '0', probability: 0.23, firstLikelyWeekIndex: 1 } }, { width: 40 });
    const [a, b] = bars(out);
    // Span -50..150 over 40 columns (5 per 25): axis after 10 columns.
    expect(a!.indexOf('|')).toBe(b!.indexOf('|'));
    expect((a!.match(/█/g) ?? []).length).toBe(20);
    expect((a!.match(/░/g) ?? []).length).toBe(8); // 100 to 140 beyond the bar (columns 21-28)
    expect((b!.match(/█/g) ?? []).length).toBe(10);
    expect((b!.match(/░/g) ?? []).length).toBe(30); // -50 to 0 on the left, 50 to 150 on the right
    expect(a).toContain('P10 60 .. P90 140');
    expect(b).toContain('P10 -50 .. P90 150');
    expect(out).toContain('░ 80% band (P10 to P90');
    expect(out).not.toContain('not yet calibrated');
    expect(out).toContain('chance of going below zero in the 13 weeks: 23%, most likely first in week 2 (2026-01-12)');
    expect(out).not.toContain('line up');
    const cushioned = forecastChart({ startingCash: '120', endingCash: '50', weeks, shortfall: { threshold: '0', probability: 0.23, firstLikelyWeekIndex: 1, cushion90: '1250.5' } }, { width: 40 });
    expect(cushioned).toContain('cash to line up today to stay above zero in 9 futures of 10: 1,250.5');
    const uncalibrated = forecastChart({ startingCash: '1', endingCash: '1', weeks: [{ ...weeks[0]!, bands: { ...weeks[0]!.bands, calibrated: false } }] });
    expect(uncalibrated).toContain("not yet calibrated on this organisation's history");
  });

  it('groups thousands exactly', () => {
    expect(groupThousands('1234567.891')).toBe('1,234,567.891');
    expect(groupThousands('-1000')).toBe('-1,000');
    expect(groupThousands('999')).toBe('999');
  });
});
