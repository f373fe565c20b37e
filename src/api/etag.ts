/**
 * ETag and If-None-Match (issue 21; docs/api.md#http): a successful GET (or
 * HEAD) answer carries the SHA-1 of its body as a strong ETag; a request
 * whose If-None-Match holds it (or `*`) is answered 304 without a body.
 * Registered after the limits and the envelope, so a 304 is charged and
 * carries the envelope's headers like the 200 it stands for. The body is
 * read once and the answer rebuilt from the bytes (never a clone of a
 * response another middleware reads after: that raced under load).
 */
import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';

/** Whether an If-None-Match value holds this ETag (weak comparison: W/ ignored). */
export function etagMatches(ifNoneMatch: string | undefined, tag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const bare = tag.replace(/^W\//, '');
  const tags: string[] = ifNoneMatch.match(/"[^"]*"/g) ?? [];
  return tags.includes(bare);
}

export function etagging(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const res = c.res;
    if ((c.req.method !== 'GET' && c.req.method !== 'HEAD') || res.status !== 200 || !res.body) return;
    const body = Buffer.from(await res.arrayBuffer());
    const tag = `"${createHash('sha1').update(body).digest('hex')}"`;
    if (etagMatches(c.req.header('If-None-Match'), tag)) {
      c.res = new Response(null, { status: 304, headers: { ETag: tag } });
      return;
    }
    c.res = new Response(body, { status: res.status, headers: res.headers });
    c.res.headers.set('ETag', tag);
  };
}
