/**
 * The shared HTTP client (src/client/http.ts) sends a GET once more when the
 * connection was reset under it (a kept-alive socket the server closed as the
 * request went out), and only then: a refused connection is a network_error
 * at once.
 */
import { createServer, type Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { getJson } from '../src/client/http.js';

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A TCP server that resets its first `resets` connections once a request arrives, then answers 200 {"ok":true}. */
async function flakyServer(resets: number): Promise<{ url: string; connections: () => number }> {
  let n = 0;
  const server = createServer((socket: Socket) => {
    const i = n++;
    socket.once('data', () => {
      if (i < resets) return socket.resetAndDestroy();
      socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\nconnection: close\r\n\r\n{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, connections: () => n };
}

const opts = (baseUrl: string) => ({ baseUrl, apiKey: 'k', tool: 'test', timeoutMs: 5_000 });

it('a reset connection is retried once on a new one', async () => {
  const s = await flakyServer(1);
  await expect(getJson(opts(s.url), '/api/agent/status')).resolves.toEqual({ ok: true });
  expect(s.connections()).toBe(2);
});

it('two resets in a row are a network_error (no endless retrying)', async () => {
  const s = await flakyServer(2);
  await expect(getJson(opts(s.url), '/api/agent/status')).rejects.toMatchObject({ kind: 'network_error' });
  expect(s.connections()).toBe(2);
});
