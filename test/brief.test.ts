/**
 * The daily brief (spec 2.10, 4.7; docs/brief.md): 404 no_brief_yet, 403 for
 * another organisation, partner keys on linked clients (metered to them),
 * 200 with three sections (headlines of at most 80 characters, refs of
 * customer/category/week), one row per (organisation, UTC day), sensitive
 * names rewritten for keys without READ_SENSITIVE; the premium tier against
 * a local fake chat-completions server, with bad answers falling back to the
 * rules tier; and two workers racing for the same brief on PostgreSQL.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import { startTestApi, type TestApi } from './helpers/http.js';
import { BACKENDS, freshStore, type TestStore } from './helpers/store.js';
import { demo, NOW } from './helpers/ledger.js';
import { importFiles } from '../src/ledger/import.js';
import { recomputeForecast } from '../src/jobs/forecast.js';
import { briefsDue, generateDailyBrief, loadBriefFacts } from '../src/jobs/brief.js';
import { forModel } from '../src/jobs/brief-llm.js';
import { redactBrief, hiddenMentions, type BriefMention } from '../src/domain/brief/redact.js';
import { slugify } from '../src/domain/slug.js';
import { workerTick } from '../src/jobs/worker.js';
import { openStore, type Db, rows } from '../src/store/db.js';
import * as s from '../src/store/schema.js';
import { createOrg, setAccountSensitive, setContactSensitive } from '../src/store/tenancy.js';
import { DailyBriefPayload } from '../src/schemas/brief.js';
import { fixedClock } from '../src/clock.js';
import { SCOPES } from '../src/domain/scopes.js';

const NO_SENSITIVE = SCOPES.filter((x) => x !== 'READ_SENSITIVE');

/** An organisation holding the small demo business and its forecast. */
async function seededOrg(db: Db, input: { name: string; plan?: string }): Promise<string> {
  const { orgId } = await createOrg(db, { name: input.name, plan: input.plan ?? 'Free', now: NOW });
  await importFiles(db, orgId, demo().files, { now: NOW });
  await recomputeForecast(db, orgId, NOW);
  return orgId;
}

/** Flags the customer with the most overdue receivables sensitive; returns its name. */
async function flagTopDebtor(db: Db, orgId: string): Promise<string> {
  const { facts } = await loadBriefFacts(db, orgId, NOW);
  const top = facts.overdue[0];
  expect(top).toBeDefined();
  const [c] = await db.select().from(s.contacts).where(and(eq(s.contacts.orgId, orgId), eq(s.contacts.name, top!.name)));
  await setContactSensitive(db, orgId, c!.id, true);
  return top!.name;
}

