/**
 * `cashline mcp`: serves the CLI's catalogue as MCP tools, over stdio
 * (default) or streamable HTTP (src/mcp/server.ts). Added to the CLI by
 * bin/cashline.ts.
 */
import type { Command } from 'commander';
import { CliError, DEFAULT_BASE_URL } from '../client/http.js';
import type { Endpoint } from '../schemas/endpoints.js';

interface Io {
  stderr: (t: string) => void;
  env: NodeJS.ProcessEnv;
}

interface GlobalFlags {
  baseUrl?: string;
  apiKey?: string;
  org?: string;
}

export function mcpCommand(program: Command, io: Io, catalogue: readonly Endpoint[]): void {
  program
    .command('mcp')
    .description('serve the same endpoints as MCP tools: over stdio (default) or streamable HTTP')
    .option('--http', 'streamable HTTP instead of stdio (each caller sends its own key as a bearer token)')
    .option('--host <host>', 'HTTP listen address', '127.0.0.1')
    .option('--port <n>', 'HTTP port (0 picks a free one)', '8788')
    .action(async (f: { http?: boolean; host: string; port: string }) => {
      const global = program.opts<GlobalFlags>();
      const baseUrl = global.baseUrl ?? io.env.CASHLINE_BASE_URL ?? DEFAULT_BASE_URL;
      if (!/^https?:\/\//.test(baseUrl)) throw new CliError('validation_error', `--base-url must be an http(s) URL, got '${baseUrl}'`);
      const { serveStdio, serveHttp } = await import('./server.js');
      const config = { baseUrl, catalogue, apiKey: global.apiKey ?? io.env.CASHLINE_API_KEY, orgId: global.org ?? io.env.CASHLINE_ORG_ID };
      if (!f.http) {
        if (!config.apiKey) throw new CliError('validation_error', 'an API key is needed: --api-key or CASHLINE_API_KEY');
        await serveStdio(config);
        return;
      }
      if (!/^\d+$/.test(f.port) || Number(f.port) > 65535) throw new CliError('validation_error', `--port must be 0 to 65535, got '${f.port}'`);
      const running = await serveHttp({ ...config, host: f.host, port: Number(f.port) });
      io.stderr(`cashline mcp: streamable HTTP on ${running.url}\n`);
      await running.closed;
    });
}
