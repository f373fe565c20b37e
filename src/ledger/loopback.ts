/**
 * The loopback redirect of a native app's consent (RFC 8252 §7.3): a
 * one-request HTTP server on 127.0.0.1 that waits for the browser to come
 * back from Xero with `code` and `state` (or `error`), answers with a short
 * page the user can close, and stops. Anything but the expected state is
 * refused, so a page elsewhere cannot complete someone's consent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConsentError } from './oauth.js';

export interface LoopbackReceiver {
  /** The redirect address to register and send: http://localhost:PORT/callback. */
  redirectUri: string;
  /** Resolves with the code once the browser comes back with this request's state; rejects with a ConsentError otherwise. */
  code(state: string, timeoutMs: number): Promise<string>;
  close(): Promise<void>;
}

const page = (title: string, text: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body style="font-family:system-ui,sans-serif;max-width:36em;margin:4em auto"><h1>${title}</h1><p>${text}</p></body></html>`;

function answer(res: ServerResponse, status: number, title: string, text: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
  res.end(page(title, text));
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Listens on 127.0.0.1:`port` (0: any free port) for the consent's redirect,
 * and on [::1] at the same port when the machine has IPv6 loopback: the
 * redirect says `localhost`, which a browser may resolve to either.
 */
export async function startLoopback(port: number): Promise<LoopbackReceiver> {
  let onRequest: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    if (onRequest) onRequest(req, res);
    else answer(res, 404, 'Nothing to see here', 'No connection is waiting for an answer.');
  };
  const server = createServer(handler);
  try {
    await listen(server, port, '127.0.0.1');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new ConsentError(e.code === 'EADDRINUSE' ? `port ${port} is in use: pass --port with a free one (and register its redirect address at Xero)` : e.message, 'network');
  }
  const v6 = createServer(handler);
  const v6Listening = await listen(v6, (server.address() as AddressInfo).port, '::1').then(
    () => true,
    () => false, // no IPv6 loopback here, or the port is taken there: 127.0.0.1 answers
  );
  const actual = (server.address() as AddressInfo).port;
  return {
    redirectUri: `http://localhost:${actual}/callback`,
    code(state, timeoutMs) {
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          onRequest = null;
          reject(new ConsentError(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s: open the address again (or run the command again) and finish the consent in Xero`, 'timeout'));
        }, timeoutMs);
        onRequest = (req, res) => {
          const url = new URL(req.url ?? '/', 'http://localhost');
          if (url.pathname !== '/callback') return answer(res, 404, 'Not found', 'This address only receives the answer from Xero.');
          const p = url.searchParams;
          // The state first: an answer for another request (or a forged one) neither completes nor cancels this one.
          if (p.get('state') !== state) {
            answer(res, 400, 'This answer is not for this connection', 'The state does not match the connection that is waiting. Start again from the command line.');
            clearTimeout(timer);
            onRequest = null;
            reject(new ConsentError('the answer from the browser did not carry this request\'s state (a stale or forged redirect): run the command again', 'state_mismatch'));
            return;
          }
          clearTimeout(timer);
          onRequest = null;
          const error = p.get('error');
          if (error) {
            answer(res, 200, 'Not connected', 'Access was not granted. You can close this window.');
            const refused = error === 'access_denied';
            reject(
              new ConsentError(
                refused
                  ? 'the consent was refused in Xero (access_denied): run the command again and choose "Allow access"'
                  : `Xero answered ${error}${p.get('error_description') ? ` (${p.get('error_description')})` : ''}: check the app's redirect address and scopes, then run the command again`,
                refused ? 'access_denied' : error,
              ),
            );
            return;
          }
          const code = p.get('code');
          if (!code) {
            answer(res, 400, 'No code', 'Xero came back without an authorisation code.');
            reject(new ConsentError('Xero came back without an authorisation code: run the command again', 'http'));
            return;
          }
          answer(res, 200, 'Connected to Cashline', 'Xero has answered. You can close this window and return to the terminal.');
          resolve(code);
        };
      });
    },
    close: async () => {
      for (const srv of v6Listening ? [server, v6] : [server]) {
        srv.closeAllConnections();
        await new Promise<void>((r) => srv.close(() => r()));
      }
    },
  };
}

/** The loopback port `ledger connect` listens on unless told otherwise (register http://localhost:8789/callback at Xero). */
export const DEFAULT_LOOPBACK_PORT = 8789;
