import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import assert from 'node:assert/strict';

interface Operation {
  responses: Record<string, { content?: { 'application/json'?: { schema: object } } }>;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

/** One Ajv for every checker of the process, its validators by schema text: each harness serves the same document. */
const ajv = new Ajv({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv) => void)(ajv);
const validators = new Map<string, ValidateFunction>();
const bySchema = new WeakMap<object, ValidateFunction>();

/**
 * Checks real responses against the served OpenAPI document: the route must be documented, the status
 * must be among its responses, and a JSON body must match that response's schema.
 */
export class OpenApiChecker {
  readonly #routes: Array<{ re: RegExp; ops: Record<string, Operation> }>;

  readonly doc: Doc;

  constructor(doc: Doc) {
    this.doc = doc;
    // Literal templates first, as the router matches them: `/alerts/bulk` before `/alerts/{id}`.
    this.#routes = Object.entries(doc.paths)
      .sort(([a], [b]) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0))
      .map(([p, ops]) => ({ re: new RegExp(`^/api/v1${p.replace(/\{[^}]+\}/g, '[^/]+')}$`), ops }));
  }

  check(method: string, url: string, status: number, body: string): void {
    const pathname = url.split('?')[0] as string;
    if (!pathname.startsWith('/api/v1/') || pathname === '/api/v1/openapi.json') return;
    const route = this.#routes.find((r) => r.re.test(pathname));
    if (!route) {
      assert.equal(status, 404, `${method} ${pathname} is not in the OpenAPI document`);
      return;
    }
    const op = route.ops[method.toLowerCase()];
    assert.ok(op, `${method} ${pathname} is not documented`);
    const response = op.responses[String(status)];
    assert.ok(response, `${method} ${pathname} answered ${status}, which its OpenAPI operation does not list`);
    const schema = response.content?.['application/json']?.schema;
    if (!schema || status === 204) return;
    let validate = bySchema.get(schema);
    if (!validate) {
      const text = JSON.stringify(schema);
      validate = validators.get(text) ?? ajv.compile(schema);
      validators.set(text, validate);
      bySchema.set(schema, validate);
    }
    const ok = validate(JSON.parse(body));
    assert.ok(ok, `${method} ${pathname} ${status} does not match its OpenAPI schema: ${ajv.errorsText(validate.errors)}\n${body.slice(0, 500)}`);
  }
}
