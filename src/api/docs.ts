/** The OpenAPI 3.1 document (generated from the zod schemas) and a readable reference page. */
import type { ApiApp } from './context.js';

export const OPENAPI_INFO = {
  title: 'Cashline Agent Read API',
  version: '1.0.0',
  description:
    'Read-only JSON API for AI agents: cash position, 13-week forecast, receivables, payables, contacts and summaries of one business. ' +
    'Every endpoint is GET and needs `Authorization: Bearer <key>`. Money is a canonical decimal string, never a JSON number. ' +
    'Agents should always tell the user about a `ledgerAlert`.',
};

export function openApiDocument(app: ApiApp) {
  return app.getOpenAPI31Document({ openapi: '3.1.0', info: OPENAPI_INFO });
}

export function registerDocs(app: ApiApp): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'cl_user_<prefix>_<secret> or cl_partner_<prefix>_<secret>',
  });
  let cached: unknown;
  app.get('/api/agent/openapi.json', (c) => {
    cached ??= openApiDocument(app);
    return c.json(cached as object);
  });
  app.get('/api/agent/docs', (c) => {
    const doc = (cached ??= openApiDocument(app)) as { paths: Record<string, Record<string, { summary?: string; description?: string; parameters?: { name: string; in: string; required?: boolean; description?: string }[] }>> };
    const esc = (s: string) => s.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]!);
    const sections = Object.entries(doc.paths)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([path, ops]) =>
        Object.entries(ops)
          .map(([method, op]) => {
            const params = (op.parameters ?? [])
              .map((p) => `<li><code>${esc(p.name)}</code> (${esc(p.in)}${p.required ? ', required' : ''})${p.description ? `: ${esc(p.description)}` : ''}</li>`)
              .join('');
            return `<section><h2><code>${method.toUpperCase()} ${esc(path)}</code></h2><p><b>${esc(op.summary ?? '')}</b></p><p>${esc(op.description ?? '').replace(/\n/g, '<br>')}</p>${params ? `<ul>${params}</ul>` : ''}</section>`;
          })
          .join(''),
      )
      .join('\n');
    return c.html(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(OPENAPI_INFO.title)}</title>` +
        `<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}code{background:#f4f4f4;padding:0 .2em}section{border-top:1px solid #ddd;padding:.5rem 0}</style></head>` +
        `<body><h1>${esc(OPENAPI_INFO.title)}</h1><p>${esc(OPENAPI_INFO.description)}</p><p>Machine-readable: <a href="/api/agent/openapi.json">/api/agent/openapi.json</a></p>${sections}</body></html>`,
    );
  });
}
