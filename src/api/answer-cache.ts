/**
 * Serialized answers of immutable data, per process: a forecast snapshot never
 * changes once stored (a recompute writes a new one with a new id), so its
 * shaped JSON for (snapshot, weeks, hidden accounts) can be kept and sent again
 * without reading, parsing and re-serialising a payload that is megabytes for
 * a large ledger (every week lists its itemIds, spec 2.3). Bounded by bytes,
 * least recently used first out. Per-request fields (the envelope's alerts)
 * are spliced in by `jsonText`, never cached.
 *
 * What rides along with a kept answer (one WeakMap entry keyed by it, gone
 * with it, `SentBody`): its copy with the alerts of the moment spliced in (about its size, while
 * there are alerts), and the ETag and compressed forms of either (a tenth of
 * it or less each for JSON: the large forecast's gzip is a fourteenth). The
 * budget counts the answers alone, so a full cache holds under three times its
 * budget at most.
 */
import type { Context, TypedResponse } from 'hono';
import type { AppEnv } from './context.js';
import { withAlerts } from './route.js';

export class AnswerCache<V extends { length: number } = string> {
  private readonly entries = new Map<string, V>();
  private bytes = 0;
  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  get(key: string): V | undefined {
    const v = this.entries.get(key);
    if (v !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, v);
    }
    return v;
  }

  set(key: string, json: V): void {
    if (json.length > this.maxBytes / 4) return; // one answer never takes most of the budget
    const old = this.entries.get(key);
    if (old !== undefined) {
      this.bytes -= old.length;
      this.entries.delete(key);
    }
    this.entries.set(key, json);
    this.bytes += json.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.length;
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * What is kept with a bytes object jsonText answers with (a cached answer, or
 * its copy with the alerts of the moment spliced in): the same object goes
 * out request after request, so what is worked out from it is worked out
 * once. A WeakMap entry: gone when the cache lets the answer go.
 */
export interface SentBody {
  /** Its strong ETag, once etag.ts has hashed it. */
  tag?: string;
  /** Its encoded forms by encoding, settled or under way (compression.ts). */
  readonly encodings: Map<string, Promise<Buffer>>;
  /** A cached answer's copy with the last alerts spliced in (the alerts' text and the copy). */
  splice?: { alerts: string; body: Buffer };
}

const sent = new WeakMap<Uint8Array, SentBody>();

/** What is kept with `body` when it is a cached answer's bytes (or its spliced copy); undefined for any other body. */
export function sentBody(body: unknown): SentBody | undefined {
  return body instanceof Uint8Array ? sent.get(body) : undefined;
}

function keptWith(body: Buffer): SentBody {
  let kept = sent.get(body);
  if (!kept) {
    kept = { encodings: new Map() };
    sent.set(body, kept);
  }
  return kept;
}

/**
 * `json` with `alerts` (a JSON object's text) spliced in as its last fields;
 * the same bytes object as last time while the alerts are the same (they
 * change with the ledger's state, not per request), so the answer's ETag and
 * compressed forms, kept with that object, are worked out once.
 */
function spliced(json: Buffer, alerts: string): Buffer {
  const kept = keptWith(json);
  if (kept.splice?.alerts === alerts) return kept.splice.body;
  const body = Buffer.concat([json.subarray(0, json.length - 1), Buffer.from(`,${alerts.slice(1)}`)]);
  kept.splice = { alerts, body };
  return body;
}

/**
 * A 200 whose body is `json`, the UTF-8 bytes of a T's JSON text (a cached
 * answer), with the request's alerts spliced in as withAlerts adds them,
 * without encoding the text again; typed as the route's JSON answer, which
 * the test client checks against the OpenAPI document like any other.
 */
export function jsonText<T>(c: Context<AppEnv>, json: Buffer): Response & TypedResponse<T, 200, 'json'> {
  const alerts = JSON.stringify(withAlerts(c, {}));
  const body = alerts === '{}' ? json : spliced(json, alerts);
  keptWith(body);
  return c.body(body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': 'application/json' }) as unknown as Response & TypedResponse<T, 200, 'json'>;
}
