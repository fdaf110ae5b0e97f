import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { ErrorDetail } from '../lib/errors.ts';
import { detailOf, type AjvIssue } from './errors.ts';

function ajv(coerceTypes: false | 'array'): Ajv {
  // `discriminator` (OpenAPI's): a oneOf tagged by a property is checked against the one form its tag names.
  const instance = new Ajv({ coerceTypes, removeAdditional: false, useDefaults: true, allErrors: true, strict: false, discriminator: true });
  (addFormats as unknown as (a: Ajv) => Ajv)(instance);
  return instance;
}

const bodies = ajv(false);
const urlParts = ajv('array');

/**
 * A validator compiled at its first use: a process checks the requests of a few of its ~200 routes, and compiling
 * every route's schemas was most of a server's start after loading its modules
 * (docs/testing.md, "Time limits, structure and speed"). Fastify hands Ajv's own functions the request as the
 * value's parent, so that a root value can be coerced; it tells them by their `schemaEnv`, which compiles.
 */
function atFirstUse(compile: () => ValidateFunction): ValidateFunction {
  let check: ValidateFunction | undefined;
  const validate = (data: unknown, cxt?: Parameters<ValidateFunction>[1]): boolean => {
    check ??= compile();
    const ok = check(data, cxt) as boolean;
    validate.errors = check.errors;
    return ok;
  };
  validate.errors = null as ValidateFunction['errors'];
  Object.defineProperty(validate, 'schemaEnv', { get: () => (check ??= compile()).schemaEnv });
  return validate as unknown as ValidateFunction;
}

/**
 * JSON bodies are checked strictly (a number is not a string, `["x"]` is not `"x"`); query strings,
 * path parameters and headers arrive as text, so only they are coerced to the schema's types.
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  atFirstUse(() => (httpPart === 'body' ? bodies : urlParts).compile(schema)) as ReturnType<FastifySchemaCompiler<object>>;

/**
 * What `value` breaks of `schema`, in Ajv's words, checked by the same rules as a request body's (for values that do
 * not come over HTTP: an import's bodies, a channel target); empty when it passes. Defaults are filled in.
 */
export function schemaIssues(schema: object, value: unknown): AjvIssue[] {
  // Ajv keeps what it compiled by schema object: the same schema compiles once.
  const check = bodies.compile(schema);
  return check(value) ? [] : ((check.errors ?? []) as AjvIssue[]);
}

/** The problems a request body would be refused for, as a request's are reported (see `schemaIssues`). */
export const bodyProblems = (schema: object, value: unknown): ErrorDetail[] => schemaIssues(schema, value).map(detailOf);