describe('GET /api/agent/orgs/{orgId}/daily-brief', () => {
  let api: TestApi;
  let orgId: string;
  let other: string;
  let sensitiveName: string;

  beforeAll(async () => {
    api = await startTestApi('pglite', { now: NOW.toISOString() });
    orgId = await seededOrg(api.store.db, { name: 'Brief Co', plan: 'Reserve' });
    ({ orgId: other } = await api.org({ name: 'Other Co', plan: 'Reserve' }));
    sensitiveName = await flagTopDebtor(api.store.db, orgId);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('404 no_brief_yet before the first brief; 403 for another organisation; 400 naming orgId when malformed', async () => {
    const key = await api.key(orgId);
    const none = await api.get(`/api/agent/orgs/${orgId}/daily-brief`, key);
    expect(none.status).toBe(404);
    expect((await none.json()).error).toBe('no_brief_yet');
    const cross = await api.get(`/api/agent/orgs/${other}/daily-brief`, key);
    expect(cross.status).toBe(403);
    expect((await cross.json()).error).toBe('forbidden');
    const bad = await api.get(`/api/agent/orgs/${encodeURIComponent('bad id!')}/daily-brief`, key);
    expect([400, 403]).toContain(bad.status);
    if (bad.status === 400) expect((await bad.json()).parameter).toBe('orgId');
  });

  it('200: three sections, headlines <= 80, refs of the three kinds, one row per UTC day', async () => {
    const first = await generateDailyBrief(api.store.db, orgId, NOW);
    expect(first).toMatchObject({ created: true, tier: 'rules', asOfDate: '2026-11-23' });
    const again = await generateDailyBrief(api.store.db, orgId, new Date(NOW.getTime() + 3_600_000));
    expect(again.created).toBe(false);
    const [{ n }] = (await rows<{ n: number }>(api.store.db, sql`select count(*)::int as n from daily_briefs where org_id = ${orgId}`)) as [{ n: number }];
    expect(n).toBe(1);

    const res = await api.get(`/api/agent/orgs/${orgId}/daily-brief`, await api.key(orgId));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ orgId, asOfDate: '2026-11-23', generatedAt: NOW.toISOString(), generatorTier: 'rules', redactedItemCount: 0 });
    expect(DailyBriefPayload.safeParse(body.payload).success).toBe(true);
    for (const sec of Object.values(body.payload) as { headline: string; refs: { kind: string }[] }[]) {
      expect(sec.headline.length).toBeLessThanOrEqual(80);
    }
    const kinds = new Set(Object.values(body.payload).flatMap((sec: any) => sec.refs.map((r: any) => r.kind)));
    expect(kinds).toEqual(new Set(['customer', 'category', 'week']));
    // The key with READ_SENSITIVE sees the sensitive customer's name.
    expect(JSON.stringify(body.payload)).toContain(sensitiveName);
    expect(body.ledgerAlert).toMatchObject({ kind: 'no_connection' });
  });

  it('without READ_SENSITIVE the sensitive name is rewritten everywhere (redactedItemCount)', async () => {
    const res = await api.get(`/api/agent/orgs/${orgId}/daily-brief`, await api.key(orgId, NO_SENSITIVE));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.redactedItemCount).toBe(1);
    expect(JSON.stringify(body)).not.toContain(sensitiveName);
    expect(JSON.stringify(body.payload)).toContain('Sensitive contact');
    expect(DailyBriefPayload.safeParse(body.payload).success).toBe(true);
  });

  it('partner keys: any linked client (metered to it), 403 for an unlinked one', async () => {
    const { key } = await api.partner([orgId]);
    const res = await api.get(`/api/agent/orgs/${orgId}/daily-brief`, key);
    expect(res.status).toBe(200);
    const [audit] = await api.audit(orgId);
    expect(audit).toMatchObject({ route: '/api/agent/orgs/:orgId/daily-brief', status: 200, org_id: orgId });
    const credits = await rows<{ n: number }>(api.store.db, sql`select count(*)::int as n from credit_events where org_id = ${orgId}`).catch(() => null);
    if (credits) expect(Number(credits[0]!.n)).toBeGreaterThan(0);
    const denied = await api.get(`/api/agent/orgs/${other}/daily-brief`, key);
    expect(denied.status).toBe(403);
  });
});

describe('redactBrief (pure)', () => {
  it('rewrites refs and text, keeps headlines within 80 characters, counts items', () => {
    const long = 'A Very Long Sensitive Customer Name Pty Ltd';
    const payload = {
      mainDriver: { headline: 'Sales lead the quarter', bodyMarkdown: 'All good.', refs: [{ kind: 'week' as const, weekNumber: 2 }] },
      riskSignal: { headline: `${long} has AUD 12,000 overdue and counting`, bodyMarkdown: `**${long}** owes money.`, refs: [{ kind: 'customer' as const, key: 'a-very-long', displayName: long }] },
      recommendedAction: { headline: `Chase ${long}`, bodyMarkdown: 'Call them.', refs: [] },
    };
    const { payload: out, redacted } = redactBrief(payload, [{ kind: 'customer', id: 'c-1', key: 'a-very-long', displayName: long }]);
    expect(redacted).toBe(1);
    expect(JSON.stringify(out)).not.toContain(long);
    expect(out.riskSignal.refs[0]).toEqual({ kind: 'customer', key: 'sensitive-contact', displayName: 'Sensitive contact' });
    expect(DailyBriefPayload.safeParse(out).success).toBe(true);
  });
});

describe('forModel (pure): what the LLM tier is given', () => {
  it("a note that names a sensitive contact reaches the model scrubbed, and without the note's contact field", () => {
    const text = 'Most of the uncertainty about cash in the week of 7 December 2026 is 2 open invoices of Hidden Holdings, who has paid between 3 and 40 days after the due date.';
    const facts = {
      orgName: 'Org', currency: 'AUD', asOfDate: '2026-11-23', forecast: null, overdue: [], overdueTotal: '0', overdueCustomers: 0,
      notes: [{ kind: 'ar' as const, window: 'this_quarter' as const, severity: 'info' as const, text, contact: { id: 'c-9', name: 'Hidden Holdings' } }],
    };
    const sent = forModel(facts, ['Hidden Holdings']);
    expect(JSON.stringify(sent)).not.toContain('Hidden Holdings');
    expect(sent.notes[0]).toEqual({ kind: 'ar', window: 'this_quarter', severity: 'info', text: text.replace('Hidden Holdings', 'a sensitive party') });
  });
});

