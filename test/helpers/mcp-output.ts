/**
 * An independent check of the MCP tools' typed output (issue 19): ajv's JSON
 * Schema 2020-12 validator, in strict mode (an unknown keyword or a malformed
 * schema is a problem too; union types such as ["string", "null"] are JSON
 * Schema), not the SDK's own, plus the endpoint's zod
 * response schema. `problems` lists what is wrong with one successful call;
 * an empty list means the result is right.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { isDeepStrictEqual } from 'node:util';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { paramsOf, type Endpoint } from '../../src/schemas/endpoints.js';

type Schema = Record<string, unknown>;
const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

export class OutputChecker {
  private readonly ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  private readonly compiled = new Map<Schema, { whole: ValidateFunction; success: ValidateFunction }>();
  constructor() {
    addFormats.default(this.ajv);
  }

  /** What is wrong with a tool's declared outputSchema (an object at the top, a valid 2020-12 schema, the body then the error). */
  schemaProblems(tool: Pick<Tool, 'name' | 'outputSchema'>): string[] {
    const s = tool.outputSchema as Schema | undefined;
    if (!s) return [`${tool.name}: no outputSchema`];
    const out: string[] = [];
    if (s.type !== 'object') out.push(`${tool.name}: outputSchema.type is ${JSON.stringify(s.type)}, MCP requires "object"`);
    if (!this.ajv.validateSchema(s)) out.push(`${tool.name}: not a JSON Schema 2020-12: ${this.ajv.errorsText(this.ajv.errors)}`);
    const branches = s.anyOf as Schema[] | undefined;
    if (!Array.isArray(branches) || branches.length !== 2 || branches[0]?.type !== 'object')
      out.push(`${tool.name}: outputSchema.anyOf should be [the answer (an object), the error]`);
    if (!out.length) {
      try {
        this.validators(s);
      } catch (err) {
        out.push(`${tool.name}: ajv (strict) refuses the schema: ${(err as Error).message}`);
      }
    }
    return out;
  }

  private validators(s: Schema) {
    let v = this.compiled.get(s);
    if (!v) {
      // The answer of a successful call must match the first branch, not merely the union (an {error} there is wrong).
      v = { whole: this.ajv.compile(s), success: this.ajv.compile({ ...s, anyOf: [(s.anyOf as Schema[])[0]] }) };
      this.compiled.set(s, v);
    }
    return v;
  }

  /** What is wrong with one error result of `tool`: isError, and {error} as the outputSchema's second branch says. */
  errorProblems(tool: Pick<Tool, 'name' | 'outputSchema'>, r: CallToolResult): string[] {
    if (!r.isError) return [`${tool.name}: not an error result`];
    const schemaProblems = this.schemaProblems(tool);
    if (schemaProblems.length) return schemaProblems;
    const { whole } = this.validators(tool.outputSchema as Schema);
    const error = this.ajv.compile((tool.outputSchema!.anyOf as Schema[])[1]!);
    if (!whole(r.structuredContent)) return [`${tool.name}: error result vs outputSchema (ajv): ${this.ajv.errorsText(whole.errors)}`];
    if (!error(r.structuredContent)) return [`${tool.name}: error result vs the error branch (ajv): ${this.ajv.errorsText(error.errors)}`];
    return [];
  }

  /** What is wrong with one successful call of `tool` (the tool of catalogue entry `e`). */
  problems(tool: Pick<Tool, 'name' | 'outputSchema'>, e: Pick<Endpoint, 'response'>, r: CallToolResult): string[] {
    const name = tool.name;
    if (r.isError) return [`${name}: an error result: ${JSON.stringify(r.content).slice(0, 300)}`];
    const schemaProblems = this.schemaProblems(tool);
    if (schemaProblems.length) return schemaProblems;
    const sc = r.structuredContent;
    if (!sc || typeof sc !== 'object') return [`${name}: no structuredContent`];
    const out: string[] = [];
    const { whole, success } = this.validators(tool.outputSchema as Schema);
    if (!whole(sc)) out.push(`${name}: outputSchema (ajv): ${this.ajv.errorsText(whole.errors)}`);
    else if (!success(sc)) out.push(`${name}: outputSchema's answer branch (ajv): ${this.ajv.errorsText(success.errors)}`);
    const parsed = e.response.safeParse(sc);
    if (!parsed.success) out.push(`${name}: zod response schema: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    // Exactly what the schema says: nothing the zod schema would strip or fill in.
    else if (!isDeepStrictEqual(json(parsed.data), json(sc))) out.push(`${name}: the zod schema changes the structuredContent (unknown keys?)`);
    const texts = r.content.filter((c) => c.type === 'text').map((c) => c.text);
    let last: unknown;
    try {
      last = JSON.parse(texts.at(-1) ?? '');
    } catch {
      last = undefined;
    }
    if (!isDeepStrictEqual(last, json(sc))) out.push(`${name}: the last text block is not the structuredContent serialized`);
    return out;
  }
}

/**
 * The arguments a walk of every tool "with its default arguments" sends
 * besides orgId and a drill's id: none, except for a parameter the request
 * needs and the tool has no default for, its smallest value (forecast_items:
 * week 0, this week).
 */
export function requiredArgs(e: Endpoint): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of paramsOf(e)) {
    if (!p.required || e.toolDefaults?.[p.name] !== undefined) continue;
    if (p.kind === 'integer') out[p.name] = p.minimum ?? 0;
    else if (p.kind === 'enum') out[p.name] = p.values![0];
    else if (p.kind === 'boolean') out[p.name] = false;
    else throw new Error(`${e.name}: the required ${p.kind} parameter ${p.name} needs a value in this walk`);
  }
  return out;
}
