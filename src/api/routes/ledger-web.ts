/**
 * The ledger's web endpoints, outside the agent API (docs/sync.md "Connect
 * your Xero", "Webhooks"):
 * - `GET /connect/xero?org&expires&sig[&tenant]` (a signed link printed by
 *   `cashline-server ledger link`): sends the browser to Xero's consent page;
 *   the consent's state also goes in an HttpOnly cookie, so only the browser
 *   that started a consent can finish it;
 * - `GET /connect/xero/callback`: Xero's answer; a plain result page, or the
 *   choice of organisation when the consent authorised several;
 * - `POST /connect/xero/tenant`: that choice;
 * - `POST /hooks/xero`: Xero's webhook. The `x-xero-signature` header must be
 *   the base64 HMAC-SHA256 of the raw body under XERO_WEBHOOK_KEY (compared
 *   in constant time): 200 for a signed batch (the intent-to-receive check
 *   sends an empty one), 401 otherwise. Each tenant named is marked for a
 *   sync in the store (a worker picks it up even if this process dies) and
 *   the serving process is told, to sync within seconds.
 * Handlers parse, call and shape; the consent itself is the ledger side's
 * (src/ledger/consent.ts, wired by src/server).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { requestSyncOfTenants } from '../../store/queries/consents.js';
import type { ApiApp, AppEnv, ConsentAnswer } from '../context.js';

const COOKIE = 'cashline_consent';
const MAX_WEBHOOK_BYTES = 1024 * 1024;

const escape = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function page(c: Context<AppEnv>, status: 200 | 400 | 403 | 503, title: string, body: string) {
  c.header('Cache-Control', 'no-store');
  c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'");
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(title)} · Cashline</title></head>` +
      `<body style="font-family:system-ui,sans-serif;max-width:38em;margin:4em auto;padding:0 1em;line-height:1.5"><h1>${escape(title)}</h1>${body}</body></html>`,
    status,
  );
}

/** What the ledger side answered, as a page (redirects excepted). */
function answerPage(c: Context<AppEnv>, a: Exclude<ConsentAnswer, { status: 'redirect' }>) {
  if (a.status === 'connected') {
    return page(
      c,
      200,
      'Xero connected',
      `<p>Cashline now reads the books of <strong>${escape(a.tenantName)}</strong> (read only). The first sync runs within minutes.</p>` +
        `<p>Granted: ${a.scopes.map((s) => `<code>${escape(s)}</code>`).join(' ')}</p><p>You can close this window.</p>`,
    );
  }
  if (a.status === 'choose') {
    const options = a.tenants
      .map((t, i) => `<p><label><input type="radio" name="tenantId" value="${escape(t.tenantId)}"${i === 0 ? ' checked' : ''}> ${escape(t.tenantName)}</label></p>`)
      .join('');
    return page(
      c,
      200,
      'Choose the organisation',
      `<p>You authorised several Xero organisations. Which one should Cashline read?</p>` +
        `<form method="post" action="/connect/xero/tenant"><input type="hidden" name="state" value="${escape(a.state)}">${options}<p><button type="submit">Connect</button></p></form>`,
    );
  }
  const status = a.kind === 'bad_link' ? 403 : a.kind === 'not_configured' ? 503 : 400;
  return page(c, status, a.kind === 'access_denied' ? 'Not connected' : 'Could not connect Xero', `<p>${escape(a.message)}</p>`);
}

/** The browser's consent cookie must carry this state: a consent started in another browser (or forged) is refused. */
function sameBrowser(c: Context<AppEnv>, state: string): boolean {
  const cookie = getCookie(c, COOKIE);
  if (!cookie || cookie.length !== state.length) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(state));
}

const notConfigured = { status: 'error', kind: 'not_configured', message: 'Connecting Xero is not configured on this service (XERO_CLIENT_ID).' } as const;

async function connectStart(c: Context<AppEnv>) {
  const flow = c.get('deps').consent;
  if (!flow) return answerPage(c, notConfigured);
  const q = c.req.query();
  const a = await flow.begin({ org: q.org, expires: q.expires, sig: q.sig, tenant: q.tenant }, c.get('deps').publicUrl());
  if (a.status !== 'redirect') return answerPage(c, a);
  setCookie(c, COOKIE, a.state, {
    httpOnly: true,
    sameSite: 'Lax', // sent on Xero's top-level redirect back here
    path: '/connect/xero',
    maxAge: 600,
    secure: c.get('deps').publicUrl().startsWith('https:'),
  });
  c.header('Cache-Control', 'no-store');
  return c.redirect(a.url, 302);
}