describe('redaction helpers (pure)', () => {
  const payload = {
    mainDriver: { headline: 'Acer Traders and Ace lead sales', bodyMarkdown: '**Ace** pays; *Acer Traders* too. Wages (Payroll) are the largest outflow.', refs: [{ kind: 'customer' as const, key: 'ace', displayName: 'Ace' }] },
    riskSignal: { headline: 'Cash dips in week 9', bodyMarkdown: 'Payroll and rent land together.', refs: [{ kind: 'category' as const, key: 'payroll', displayName: 'Payroll' }, { kind: 'week' as const, weekNumber: 9 }] },
    recommendedAction: { headline: 'Chase Ace today', bodyMarkdown: 'Call Ace.', refs: [] },
  };
  const none = { contactIds: new Set<string>(), accountIds: new Set<string>(), names: [] };

  it('a name is matched as a whole word only: hiding "Ace" leaves "Acer Traders"', () => {
    const mentions: BriefMention[] = [{ kind: 'customer', id: 'c-ace', key: 'ace', displayName: 'Ace' }];
    const hidden = hiddenMentions(payload, mentions, { ...none, contactIds: new Set(['c-ace']) }, slugify);
    const { payload: out, redacted } = redactBrief(payload, hidden);
    expect(redacted).toBe(1);
    expect(out.mainDriver.headline).toBe('Acer Traders and Sensitive contact lead sales');
    expect(out.mainDriver.bodyMarkdown).toBe('**Sensitive contact** pays; *Acer Traders* too. Wages (Payroll) are the largest outflow.');
    expect(out.mainDriver.refs[0]).toEqual({ kind: 'customer', key: 'sensitive-contact', displayName: 'Sensitive contact' });
    expect(out.recommendedAction).toMatchObject({ headline: 'Chase Sensitive contact today', bodyMarkdown: 'Call Sensitive contact.' });
  });

  it('only mentions sensitive now are hidden; an id-less (legacy) entry always is; a sensitive name without a mention is found in the text', () => {
    const mentions: BriefMention[] = [
      { kind: 'customer', id: 'c-ace', key: 'ace', displayName: 'Ace' },
      { kind: 'category', id: 'a-pay', key: 'payroll', displayName: 'Payroll' },
    ];
    expect(hiddenMentions(payload, mentions, none, slugify)).toEqual([]);
    expect(hiddenMentions(payload, mentions, { ...none, accountIds: new Set(['a-pay']) }, slugify).map((m) => m.displayName)).toEqual(['Payroll']);
    expect(hiddenMentions(payload, [{ ...mentions[0]!, id: null }], none, slugify).map((m) => m.displayName)).toEqual(['Ace']);
    const byName = hiddenMentions(payload, [], { ...none, names: [{ kind: 'customer', name: 'Acer Traders' }] }, slugify);
    expect(byName).toEqual([{ kind: 'customer', id: null, key: 'acer-traders', displayName: 'Acer Traders' }]);
    const { payload: out, redacted } = redactBrief(payload, byName);
    expect(redacted).toBe(1);
    expect(JSON.stringify(out)).not.toContain('Acer Traders');
    expect(out.mainDriver.headline).toBe('Sensitive contact and Ace lead sales');
  });
});

