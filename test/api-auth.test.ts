/**
 * Authentication, scopes and tenancy of the agent API through real HTTP, on
 * PGlite and PostgreSQL (spec 5, spec 7, decisions.md "Errors" and "Partner keys").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from './helpers/store.js';
import { keyPrefixOf, rawGet, rawRequest, startTestApi, testRoutes, type TestApi } from './helpers/http.js';
import { generateKey } from '../src/domain/keys.js';
import * as s from '../src/store/schema.js';

describe.each(BACKENDS)('agent API authentication and tenancy on %s', (kind) => {
  let api: TestApi;
  let org: { orgId: string; userId: string; billingAccountId: string };
  let key: string;

  beforeAll(async () => {
    api = await startTestApi(kind, { extraRoutes: testRoutes });
    org = await api.org({ name: 'Acme', plan: 'Reserve' });
    key = await api.key(org.orgId);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('missing, malformed, long, multi-byte, unknown, wrong-secret, wrong-kind and revoked keys all get one byte-identical 401', async () => {
    // spec 7: "401 Unauthorized: missing bearer, bad token prefix or revoked key (not differentiated)";
    // spec 5.1: "Every endpoint requires Authorization: Bearer <API_KEY>".
    const revoked = await api.key(org.orgId);
    await api.revoke(revoked);
    const secret = key.split('_')[3]!;
    const wrongSecret = key.replace(secret, secret.startsWith('A') ? 'B'.repeat(40) : 'A'.repeat(40));
    const cases: [string, Record<string, string>][] = [
      ['missing', {}],
      ['not a key', { authorization: 'Bearer not-a-key' }],
      ['empty bearer', { authorization: 'Bearer ' }],
      ['scheme only', { authorization: 'Bearer' }],
      ['basic scheme', { authorization: `Basic ${key}` }],
      ['two tokens', { authorization: `Bearer ${key} ${key}` }],
      ['key without scheme', { authorization: key }],
      ['very long', { authorization: `Bearer ${'x'.repeat(12_000)}` }],
      ['long key-shaped', { authorization: `Bearer cl_user_${'a'.repeat(12)}_${'A'.repeat(5_000)}` }],
      ['unknown prefix', { authorization: `Bearer ${generateKey('USER').key}` }],
      ['wrong secret', { authorization: `Bearer ${wrongSecret}` }],
      ['user key presented as a partner key', { authorization: `Bearer ${key.replace('cl_user_', 'cl_partner_')}` }],
      ['revoked', { authorization: `Bearer ${revoked}` }],
    ];
    const seen = new Set<string>();
    for (const [name, headers] of cases) {
      const res = await api.fetch('/api/agent/status', { headers });
      expect(res.status, name).toBe(401);
      expect(res.headers.get('content-type'), name).toMatch(/^application\/json/);
      seen.add(await res.text());
    }
    // Multi-byte and very long values, sent as raw bytes (a fetch client refuses them).
    const multiByte = await rawRequest(api.url, rawGet('/api/agent/status', [Buffer.from('Authorization: Bearer cl_user_é漢字_🙂🙂🙂', 'utf8')]));
    expect(multiByte.status).toBe(401);
    seen.add(multiByte.body);
    const huge = await rawRequest(api.url, rawGet('/api/agent/orgs', [Buffer.from(`Authorization: Bearer ${'é'.repeat(20_000)}`, 'utf8')]));
    expect(huge.status).toBe(401);
    seen.add(huge.body);
    expect(seen.size).toBe(1);
    expect(JSON.parse([...seen][0]!)).toEqual({ error: 'unauthorized', message: expect.any(String) });
  });

  it('a revoked key is refused at once', async () => {
    // decisions.md: "cashline-server key revoke --prefix P"; spec 7: revoked key -> 401.
    const k = await api.key(org.orgId);
    expect((await api.get('/api/agent/orgs', k)).status).toBe(200);
    await api.revoke(k);
    const res = await api.get('/api/agent/orgs', k);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'unauthorized' });
  });

  it('a key without the endpoint scope gets 403 insufficient_scope; status and orgs need none', async () => {
    // spec 5.5: "A key without the endpoint's required scope receives 403"; decisions.md: insufficient_scope 403;
    // spec 5.3: "The status, orgs and daily-brief endpoints need no specific scope".
    const k = await api.key(org.orgId, ['READ_INVOICES']);
    const res = await api.get('/api/agent/test-items/a', k);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'insufficient_scope', message: expect.stringContaining('READ_BANK') });
    expect((await api.get('/api/agent/test-items/a', await api.key(org.orgId, ['READ_BANK']))).status).toBe(200);
    expect((await api.get('/api/agent/status', k)).status).toBe(200);
    expect((await api.get('/api/agent/orgs', k)).status).toBe(200);
  });

  it('partner keys: org_required without an organisation, forbidden outside the practice, the linked organisation otherwise', async () => {
    // decisions.md: "Partner keys choose the organisation per request with header X-Service-Org-Id (or query orgId);
    // missing -> 400 org_required, an org outside the practice -> 403 forbidden."
    const a = await api.org({ name: 'Linked A', plan: 'Reserve' });
    const b = await api.org({ name: 'Linked B', plan: 'Reserve' });
    const outside = await api.org({ name: 'Outside', plan: 'Reserve' });
    const { key: pkey, partnerId } = await api.partner([a.orgId, b.orgId]);

    const missing = await api.get('/api/agent/test-items/x', pkey);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: 'org_required' });

    const foreign = await api.get('/api/agent/test-items/x', pkey, { 'X-Service-Org-Id': outside.orgId });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: 'forbidden' });
    const unknown = await api.get('/api/agent/test-items/x', pkey, { 'X-Service-Org-Id': 'no-such-org' });
    expect(unknown.status).toBe(403);

    const viaHeader = await api.get('/api/agent/test-items/x', pkey, { 'X-Service-Org-Id': a.orgId });
    expect(viaHeader.status).toBe(200);
    expect((await viaHeader.json()).orgId).toBe(a.orgId);
    const viaQuery = await api.get(`/api/agent/test-items/x?orgId=${b.orgId}`, pkey);
    expect((await viaQuery.json()).orgId).toBe(b.orgId);
    // The header takes precedence over the query parameter.
    const both = await api.get(`/api/agent/test-items/x?orgId=${outside.orgId}`, pkey, { 'X-Service-Org-Id': a.orgId });
    expect((await both.json()).orgId).toBe(a.orgId);

    // The audit log records the partner and the target organisation.
    const [row] = await api.audit(a.orgId);
    expect(row).toMatchObject({ partner_id: partnerId, user_id: null, key_prefix: keyPrefixOf(pkey), route: '/api/agent/test-items/:id' });
  });

  it('partner keys call /status and /orgs without an organisation; /orgs lists the linked ones sorted by name', async () => {
    // decisions.md: "/orgs and /status need no organisation: a partner key without one gets its reachable
    // organisations, and a status whose usage is null"; spec 2.10 OrgsResponse "orgs (array of object sorted by name)";
    // decisions.md: "orgs[] {id, name, slug}".
    const c = await api.org({ name: 'charlie Café' });
    const b = await api.org({ name: 'Bravo Pty' });
    const a = await api.org({ name: 'alpha & Sons' });
    await api.org({ name: 'Not linked' });
    const { key: pkey } = await api.partner([c.orgId, b.orgId, a.orgId], ['READ_BANK']);

    const res = await api.get('/api/agent/orgs', pkey);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      keyKind: 'PARTNER',
      orgs: [
        { id: a.orgId, name: 'alpha & Sons', slug: 'alpha-and-sons' },
        { id: b.orgId, name: 'Bravo Pty', slug: 'bravo-pty' },
        { id: c.orgId, name: 'charlie Café', slug: 'charlie-cafe' },
      ],
    });

    const st = await (await api.get('/api/agent/status', pkey)).json();
    expect(st.usage).toBeNull();
    expect(st.key).toMatchObject({ kind: 'PARTNER', orgId: null, scopes: ['READ_BANK'] });
    const st2 = await (await api.get('/api/agent/status', pkey, { 'X-Service-Org-Id': b.orgId })).json();
    expect(st2.key.orgId).toBe(b.orgId);
    expect(st2.usage).toMatchObject({ remaining: 10 }); // Free plan of the client organisation
  });

  it('a user key may name only its own organisation', async () => {
    // decisions.md: "A user key may send it only with its own organisation's id"; spec 5.2 "bound to one organisation".
    const other = await api.org({ name: 'Other', plan: 'Reserve' });
    const own = await api.get('/api/agent/orgs', key, { 'X-Service-Org-Id': org.orgId });
    expect(own.status).toBe(200);
    for (const res of [
      await api.get('/api/agent/orgs', key, { 'X-Service-Org-Id': other.orgId }),
      await api.get('/api/agent/status', key, { 'X-Service-Org-Id': other.orgId }),
      await api.get(`/api/agent/test-items/x?orgId=${other.orgId}`, key),
    ]) {
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ error: 'forbidden' });
    }
  });

  it('a malformed organisation id is a 400 naming the parameter', async () => {
    // decisions.md: "A malformed known parameter is a 400 that names it".
    const res = await api.get('/api/agent/orgs', key, { 'X-Service-Org-Id': 'bad id; drop table' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'bad_request', parameter: 'X-Service-Org-Id', message: expect.stringContaining('X-Service-Org-Id') });
    const q = await api.get(`/api/agent/orgs?orgId=${'x'.repeat(300)}`, key);
    expect(await q.json()).toMatchObject({ error: 'bad_request', parameter: 'orgId' });
  });

  it("a user key's /orgs lists the organisations its user belongs to, sorted by name", async () => {
    // spec 2.10: "For USER keys these are the organisations the key's creator belongs to".
    const z = await api.org({ name: 'Zulu Ltd' });
    const y = await api.org({ name: 'Yankee Ltd' });
    await api.store.db.insert(s.memberships).values({ orgId: y.orgId, userId: z.userId, role: 'member', createdAt: api.clock.now() });
    const body = await (await api.get('/api/agent/orgs', await api.key(z.orgId))).json();
    expect(body.keyKind).toBe('USER');
    expect(body.orgs).toEqual([
      { id: y.orgId, name: 'Yankee Ltd', slug: 'yankee-ltd' },
      { id: z.orgId, name: 'Zulu Ltd', slug: 'zulu-ltd' },
    ]);
  });
});