async function connectCallback(c: Context<AppEnv>) {
  const flow = c.get('deps').consent;
  if (!flow) return answerPage(c, notConfigured);
  const q = c.req.query();
  const state = q.state ?? '';
  if (!state || !sameBrowser(c, state)) {
    return answerPage(c, { status: 'error', kind: 'state_mismatch', message: 'This answer does not belong to a connection started in this browser. Start again from the link.' });
  }
  return answerPage(c, (await flow.finish({ state, code: q.code, error: q.error })) as Exclude<ConsentAnswer, { status: 'redirect' }>);
}

async function connectChoose(c: Context<AppEnv>) {
  const flow = c.get('deps').consent;
  if (!flow) return answerPage(c, notConfigured);
  const form = await c.req.parseBody();
  const state = typeof form.state === 'string' ? form.state : '';
  const tenantId = typeof form.tenantId === 'string' ? form.tenantId : '';
  if (!state || !sameBrowser(c, state)) {
    return answerPage(c, { status: 'error', kind: 'state_mismatch', message: 'This choice does not belong to a connection started in this browser. Start again from the link.' });
  }
  if (!tenantId) return answerPage(c, { status: 'error', kind: 'tenant_choice', message: 'Choose an organisation (tenantId).' });
  return answerPage(c, (await flow.choose({ state, tenantId })) as Exclude<ConsentAnswer, { status: 'redirect' }>);
}

/** Whether `signature` is the base64 HMAC-SHA256 of `raw` under `key` (constant time). */
export function signedByXero(raw: Buffer, signature: string | undefined, key: string): boolean {
  if (!signature) return false;
  const want = createHmac('sha256', key).update(raw).digest();
  const got = Buffer.from(signature, 'base64');
  return got.length === want.length && timingSafeEqual(got, want);
}

async function xeroWebhook(c: Context<AppEnv>) {
  const deps = c.get('deps');
  const key = deps.config.XERO_WEBHOOK_KEY;
  c.header('Cache-Control', 'no-store');
  const length = Number(c.req.header('content-length') ?? 0);
  if (length > MAX_WEBHOOK_BYTES) return c.body(null, 413);
  const raw = Buffer.from(await c.req.arrayBuffer());
  if (!key) {
    deps.logger.warn('xero webhook refused: XERO_WEBHOOK_KEY is not set');
    return c.body(null, 401);
  }
  if (raw.length > MAX_WEBHOOK_BYTES || !signedByXero(raw, c.req.header('x-xero-signature'), key)) {
    deps.logger.warn({ bytes: raw.length }, 'xero webhook refused: bad signature');
    return c.body(null, 401);
  }
  let events: unknown[] = [];
  try {
    const body = JSON.parse(raw.toString('utf8')) as { events?: unknown };
    events = Array.isArray(body.events) ? body.events : [];
  } catch {
    deps.logger.warn('xero webhook: signed but not JSON; ignored');
    return c.body(null, 200);
  }
  const tenants = [...new Set(events.map((e) => (e as { tenantId?: unknown } | null)?.tenantId).filter((t): t is string => typeof t === 'string'))];
  if (tenants.length === 0) return c.body(null, 200); // the intent-to-receive check, or nothing we can use
  const known = await requestSyncOfTenants(deps.store.db, tenants, deps.clock.now());
  const unknown = tenants.filter((t) => !known.some((k) => k.tenantId === t));
  if (unknown.length) deps.logger.info({ tenants: unknown }, 'xero webhook: events for tenants no organisation is connected to; ignored');
  const orgIds = [...new Set(known.map((k) => k.orgId))];
  deps.logger.info({ events: events.length, orgIds }, 'xero webhook: sync requested');
  if (orgIds.length) deps.onLedgerChanged?.(orgIds);
  return c.body(null, 200);
}

export function registerLedgerWeb(app: ApiApp): void {
  app.get('/connect/xero', connectStart);
  app.get('/connect/xero/callback', connectCallback);
  app.post('/connect/xero/tenant', connectChoose);
  app.post('/hooks/xero', xeroWebhook);
}