describe.each(BACKENDS)('redaction is decided at read time, from the flags as they are now (%s)', (kind) => {
  let api: TestApi;
  let orgId: string;
  beforeAll(async () => {
    api = await startTestApi(kind, { now: NOW.toISOString() });
    orgId = await seededOrg(api.store.db, { name: 'Flag Later Co', plan: 'Free' });
    expect((await generateDailyBrief(api.store.db, orgId, NOW)).created).toBe(true);
  });
  afterAll(async () => {
    await api?.close();
  });

  const read = async (key: string) => {
    const res = await api.get(`/api/agent/orgs/${orgId}/daily-brief`, key);
    expect(res.status).toBe(200);
    return res.json() as Promise<{ payload: DailyBriefPayload; redactedItemCount: number }>;
  };

  it('generate, flag a customer and an account it names, read (hidden), unflag, read (shown)', async () => {
    const db = api.store.db;
    const [row] = await db.select().from(s.dailyBriefs).where(eq(s.dailyBriefs.orgId, orgId));
    const mentions = row!.mentions as BriefMention[];
    const customer = mentions.find((m) => m.kind === 'customer');
    const category = mentions.find((m) => m.kind === 'category');
    expect(customer, 'the brief names a customer').toBeDefined();
    expect(category, 'the brief names an account').toBeDefined();
    const restricted = await api.key(orgId, NO_SENSITIVE);
    const full = await api.key(orgId);

    // Nothing flagged when the brief was written, nor now: every name shows.
    const before = await read(restricted);
    expect(before.redactedItemCount).toBe(0);
    expect(JSON.stringify(before.payload)).toContain(customer!.displayName);
    expect(JSON.stringify(before.payload)).toContain(category!.displayName);

    // Flagged after the brief was written: hidden from the next read on, with the lists' labels.
    await setContactSensitive(db, orgId, customer!.id!, true);
    await setAccountSensitive(db, orgId, category!.id!, true);
    const hidden = await read(restricted);
    expect(hidden.redactedItemCount).toBe(2);
    expect(JSON.stringify(hidden.payload)).not.toContain(customer!.displayName);
    expect(JSON.stringify(hidden.payload)).not.toContain(category!.displayName);
    const refs = Object.values(hidden.payload).flatMap((sec) => sec.refs);
    expect(refs).toContainEqual({ kind: 'customer', key: 'sensitive-contact', displayName: 'Sensitive contact' });
    expect(refs).toContainEqual({ kind: 'category', key: 'sensitive-account', displayName: 'Sensitive account' });
    expect(DailyBriefPayload.safeParse(hidden.payload).success).toBe(true);
    // The same label the contacts list uses for the same contact, which the list drops for this key.
    const list = await (await api.get('/api/agent/contacts?autoPaginate=true', restricted)).json();
    expect(list.contacts.map((c: { id: string }) => c.id)).not.toContain(customer!.id);
    // A key with READ_SENSITIVE still sees them.
    const seen = await read(full);
    expect(seen.redactedItemCount).toBe(0);
    expect(JSON.stringify(seen.payload)).toContain(customer!.displayName);

    // Unflagged: shown again.
    await setContactSensitive(db, orgId, customer!.id!, false);
    await setAccountSensitive(db, orgId, category!.id!, false);
    const shown = await read(restricted);
    expect(shown.redactedItemCount).toBe(0);
    expect(JSON.stringify(shown.payload)).toContain(customer!.displayName);
    expect(JSON.stringify(shown.payload)).toContain(category!.displayName);
  });
});

// ---------------------------------------------------------------------------
// The premium tier against a fake chat-completions server
// ---------------------------------------------------------------------------

type Mode = 'good' | 'not_json' | 'fenced' | 'long_headline' | 'unknown_ref' | 'slow' | 'http_500' | 'link' | 'drop' | 'drop_once';

function goodPayload(customer?: { key: string; displayName: string }) {
  return {
    mainDriver: { headline: 'Sales carry the next 13 weeks', bodyMarkdown: 'Receipts from sales lead the outlook, **steady** through week 13.', refs: [{ kind: 'week', weekNumber: 1 }] },
    riskSignal: { headline: 'Overdue receivables are growing', bodyMarkdown: '*Several customers* are late.', refs: customer ? [{ kind: 'customer', ...customer }] : [] },
    recommendedAction: { headline: 'Chase the largest overdue balance today', bodyMarkdown: 'Call the customer **today**.', refs: [] },
  };
}

