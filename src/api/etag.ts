/**
 * ETag and If-None-Match (issue 21; docs/api.md#http): a successful GET (or
 * HEAD) answer carries the SHA-1 of its body as a strong ETag; a request
 * whose If-None-Match holds it (or `*`) is answered 304 without a body.
 * Registered after the limits and the envelope, so a 304 is charged and
 * carries the envelope's headers like the 200 it stands for.
 *
 * The tag is taken from the body as the handler hands it over (`c.json`'s
 * text, encoded once; `c.body`'s bytes: both wrapped for the request), so the answer is
 * never read back or rebuilt: it leaves on the server's fast path, as if
 * there were no ETag. An answer made another way (none today) is read once
 * and rebuilt from its bytes.
 */
import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { sentBody } from './answer-cache.js';

/** Whether an If-None-Match value holds this ETag (weak comparison: W/ ignored). */
export function etagMatches(ifNoneMatch: string | undefined, tag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const bare = tag.replace(/^W\//, '');
  const tags: string[] = ifNoneMatch.match(/"[^"]*"/g) ?? [];
  return tags.includes(bare);
}

const hashTag = (body: string | Uint8Array) => `"${createHash('sha1').update(body).digest('hex')}"`;
/** A cached answer's tag (the same bytes object each time) is hashed once and kept with it; other bodies are hashed as they come. */
function strongTag(body: string | Uint8Array): string {
  const kept = sentBody(body);
  return kept ? (kept.tag ??= hashTag(body)) : hashTag(body);
}

/** The status an answer of `c.json(x, arg)` / `c.body(x, arg)` gets (200 unless told). */
const statusOf = (arg: unknown) => (typeof arg === 'number' ? arg : ((arg as { status?: number } | undefined)?.status ?? 200));

export function etagging(): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    let tag: string | null = null;
    const body = c.body;
    type Body = typeof c.body;
    // A 200's body: tagged as it is handed over (the header goes into the answer as it is built).
    const tagged = (data: unknown, arg: unknown) => {
      if (statusOf(arg) !== 200 || (typeof data !== 'string' && !(data instanceof Uint8Array))) return;
      tag = strongTag(data);
      c.header('ETag', tag);
    };
    c.body = ((data: unknown, arg?: unknown, headers?: unknown) => {
      tagged(data, arg);
      return (body as (...a: unknown[]) => Response)(data, arg, headers);
    }) as Body;
    c.json = ((object: unknown, arg?: unknown, headers?: Record<string, string>) => {
      // Encoded once: the hash, the Content-Length and the socket take the same bytes (a string would be encoded for each).
      const text = JSON.stringify(object);
      const data = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
      tagged(data, arg);
      return (body as (...a: unknown[]) => Response)(data, arg, { 'Content-Type': 'application/json', ...headers });
    }) as typeof c.json;
    await next();
    const res = c.res;
    if (res.status !== 200) {
      if (tag !== null) res.headers.delete('ETag'); // made a 200, answered otherwise: errors carry no ETag
      return;
    }
    if (tag === null) {
      // Made another way: read once, rebuilt from the bytes.
      if (!res.body) return;
      const bytes = Buffer.from(await res.arrayBuffer());
      tag = strongTag(bytes);
      c.res = new Response(bytes, { status: res.status, headers: res.headers });
      c.res.headers.set('ETag', tag);
    }
    if (etagMatches(c.req.header('If-None-Match'), tag)) c.res = new Response(null, { status: 304, headers: { ETag: tag } });
  };
}
