/**
 * Every answer of the test servers checked against the server's own OpenAPI
 * document (issue 8: "Responses validated against the OpenAPI document (ajv, no
 * additional properties) for the whole suite"). startTestApi wraps its get and
 * fetch with `check`: a JSON answer of a documented operation must match the
 * schema the document gives for its status, with every object closed
 * (additionalProperties false unless the document says otherwise).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Closes every object schema that lists properties and says nothing of others.
 * An `allOf` of object schemas (zod's .extend() becomes allOf [$ref, {...}]) is
 * merged into one object first, so that the closed parts do not refuse each
 * other's properties.
 */
function closeObjects(node: Json, schemas: Json): Json {
  if (Array.isArray(node)) return node.map((n) => closeObjects(n, schemas));
  if (!node || typeof node !== 'object') return node;
  if (Array.isArray(node.allOf)) {
    const parts = node.allOf.map((p: Json) => (p?.$ref ? schemas[p.$ref.split('/').pop()] : p));
    if (parts.every((p: Json) => p?.properties && !p.allOf && !p.anyOf && !p.oneOf)) {
      const { allOf: _drop, ...rest } = node;
      node = {
        ...rest,
        type: 'object',
        properties: Object.assign({}, ...parts.map((p: Json) => p.properties), rest.properties ?? {}),
        required: [...new Set(parts.flatMap((p: Json) => p.required ?? []).concat(rest.required ?? []))],
      };
    }
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === 'example' || k === 'examples' ? v : closeObjects(v, schemas);
  if (out.properties && typeof out.properties === 'object' && out.additionalProperties === undefined && !out.allOf && !out.anyOf && !out.oneOf) {
    out.additionalProperties = false;
  }
  return out;
}

export class ResponseChecker {
  private readonly ajv: Ajv2020;
  private readonly routes: { re: RegExp; template: string }[];
  private readonly cache = new Map<string, ValidateFunction | null>();
  constructor(private readonly doc: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: 'cashline', components: closeObjects(doc.components, doc.components?.schemas ?? {}) }, 'cashline');
    // Literal segments before templated ones (/contacts/summary before /contacts/{id}).
    this.routes = Object.keys(doc.paths)
      .sort((a, b) => (a.includes('{') ? 1 : 0) - (b.includes('{') ? 1 : 0) || b.length - a.length)
      .map((template) => ({
        template,
        re: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`),
      }));
  }

  private validator(template: string, status: number): ValidateFunction | null {
    const id = `${template} ${status}`;
    if (this.cache.has(id)) return this.cache.get(id)!;
    const responses = this.doc.paths[template]?.get?.responses ?? {};
    const r = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    let resolved = r;
    if (r?.$ref) resolved = this.doc.components.responses[r.$ref.split('/').pop()];
    const schema = resolved?.content?.['application/json']?.schema;
    const v = schema
      ? this.ajv.compile(JSON.parse(JSON.stringify(closeObjects(schema, this.doc.components?.schemas ?? {})).replaceAll('"#/components/', '"cashline#/components/')))
      : null;
    this.cache.set(id, v);
    return v;
  }

  /** Problems with one answer (empty when it matches, or is not a documented JSON answer). */
  check(method: string, path: string, status: number, contentType: string | null, body: string): string[] {
    if (method !== 'GET' || !contentType?.includes('application/json')) return [];
    const route = this.routes.find((r) => r.re.test(path));
    if (!route || route.template === '/api/agent/openapi.json') return [];
    const responses = this.doc.paths[route.template]?.get?.responses ?? {};
    if (!responses[String(status)] && !responses.default) return [`GET ${path}: status ${status} is not documented for ${route.template}`];
    const v = this.validator(route.template, status);
    if (!v) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return [`GET ${path} ${status}: not JSON`];
    }
    if (v(parsed)) return [];
    return (v.errors ?? []).slice(0, 5).map((e) => `GET ${path} ${status}: ${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  }
}