async function fakeLlm() {
  let mode: Mode = 'good';
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      bodies.push(text);
      // The connection dies before any answer (as a provider's idle keep-alive socket does when reused).
      if (mode === 'drop' || mode === 'drop_once') {
        if (mode === 'drop_once') mode = 'good';
        req.socket.destroy();
        return;
      }
      const facts = JSON.parse(JSON.parse(text).messages[1].content.replace(/^Facts \(JSON\):\n/, ''));
      const debtor = facts.overdue[0] ? { key: facts.overdue[0].key, displayName: facts.overdue[0].name } : undefined;
      let content: string;
      switch (mode) {
        case 'good':
          content = JSON.stringify(goodPayload(debtor));
          break;
        case 'fenced':
          content = '```json\n' + JSON.stringify(goodPayload(debtor)) + '\n```';
          break;
        case 'not_json':
          content = 'Here is your brief: cash is fine!';
          break;
        case 'long_headline': {
          const p = goodPayload(debtor);
          p.mainDriver.headline = 'x'.repeat(81);
          content = JSON.stringify(p);
          break;
        }
        case 'unknown_ref': {
          const p = goodPayload({ key: 'invented-customer', displayName: 'Invented' });
          content = JSON.stringify(p);
          break;
        }
        case 'link': {
          const p = goodPayload(debtor);
          p.recommendedAction.bodyMarkdown = 'See [the invoice](https://evil.example).';
          content = JSON.stringify(p);
          break;
        }
        case 'http_500':
          res.writeHead(500).end('{"error":"boom"}');
          return;
        case 'slow':
          setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { content: JSON.stringify(goodPayload()) } }] })), 1_500);
          return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content } }] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    bodies,
    setMode: (m: Mode) => {
      mode = m;
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

describe('premium tier (LLM) with fallback to rules', () => {
  let store: TestStore;
  let llm: Awaited<ReturnType<typeof fakeLlm>>;
  let premium: string;
  let free: string;
  let sensitiveName: string;
  const logs: { level: string; msg: string; extra?: Record<string, unknown> }[] = [];
  const log = (level: 'info' | 'warn' | 'error', msg: string, extra?: Record<string, unknown>) => logs.push({ level, msg, ...(extra ? { extra } : {}) });
  const day = (k: number) => new Date(NOW.getTime() + k * 86_400_000);

  beforeAll(async () => {
    store = await freshStore('pglite');
    llm = await fakeLlm();
    premium = await seededOrg(store.db, { name: 'Premium Co', plan: 'Vault' });
    free = await seededOrg(store.db, { name: 'Free Co', plan: 'Free' });
    sensitiveName = await flagTopDebtor(store.db, premium);
  });
  afterAll(async () => {
    await llm?.close();
    await store?.close();
  });

  it('a good answer is stored as the llm tier; sensitive names never reach the model', async () => {
    llm.setMode('good');
    const cfg = { baseUrl: llm.url, model: 'test-model', apiKey: 'sk-test', timeoutMs: 1_000 };
    const r = await generateDailyBrief(store.db, premium, day(0), { llm: cfg, log });
    expect(r).toMatchObject({ created: true, tier: 'llm' });
    const sent = llm.bodies.at(-1)!;
    expect(sent).not.toContain(sensitiveName);
    expect(sent).toContain('Sensitive contact 1');
    const [row] = await store.db.select().from(s.dailyBriefs).where(and(eq(s.dailyBriefs.orgId, premium), eq(s.dailyBriefs.asOfDate, '2026-11-23')));
    expect(row!.generatorTier).toBe('llm');
    // Its mentions (the parties it names, with ids) hold no sensitive name: the model never saw one.
    expect(JSON.stringify(row!.mentions)).not.toContain(sensitiveName);
    expect(JSON.stringify(row!.payload)).not.toContain(sensitiveName);
    // The free plan stays on rules, without calling the model.
    const calls = llm.bodies.length;
    expect((await generateDailyBrief(store.db, free, day(0), { llm: cfg, log })).tier).toBe('rules');
    expect(llm.bodies.length).toBe(calls);
  });

  it.each<[Mode, string]>([
    ['not_json', 'not_json'],
    ['long_headline', 'invalid_shape'],
    ['link', 'invalid_shape'],
    ['unknown_ref', 'unknown_ref'],
    ['http_500', 'http'],
    ['slow', 'timeout'],
    ['drop', 'network: fetch failed \\(.+\\)'],
  ])('a bad answer (%s) falls back to rules for that day, logged', async (mode, reason) => {
    llm.setMode(mode);
    const k = ['not_json', 'long_headline', 'link', 'unknown_ref', 'http_500', 'slow', 'drop'].indexOf(mode) + 1;
    const r = await generateDailyBrief(store.db, premium, day(k), { llm: { baseUrl: llm.url, model: 'm', timeoutMs: 400 }, log });
    expect(r.tier).toBe('rules');
    expect(r.created).toBe(true);
    expect(r.fallback).toMatch(new RegExp(`^${reason}`));
    expect(logs.at(-1)).toMatchObject({ level: 'warn', extra: { orgId: premium, reason: expect.stringMatching(new RegExp(`^${reason}`)) } });
  });

  it("one worker tick chains the day's work: nightly baselines, then the forecast snapshot, then the brief (premium: llm)", async () => {
    llm.setMode('good');
    const at = new Date('2026-12-20T07:00:00Z'); // 18:00 in Sydney: the nightly run is due; after 06:00 UTC: the brief too
    const r = await workerTick({ db: store.db, clock: fixedClock(at), ledger: null, llm: { baseUrl: llm.url, model: 'm' }, syncEveryMs: 60_000, log });
    expect(r.errors).toEqual([]);
    expect(r.baselines.ran.map((x) => x.orgId).sort()).toEqual([premium, free].sort());
    expect(r.forecasts.sort()).toEqual([premium, free].sort());
    expect(r.briefs.map((b) => [b.orgId, b.tier, b.created, b.fallback ?? null]).sort()).toEqual([[premium, 'llm', true, null], [free, 'rules', true, null]].sort());
    const again = await workerTick({ db: store.db, clock: fixedClock(new Date(at.getTime() + 60_000)), ledger: null, llm: null, syncEveryMs: 60_000 });
    expect([again.baselines.ran, again.forecasts, again.briefs]).toEqual([[], [], []]);
  });

  it('a connection dropped before any answer is tried once more on a fresh one: the llm tier still writes the day', async () => {
    llm.setMode('drop_once');
    const calls = llm.bodies.length;
    const r = await generateDailyBrief(store.db, premium, day(11), { llm: { baseUrl: llm.url, model: 'm' }, log });
    expect(r).toMatchObject({ tier: 'llm', created: true });
    expect(r.fallback).toBeUndefined();
    expect(llm.bodies.length).toBe(calls + 2);
  });

  it('a fenced JSON answer is accepted', async () => {
    llm.setMode('fenced');
    const r = await generateDailyBrief(store.db, premium, day(10), { llm: { baseUrl: llm.url, model: 'm' }, log });
    expect(r.tier).toBe('llm');
  });
});

// ---------------------------------------------------------------------------
// Workers racing on PostgreSQL
// ---------------------------------------------------------------------------

describe('two workers racing for the same brief (PostgreSQL)', () => {
  let a: TestStore;
  let bDb: Awaited<ReturnType<typeof openStore>>;
  beforeAll(async () => {
    a = await freshStore('postgres');
    bDb = await openStore({ databaseUrl: a.url!, searchPath: a.schema });
  });
  afterAll(async () => {
    await bDb?.close();
    await a?.close();
  });

  it('nothing is due before 06:00 UTC; after it, each organisation gets exactly one brief, written by one worker', async () => {
    const orgs = await Promise.all([1, 2, 3].map(async (i) => (await createOrg(a.db, { name: `Race ${i}`, now: NOW })).orgId));
    expect(await briefsDue(a.db, new Date('2026-11-24T05:59:00Z'))).toEqual([]);
    const at = fixedClock('2026-11-24T06:00:30Z');
    const opts = { clock: at, ledger: null, llm: null, syncEveryMs: 60_000, jobs: ['brief'] as const };
    const [ra, rb] = await Promise.all([
      workerTick({ ...opts, db: a.db, owner: 'worker-a' }),
      workerTick({ ...opts, db: bDb.db, owner: 'worker-b' }),
    ]);
    const written = [...ra.briefs, ...rb.briefs].filter((b) => b.created).map((b) => b.orgId).sort();
    expect(written).toEqual([...orgs].sort());
    const list = await rows<{ org_id: string; n: number }>(a.db, sql`select org_id, count(*)::int as n from daily_briefs group by org_id`);
    expect(list.map((r) => Number(r.n))).toEqual([1, 1, 1]);
    // A direct race of the generator itself: still one row.
    const [x, y] = await Promise.all([generateDailyBrief(a.db, orgs[0]!, new Date('2026-11-25T07:00:00Z')), generateDailyBrief(bDb.db, orgs[0]!, new Date('2026-11-25T07:00:00Z'))]);
    expect([x.created, y.created].filter(Boolean)).toHaveLength(1);
    const [{ n }] = (await rows<{ n: number }>(a.db, sql`select count(*)::int as n from daily_briefs where org_id = ${orgs[0]!} and as_of_date = '2026-11-25'`)) as [{ n: number }];
    expect(Number(n)).toBe(1);
    // The next tick finds nothing due.
    const again = await workerTick({ ...opts, db: a.db, owner: 'worker-a' });
    expect(again.briefs).toEqual([]);
  });
});
