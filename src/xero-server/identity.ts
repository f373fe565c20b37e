/** The identity endpoints of the Xero-compatible server: POST /connect/token (refresh grant) and GET /connections. */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearer, json, problem, readBody } from './http.js';
import type { XeroState } from './state.js';

const SCOPE = 'offline_access accounting.transactions.read accounting.contacts.read accounting.settings.read accounting.reports.read accounting.journals.read';

export async function handleIdentity(state: XeroState, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  if (req.method === 'POST' && path === '/connect/token') return refreshGrant(state, req, res);
  if (req.method === 'GET' && path === '/connections') return connections(state, req, res);
  return problem(res, 404, 'Not Found', 'No such identity endpoint');
}

async function refreshGrant(state: XeroState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const form = new URLSearchParams(await readBody(req));
  let id = form.get('client_id');
  let secret = form.get('client_secret');
  const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
  if (basic) [id, secret] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':') as [string, string];
  if (id !== state.clientId || secret !== state.clientSecret) return json(res, 400, { error: 'invalid_client' });
  if (form.get('grant_type') !== 'refresh_token') return json(res, 400, { error: 'unsupported_grant_type' });
  const old = state.tokens.refreshInfo(form.get('refresh_token') ?? '');
  if (!old || old.revoked) return json(res, 400, { error: 'invalid_grant' });
  if (old.expiresAt <= Date.now()) return json(res, 400, { error: 'invalid_grant', error_description: 'refresh token expired' });
  // Rotation: as Xero does, the previous refresh token stays usable for a 30-minute grace period
  // (a client that died before storing the new one can still refresh).
  old.expiresAt = Math.min(old.expiresAt, Date.now() + 30 * 60_000);
  const g = state.tokens.issueGrant();
  return json(res, 200, {
    id_token: undefined,
    access_token: g.accessToken,
    expires_in: g.expiresIn,
    token_type: 'Bearer',
    refresh_token: g.refreshToken,
    scope: SCOPE,
  });
}

function connections(state: XeroState, req: IncomingMessage, res: ServerResponse): void {
  const info = state.tokens.accessInfo(bearer(req));
  if (!info || info.revoked || info.expiresAt <= Date.now()) return problem(res, 401, 'Unauthorized', 'TokenExpired');
  const { data } = state;
  return json(res, 200, [
    { id: randomUUID(), authEventId: randomUUID(), tenantId: data.tenantId, tenantType: 'ORGANISATION', tenantName: String(data.organisation.Name ?? ''), createdDateUtc: new Date().toISOString(), updatedDateUtc: new Date().toISOString() },
  ]);
}
