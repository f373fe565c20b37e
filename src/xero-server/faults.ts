/** Fault injection of the Xero-compatible server: the queue of faults, their answers, and the other host `redirect` points at. */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { envelope, problem } from './http.js';

export type FaultKind =
  /** 429 with Retry-After (`retryAfter` seconds, default 1). */
  | 'rate_limit'
  /** 500 with a Xero-style error body. */
  | 'server_error'
  /** 503 with Retry-After. */
  | 'unavailable'
  /** Accepts the request and never answers. */
  | 'stall'
  /** Sends the head and half of the body, then drops the connection. */
  | 'truncate'
  /** 200 with a body that is not JSON. */
  | 'malformed'
  /** 302 to another host (a second loopback server that counts its hits). */
  | 'redirect'
  /** 401 TokenExpired, whatever the token. */
  | 'unauthorized'
  /** 200 with a body of `bytes` (default 8 MiB) of valid JSON. */
  | 'huge';

export interface Fault {
  kind: FaultKind;
  /** Only requests whose path contains this (e.g. '/Invoices'); default every API request. */
  match?: string;
  /** How many requests it applies to (default: all until cleared). */
  times?: number;
  retryAfter?: number;
  bytes?: number;
}

export class FaultQueue {
  private readonly faults: (Fault & { left: number })[] = [];

  add(f: Fault): void {
    this.faults.push({ ...f, left: f.times ?? Number.POSITIVE_INFINITY });
  }

  clear(): void {
    this.faults.length = 0;
  }

  /** The first fault with uses left that matches the path (one use taken), or null. */
  take(path: string): Fault | null {
    for (const f of this.faults) {
      if (f.left <= 0) continue;
      if (f.match && !path.includes(f.match)) continue;
      f.left--;
      return f;
    }
    return null;
  }
}

/** A second loopback server that `redirect` faults point at; it counts the requests that reach it. */
export interface RedirectHost {
  url: string;
  hits(): number;
  close(): Promise<unknown>;
}

export async function startRedirectHost(host: string): Promise<RedirectHost> {
  let hits = 0;
  const other = createServer((_req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"Invoices":[]}');
  });
  await new Promise<void>((r) => other.listen(0, host, r));
  return {
    url: `http://localhost:${(other.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () => new Promise((r) => other.close(r)),
  };
}

interface FaultContext {
  /** Answers a `stall` keeps open. */
  stalled: Set<ServerResponse>;
  /** Where a `redirect` sends the client (the other host, with the request's path and query). */
  redirectTo: () => string;
}

/** Answers the request as the fault says; false when the kind is unknown (the request is served normally). */
export function answerFault(res: ServerResponse, fault: Fault, ctx: FaultContext): boolean {
  switch (fault.kind) {
    case 'rate_limit':
      problem(res, 429, 'Too Many Requests', 'rate limit exceeded', { 'retry-after': String(fault.retryAfter ?? 1), 'x-rate-limit-problem': 'minute' });
      return true;
    case 'server_error':
      problem(res, 500, 'Internal Server Error', 'An error occurred in Xero');
      return true;
    case 'unavailable':
      problem(res, 503, 'Service Unavailable', 'The Xero API is temporarily unavailable', { 'retry-after': String(fault.retryAfter ?? 1) });
      return true;
    case 'stall':
      ctx.stalled.add(res);
      res.on('close', () => ctx.stalled.delete(res));
      return true;
    case 'truncate': {
      const body = Buffer.from(JSON.stringify({ ...envelope(), Invoices: Array.from({ length: 50 }, (_, i) => ({ InvoiceID: `x-${i}` })) }));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      res.write(body.subarray(0, body.length >> 1));
      setTimeout(() => res.socket?.destroy(), 5);
      return true;
    }
    case 'malformed':
      return sendRaw(res, 200, '{"Id":"x","Status":"OK","Invoices":[{"InvoiceID": <html>oops');
    case 'redirect':
      res.writeHead(302, { location: ctx.redirectTo(), 'content-length': 0 });
      res.end();
      return true;
    case 'unauthorized':
      problem(res, 401, 'Unauthorized', 'TokenExpired: token expired');
      return true;
    case 'huge': {
      const n = fault.bytes ?? 8 * 1024 * 1024;
      return sendRaw(res, 200, `{"Id":"x","Status":"OK","Padding":"${'x'.repeat(n)}","Invoices":[]}`);
    }
  }
  return false;
}

function sendRaw(res: ServerResponse, status: number, body: string): true {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
  return true;
}
