/**
 * How an agent endpoint is declared: `agentRoute(scope, config)` wraps
 * `createRoute` (so the OpenAPI document comes from the same zod schemas that
 * validate the request and type the response), makes it a GET, adds the
 * bearer security, the organisation selector and X-Service-Tool parameters,
 * the common error responses, and records the endpoint's scope, which the
 * pipeline checks (after tenancy, before any credit is spent).
 *
 * Every /api/agent endpoint must be declared this way: a path the pipeline
 * does not know is answered 404 before anything else runs (fail closed).
 */
import { createRoute, type RouteConfig, type z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { Scope } from '../domain/scopes.js';
import { commonErrorResponses, type Warning } from '../schemas/common.js';
import { queryShape } from '../schemas/query.js';
import type { AppEnv } from './context.js';

export const AGENT_PREFIX = '/api/agent';

/** What a route needs: a scope, every scope of a list, or null (any valid key). */
export type RouteScope = Scope | readonly [Scope, ...Scope[]] | null;

/** The scopes a route needs, as a list (empty: any valid key). */
export const scopesOf = (scope: RouteScope): readonly Scope[] => (scope === null ? [] : typeof scope === 'string' ? [scope] : scope);

/** Endpoint template (Hono form, /api/agent/contacts/:id) -> required scope(s) (null: any valid key). */
export const ROUTE_SCOPES = new Map<string, RouteScope>();

/** Endpoint template (Hono form) -> the query parameters it declares (and the shared orgId). */
export const ROUTE_QUERY_PARAMS = new Map<string, readonly string[]>();

/** Names of the shared parameter components (registered by src/api/docs.ts). */
export const SHARED_PARAMETERS = ['XServiceOrgId', 'OrgIdQuery', 'XServiceTool'] as const;

/**
 * The endpoints whose answers tolerate seconds of staleness (docs/scaling.md
 * "Read replica"): the ledger's lists and drills, balances, ageing,
 * analytics, the forecast and what derives from it, the brief, the
 * portfolio. Their handlers read `c.get('db')`, which for these is
 * `store.readDb()`: the read replica while it is up and current. Not these:
 * /status and /orgs (the caller's credits and links, written moments ago),
 * and the pipeline before every handler (keys, tenancy, limits, audit),
 * which reads and writes the primary. A new resource reads the primary until
 * it is named here.
 */
const STALE_TOLERANT =
  /^\/api\/agent\/(invoices|bills|credit-notes|purchase-orders|contacts|bank-accounts|account-balances|receivables|payables|revenue|expenses|cohorts|cash-position|daily-summary|forecast|scenarios|collections|portfolio|orgs\/:orgId\/daily-brief)(\/|$)/;

/** Whether the endpoint (Hono template) reads through the read replica when there is one. */
export const toleratesStaleness = (template: string): boolean => STALE_TOLERANT.test(template);

export function honoPath(openapiPath: string): string {
  return openapiPath.replace(/\{([^}]+)\}/g, ':$1');
}

export function agentRoute<const R extends Omit<RouteConfig, 'method'>>(scope: RouteScope, config: R) {
  if (!config.path.startsWith(`${AGENT_PREFIX}/`)) throw new Error(`agentRoute: ${config.path} is not under ${AGENT_PREFIX}/`);
  ROUTE_SCOPES.set(honoPath(config.path), scope);
  ROUTE_QUERY_PARAMS.set(honoPath(config.path), [...Object.keys(queryShape(config.request?.query as z.ZodType | undefined)), 'orgId']);
  return createRoute({
    ...config,
    method: 'get',
    security: [{ bearerAuth: [] }],
    description: `${config.description ?? ''}${config.description ? '\n\n' : ''}Scope: ${scope === null ? 'any valid key' : scopesOf(scope).join(' and ')}.`,
    parameters: [...(config.parameters ?? []), ...SHARED_PARAMETERS.map((name) => ({ $ref: `#/components/parameters/${name}` }))],
    responses: { ...commonErrorResponses, ...config.responses },
  } as R & { method: 'get' });
}

/**
 * A successful body with the envelope's alerts and the request's warnings
 * folded in (spec 2.1; decisions.md): `c.json(withAlerts(c, body), 200)`.
 */
export function withAlerts<T extends object>(c: Context<AppEnv>, body: T): T {
  const env = c.get('envelope');
  const warnings = c.get('warnings');
  return {
    ...body,
    ...(env?.billingAlert ? { billingAlert: env.billingAlert } : {}),
    ...(env?.ledgerAlert ? { ledgerAlert: env.ledgerAlert } : {}),
    ...(warnings?.length ? { warnings } : {}),
  };
}

/** Reports what the request named that the answer ignores (an unknown status value, a cursor beside autoPaginate, ...). */
export function warn(c: Context<AppEnv>, ignored: readonly Warning[]): void {
  if (!ignored.length) return;
  c.set('warnings', [...(c.get('warnings') ?? []), ...ignored]);
}

/** A template's ROUTE_QUERY_PARAMS as a set, made once per list (a route declared again gets a new list). */
const KNOWN_PARAMS = new WeakMap<readonly string[], ReadonlySet<string>>();
const NO_PARAMS: ReadonlySet<string> = new Set();
function knownParams(template: string): ReadonlySet<string> {
  const list = ROUTE_QUERY_PARAMS.get(template);
  if (!list) return NO_PARAMS;
  let known = KNOWN_PARAMS.get(list);
  if (!known) KNOWN_PARAMS.set(list, (known = new Set(list)));
  return known;
}

/**
 * The warnings every request gets from the pipeline: query parameters the
 * endpoint does not declare, and an X-Service-Tool that does not match
 * the pattern of spec 5.6 (the audit log records no tool then).
 */
export function pipelineWarnings(c: Context<AppEnv>, template: string, toolPattern: RegExp): Warning[] {
  const out: Warning[] = [];
  const known = knownParams(template);
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (known.has(name)) continue;
    for (const value of values) out.push({ parameter: name, value, message: `unknown parameter, ignored; this endpoint takes: ${[...known].join(', ')}` });
  }
  const tool = c.req.header('x-service-tool');
  if (tool !== undefined && !toolPattern.test(tool)) {
    out.push({ parameter: 'X-Service-Tool', value: tool, message: 'ignored: it must match ^service\\.[a-z_]+$ (not recorded in the audit log)' });
  }
  return out;
}
