/**
 * The outermost layer of every /api/agent request: a request id (echoed in
 * X-Request-Id), then, once the answer is known, the IETF RateLimit headers
 * gathered by the limits, `Cache-Control` (`private, no-cache` on a 200 or
 * 304: the client may keep it and revalidate; `no-store` otherwise), one audit_log row for
 * every authenticated request (recorded in the process's AuditLog, written in batches), and one structured access-log line. Neither
 * log ever holds the Authorization header or any key (only the key's public
 * prefix).
 */
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './context.js';

/** X-Service-Tool values that are recorded (spec 5.6); others are ignored. */
export const TOOL_PATTERN = /^service\.[a-z_]+$/;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export const observe: MiddlewareHandler<AppEnv> = async (c, next) => {
  const deps = c.get('deps');
  const started = performance.now();
  const at = deps.clock.now();
  const incoming = c.req.header('x-request-id');
  const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
  c.set('requestId', requestId);
  c.set('usage', null);
  c.set('rateLimit', { policies: [], limits: [] });

  await next();

  const res = c.res;
  const status = res.status;
  const rl = c.get('rateLimit');
  // Set on the answer itself: c.header() on a finished answer rebuilds it around its body as a stream, which takes
  // it off the server's fast path (a string or bytes written at once) to be pumped chunk by chunk.
  const headers = res.headers;
  if (rl.policies.length > 0) {
    headers.set('RateLimit-Policy', rl.policies.join(', '));
    headers.set('RateLimit', rl.limits.join(', '));
  }
  // A successful answer may be kept by the client alone and revalidated (its ETag; If-None-Match: 304); errors never.
  headers.set('Cache-Control', status === 200 || status === 304 ? 'private, no-cache' : 'no-store');
  headers.set('X-Request-Id', requestId);

  const key = c.get('key');
  const auth = c.get('auth');
  const route = c.get('route') ?? null;
  const durationMs = Math.round(performance.now() - started);
  if (key) {
    const tool = c.req.header('x-service-tool');
    // Buffered and written in batches, off the request path (src/store/audit.ts).
    deps.audit.record({
      orgId: auth?.orgId ?? (key.kind === 'USER' ? key.keyOrgId : null),
      at,
      keyId: key.keyId,
      keyPrefix: key.keyPrefix,
      userId: key.userId,
      partnerId: key.partnerId,
      method: c.req.method,
      route: route ?? c.req.path.slice(0, 200),
      status,
      tool: tool && TOOL_PATTERN.test(tool) ? tool : null,
      requestId,
      durationMs,
    });
  }
  deps.logger.info(
    {
      requestId,
      method: c.req.method,
      route: route ?? 'unmatched',
      status,
      durationMs,
      keyPrefix: key?.keyPrefix ?? null,
      kind: key?.kind ?? null,
      orgId: auth?.orgId ?? null,
    },
    'request',
  );
};
