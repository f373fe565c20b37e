/** Small HTTP helpers of the Xero-compatible server: JSON and problem answers, the bearer token, form bodies. */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toMsDate } from '../ledger/xero/dates.js';

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** A Xero-style problem body (Title, Status, Detail). */
export function problem(res: ServerResponse, status: number, title: string, detail: string, headers: Record<string, string> = {}): void {
  return json(res, status, { Type: null, Title: title, Status: status, Detail: detail, Instance: randomUUID(), Extensions: {} }, headers);
}

/** The fields Xero puts around every Accounting answer. */
export function envelope() {
  return { Id: randomUUID(), Status: 'OK', ProviderName: 'Cashline Xero-compatible server', DateTimeUTC: toMsDate(new Date()) };
}

export function bearer(req: IncomingMessage): string | null {
  const m = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
  return m ? m[1]! : null;
}

/** The request body as text; a body over `limit` characters drops the connection (default 64 KiB: forms; writes allow more). */
export function readBody(req: IncomingMessage, limit = 65_536): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      text += c;
      if (text.length > limit) {
        req.destroy();
        reject(new Error('request body too large'));
      }
    });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}
