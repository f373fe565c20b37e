/**
 * The body of an answer as the handler handed it over, read without turning
 * the answer into a stream. @hono/node-server's lightweight Response (the
 * global Response under the server) keeps the body it was made with, and
 * writes a string or bytes straight to the socket (its fast path); reading
 * `res.body` (even to test it for null) makes it build a web stream that the
 * server then pumps chunk by chunk, at a cost in CPU of the same order as
 * building the answer. Anything else (a native Response, one whose body was
 * read) answers through the standard getters.
 */

/** The lightweight Response's own key of [status, body, headers] (a symbol described 'cache'), found once. */
let heldKey: symbol | null | undefined;

function held(res: Response): { body: unknown } | null {
  if (heldKey === undefined) {
    const k = Object.getOwnPropertySymbols(res).find((s) => s.description === 'cache');
    if (!k) return null;
    heldKey = k;
  }
  if (heldKey === null) return null;
  const cache = (res as unknown as Record<symbol, unknown>)[heldKey];
  return Array.isArray(cache) ? { body: cache[1] ?? null } : null;
}

/** Whether the answer has a body (`res.body !== null`), left on the server's fast path. */
export function hasBody(res: Response): boolean {
  const h = held(res);
  return h ? h.body !== null : res.body !== null;
}

/**
 * The answer's body bytes (`res.arrayBuffer()`), without a stream when it is
 * held as a string or bytes; and, when it is held as bytes, that bytes object
 * itself (`held`): the same object for every answer made of the same bytes (a
 * cached answer's), so what is worked out from it can be kept with it.
 */
export async function readBody(res: Response): Promise<{ bytes: Buffer; held: Uint8Array | null }> {
  const h = held(res);
  if (h && typeof h.body === 'string') return { bytes: Buffer.from(h.body, 'utf8'), held: null };
  if (h && h.body instanceof Uint8Array) return { bytes: Buffer.from(h.body.buffer, h.body.byteOffset, h.body.byteLength), held: h.body };
  return { bytes: Buffer.from(await res.arrayBuffer()), held: null };
}
