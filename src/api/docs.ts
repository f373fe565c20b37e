/**
 * The OpenAPI 3.1 document (spec 9: /api/agent/openapi.json), generated with
 * `getOpenAPI31Document` from the zod schemas the routes validate with, and a
 * small readable reference page generated from it (/api/agent/docs: plain
 * HTML, no scripts, no CDN). Both are public.
 */
import type { ApiApp } from './context.js';
import { OrgIdHeader, OrgIdQuery, ToolHeader } from '../schemas/orgs.js';

export const OPENAPI_INFO = {
  title: 'Cashline Agent Read API',
  version: '1.0.0',
  description:
    'Read-only JSON API for AI agents: cash position, 13-week forecast, receivables, payables, contacts and summaries of one business. ' +
    'Every endpoint is GET and needs `Authorization: Bearer <key>` (user keys `cl_user_…`, partner keys `cl_partner_…`). ' +
    'Partner keys name the client organisation with the header `X-Service-Org-Id` (or query `orgId`). ' +
    'Money is a canonical decimal string, never a JSON number. Errors are `{error, message}`. ' +
    'Limits: 60 requests a minute per key and endpoint (429 rate_limited); query credits per rolling 5 hours (429 quota_exhausted; /status is free). ' +
    'Successful answers carry X-Service-Subscription, X-Service-Plan, X-Service-Trial-Days-Remaining (trialing only), X-Service-Reset-Minutes, ' +
    'X-Service-Quota-Remaining, X-Service-Quota-Reset, RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers-10), Cache-Control: no-store. ' +
    'Agents should always tell the user about a `ledgerAlert`.',
};

export const OPENAPI_PATH = '/api/agent/openapi.json';
export const DOCS_PATH = '/api/agent/docs';

export function openApiDocument(app: ApiApp) {
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: OPENAPI_INFO,
    servers: [{ url: '/', description: 'This service' }],
  });
}

export function registerDocs(app: ApiApp): void {
  const registry = app.openAPIRegistry;
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'cl_user_<keyprefix>_<secret> or cl_partner_<keyprefix>_<secret>',
  });
  registry.registerParameter('XServiceOrgId', OrgIdHeader);
  registry.registerParameter('OrgIdQuery', OrgIdQuery);
  registry.registerParameter('XServiceTool', ToolHeader);

  let cached: object | undefined;
  const doc = () => (cached ??= openApiDocument(app) as object);
  app.get(OPENAPI_PATH, (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(doc());
  });
  app.get(DOCS_PATH, (c) => {
    c.header('Cache-Control', 'no-store');
    return c.html(referencePage(doc() as OpenApiDoc));
  });
}

interface Param {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: unknown;
}
interface Operation {
  summary?: string;
  description?: string;
  parameters?: (Param | { $ref: string })[];
  responses?: Record<string, { description?: string }>;
}
interface OpenApiDoc {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { parameters?: Record<string, Param>; schemas?: Record<string, { description?: string; properties?: Record<string, unknown>; required?: string[] }> };
}

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
const anchor = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '-');

function schemaType(schema: unknown): string {
  const s = schema as { type?: unknown; $ref?: string; enum?: unknown[]; items?: unknown; anyOf?: unknown[]; format?: string } | undefined;
  if (!s) return '';
  if (s.$ref) {
    const name = s.$ref.split('/').pop()!;
    return `<a href="#schema-${anchor(name)}">${esc(name)}</a>`;
  }
  if (s.enum) return s.enum.map((v) => esc(String(v))).join(' | ');
  if (s.anyOf) return s.anyOf.map(schemaType).join(' or ');
  if (s.type === 'array') return `array of ${schemaType(s.items)}`;
  const t = Array.isArray(s.type) ? s.type.join(' | ') : String(s.type ?? 'object');
  return esc(s.format ? `${t} (${s.format})` : t);
}

/** The readable reference: one section per operation, then the schemas. */
export function referencePage(doc: OpenApiDoc): string {
  const params = doc.components?.parameters ?? {};
  const resolve = (p: Param | { $ref: string }): Param | undefined =>
    '$ref' in p ? params[p.$ref.split('/').pop()!] : p;
  const ops = Object.entries(doc.paths)
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => {
        const ps = (op.parameters ?? [])
          .map(resolve)
          .filter((p): p is Param => !!p)
          .map(
            (p) =>
              `<li><code>${esc(p.name)}</code> (${esc(p.in)}${p.required ? ', required' : ''}${p.schema ? `, ${schemaType(p.schema)}` : ''})` +
              `${p.description ? ` — ${esc(p.description)}` : ''}</li>`,
          )
          .join('');
        const rs = Object.entries(op.responses ?? {})
          .map(([code, r]) => `<li><code>${esc(code)}</code> ${esc(r.description ?? '')}</li>`)
          .join('');
        return (
          `<section id="${anchor(`${method}-${path}`)}"><h2><code>${method.toUpperCase()} ${esc(path)}</code></h2>` +
          `<p><b>${esc(op.summary ?? '')}</b></p><p>${esc(op.description ?? '').replace(/\n/g, '<br>')}</p>` +
          (ps ? `<h3>Parameters</h3><ul>${ps}</ul>` : '') +
          (rs ? `<h3>Responses</h3><ul>${rs}</ul>` : '') +
          `</section>`
        );
      }),
    )
    .join('\n');
  const schemas = Object.entries(doc.components?.schemas ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, s]) => {
      const props = Object.entries(s.properties ?? {})
        .map(([p, ps]) => `<li><code>${esc(p)}</code>${s.required?.includes(p) ? '' : ' (optional)'}: ${schemaType(ps)}</li>`)
        .join('');
      return `<section id="schema-${anchor(name)}"><h3>${esc(name)}</h3>${s.description ? `<p>${esc(s.description)}</p>` : ''}${props ? `<ul>${props}</ul>` : ''}</section>`;
    })
    .join('\n');
  const toc = Object.entries(doc.paths)
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([path, methods]) => Object.keys(methods).map((m) => `<li><a href="#${anchor(`${m}-${path}`)}">${m.toUpperCase()} ${esc(path)}</a></li>`))
    .join('');
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(doc.info.title)}</title>` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}` +
    `code{background:#f4f4f4;padding:0 .2em}section{border-top:1px solid #ddd;padding:.5rem 0}h3{font-size:1rem}</style></head>` +
    `<body><h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1><p>${esc(doc.info.description ?? '')}</p>` +
    `<p>Machine-readable: <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a> (OpenAPI 3.1).</p>` +
    `<h2>Endpoints</h2><ul>${toc}</ul>${ops}<h2>Schemas</h2>${schemas}</body></html>`
  );
}
