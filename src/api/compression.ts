/**
 * Compressed answers (issue 21; docs/api.md#http): an answer of at least
 * COMPRESS_MIN_BYTES whose client accepts it is encoded with brotli, gzip or
 * deflate (the client's preference by q-value; brotli first on a tie, at a
 * quality that keeps it cheap), in the thread pool, never blocking the event
 * loop. `Vary: Accept-Encoding` on every compressible answer. Smaller
 * answers, HEAD, and answers already encoded are left as they are.
 *
 * A cached answer (answer-cache.ts) is the same bytes object request after
 * request: its encoded forms are kept with it (answer-cache.ts SentBody, so
 * they go when the cache lets it go), and a large forecast is compressed
 * once per snapshot rather than once per request. Other answers (made anew
 * for each request) are encoded as they come, nothing kept.
 */
import { promisify } from 'node:util';
import { brotliCompress, constants, deflate, gzip } from 'node:zlib';
import type { MiddlewareHandler } from 'hono';
import { hasBody, readBody } from './held-body.js';
import { sentBody, type SentBody } from './answer-cache.js';

export const COMPRESS_MIN_BYTES = 1024;
const ENCODINGS = ['br', 'gzip', 'deflate'] as const;
type Encoding = (typeof ENCODINGS)[number];

const encoders: Record<Encoding, (b: Buffer) => Promise<Buffer>> = {
  br: (b) => promisify(brotliCompress)(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: b.length } }),
  gzip: (b) => promisify(gzip)(b),
  deflate: (b) => promisify(deflate)(b),
};

/** The encoding a client's Accept-Encoding prefers among ours (null: none, or only identity). */
export function pickEncoding(header: string | undefined): Encoding | null {
  if (!header) return null;
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const v = qp ? Number(qp.slice(2)) : 1;
    q.set(name, Number.isFinite(v) ? v : 0);
  }
  let best: Encoding | null = null;
  let bestQ = 0;
  for (const e of ENCODINGS) {
    const v = q.get(e) ?? q.get('*') ?? 0;
    if (v > bestQ) [best, bestQ] = [e, v];
  }
  return best;
}

/**
 * `body` encoded with `encoding`; when `kept` (what is kept with the cached
 * answer the body is) holds that encoding, settled or being made by a
 * request running now, that result, without encoding again.
 */
export function encodeOnce(body: Buffer, encoding: Encoding, kept: Pick<SentBody, 'encodings'> | null): Promise<Buffer> {
  if (!kept) return encoders[encoding](body);
  const forms = kept.encodings;
  const running = forms.get(encoding);
  if (running) return running;
  const started = encoders[encoding](body);
  forms.set(encoding, started);
  // A failed encoding is not kept: the next request tries again.
  started.catch(() => {
    if (forms.get(encoding) === started) forms.delete(encoding);
  });
  return started;
}

const COMPRESSIBLE = /^(application\/(json|problem\+json|javascript)|text\/)/i;

export function compression(minBytes = COMPRESS_MIN_BYTES): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const res = c.res;
    if (c.req.method === 'HEAD' || !hasBody(res) || res.status === 204 || res.status === 206 || res.status === 304 || res.headers.has('Content-Encoding')) return;
    if (!COMPRESSIBLE.test(res.headers.get('Content-Type') ?? '') || /no-transform/i.test(res.headers.get('Cache-Control') ?? '')) return;
    const vary = res.headers.get('Vary');
    if (!vary) res.headers.set('Vary', 'Accept-Encoding');
    else if (!/accept-encoding/i.test(vary)) res.headers.set('Vary', `${vary}, Accept-Encoding`);
    const encoding = pickEncoding(c.req.header('Accept-Encoding'));
    if (!encoding) return;
    const { bytes: body, held } = await readBody(res);
    const out = body.length < minBytes ? body : await encodeOnce(body, encoding, sentBody(held) ?? null);
    c.res = new Response(out, { status: res.status, headers: res.headers });
    if (out !== body) {
      c.res.headers.set('Content-Encoding', encoding);
      c.res.headers.delete('Content-Length');
      // The same representation, encoded: its validator becomes weak (If-None-Match compares weakly).
      const tag = c.res.headers.get('ETag');
      if (tag && !tag.startsWith('W/')) c.res.headers.set('ETag', `W/${tag}`);
    }
  };
}
