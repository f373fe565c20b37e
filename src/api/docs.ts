/**
 * The OpenAPI 3.1 document (spec 9: /api/agent/openapi.json), generated with
 * `getOpenAPI31Document` from the zod schemas the routes validate with, each
 * operation's 200 carrying an example answer of the demo
 * (src/schemas/examples.json, written by `npm run docs:examples`); a small
 * readable reference page generated from it (/api/agent/docs: plain HTML, no
 * scripts, no CDN); and the same document rendered by Redoc
 * (/api/agent/docs/reference: the `redoc` package's standalone bundle, served
 * from node_modules by this service, never from a CDN). All are public.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { ApiApp } from './context.js';
import { OrgIdHeader, OrgIdQuery, ToolHeader } from '../schemas/orgs.js';
import EXAMPLES from '../schemas/examples.json' with { type: 'json' };

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
/** The document rendered by Redoc, and the files that page loads (all from this service). */
export const REFERENCE_PATH = `${DOCS_PATH}/reference`;
const REDOC_PATH = `${DOCS_PATH}/redoc.standalone.js`;
const REFERENCE_SCRIPT_PATH = `${DOCS_PATH}/reference.js`;

export function openApiDocument(app: ApiApp) {
  const doc = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: OPENAPI_INFO,
    servers: [{ url: '/', description: 'This service' }],
  });
  // Each operation's example answer, from the demo (npm run docs:examples).
  const examples = EXAMPLES as Record<string, unknown>;
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const json = (item.get?.responses?.['200'] as { content?: Record<string, { example?: unknown }> } | undefined)?.content?.['application/json'];
    if (json && examples[path] !== undefined) json.example = examples[path];
  }
  return doc;
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
  registerRenderedReference(app);
}

/**
 * /api/agent/docs/reference: the document rendered by Redoc (markdown
 * descriptions, parameters, schemas, example answers, search), from the
 * standalone bundle of the pinned `redoc` dependency, served here. The page
 * may load nothing from elsewhere (Content-Security-Policy), so it works
 * offline and no third party sees who reads it.
 */
function registerRenderedReference(app: ApiApp): void {
  let bundle: { plain: Buffer; gzip: Buffer } | undefined;
  const redoc = () => {
    if (!bundle) {
      // The one remote file the bundle refers to, the Redocly logo of its "API docs by Redocly" badge, is left
      // out (the badge hides an image that does not load), so that the page never asks anything of a CDN.
      const source = readFileSync(new URL(import.meta.resolve('redoc/bundles/redoc.standalone.js')), 'utf8');
      const plain = Buffer.from(source.replaceAll('https://cdn.redoc.ly/redoc/logo-mini.svg', ''));
      bundle = { plain, gzip: gzipSync(plain) };
    }
    return bundle;
  };
  const csp =
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
    "connect-src 'self'; worker-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
  app.get(REFERENCE_PATH, (c) => {
    c.header('Cache-Control', 'no-store');
    c.header('Content-Security-Policy', csp);
    return c.html(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(OPENAPI_INFO.title)}</title>` +
        `<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><style>body{margin:0}</style></head>` +
        `<body><noscript>This page needs JavaScript; <a href="${DOCS_PATH}">${DOCS_PATH}</a> is the same reference in plain HTML.</noscript>` +
        `<div id="redoc"></div><script src="${REDOC_PATH}"></script><script src="${REFERENCE_SCRIPT_PATH}"></script></body></html>`,
    );
  });
  app.get(REFERENCE_SCRIPT_PATH, (c) => {
    c.header('Cache-Control', 'no-store');
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    const options = { hideHostname: true, expandResponses: '200', jsonSampleExpandLevel: 3, requiredPropsFirst: true, nativeScrollbars: true };
    return c.body(`Redoc.init(${JSON.stringify(OPENAPI_PATH)}, ${JSON.stringify(options)}, document.getElementById('redoc'));\n`);
  });
  app.get(REDOC_PATH, (c) => {
    const { plain, gzip } = redoc();
    c.header('Cache-Control', 'no-store');
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    c.header('Vary', 'Accept-Encoding');
    if (/\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) {
      c.header('Content-Encoding', 'gzip');
      return c.body(new Uint8Array(gzip));
    }
    return c.body(new Uint8Array(plain));
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
  responses?: Record<string, { description?: string; content?: Record<string, { example?: unknown }> }>;
}
interface OpenApiDoc {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: {
    parameters?: Record<string, Param>;
    schemas?: Record<string, { description?: string; properties?: Record<string, { description?: string }>; required?: string[] }>;
  };
}

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
const anchor = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '-');
/** The little markdown the descriptions use: `code` spans and line breaks. */
const md = (s: string) => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>').replace(/\n/g, '<br>');

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
              `${p.description ? ` — ${md(p.description)}` : ''}</li>`,
          )
          .join('');
        const rs = Object.entries(op.responses ?? {})
          .map(([code, r]) => `<li><code>${esc(code)}</code> ${md(r.description ?? '')}</li>`)
          .join('');
        const example = op.responses?.['200']?.content?.['application/json']?.example;
        const ex =
          example === undefined
            ? ''
            : `<details><summary>Example answer (200, from the demo)</summary><pre><code>${esc(JSON.stringify(example, null, 2))}</code></pre></details>`;
        return (
          `<section id="${anchor(`${method}-${path}`)}"><h2><code>${method.toUpperCase()} ${esc(path)}</code></h2>` +
          `<p><b>${md(op.summary ?? '')}</b></p><p>${md(op.description ?? '')}</p>` +
          (ps ? `<h3>Parameters</h3><ul>${ps}</ul>` : '') +
          (rs ? `<h3>Responses</h3><ul>${rs}</ul>` : '') +
          ex +
          `</section>`
        );
      }),
    )
    .join('\n');
  const schemas = Object.entries(doc.components?.schemas ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, s]) => {
      const props = Object.entries(s.properties ?? {})
        .map(
          ([p, ps]) =>
            `<li><code>${esc(p)}</code>${s.required?.includes(p) ? '' : ' (optional)'}: ${schemaType(ps)}${ps.description ? ` — ${md(ps.description)}` : ''}</li>`,
        )
        .join('');
      return `<section id="schema-${anchor(name)}"><h3>${esc(name)}</h3>${s.description ? `<p>${md(s.description)}</p>` : ''}${props ? `<ul>${props}</ul>` : ''}</section>`;
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
    `code{background:#f4f4f4;padding:0 .2em}pre{background:#f4f4f4;padding:.5rem;overflow:auto;max-height:30rem}` +
    `section{border-top:1px solid #ddd;padding:.5rem 0}h3{font-size:1rem}</style></head>` +
    `<body><h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1><p>${md(doc.info.description ?? '')}</p>` +
    `<p>Machine-readable: <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a> (OpenAPI 3.1). ` +
    `Rendered, with search and example answers: <a href="${REFERENCE_PATH}">${REFERENCE_PATH}</a>.</p>` +
    `<h2>Endpoints</h2><ul>${toc}</ul>${ops}<h2>Schemas</h2>${schemas}</body></html>`
  );
}
