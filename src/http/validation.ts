import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

function ajv(coerceTypes: false | 'array'): Ajv {
  // `discriminator` (OpenAPI's): a oneOf tagged by a property is checked against the one form its tag names.
  const instance = new Ajv({ coerceTypes, removeAdditional: false, useDefaults: true, allErrors: true, strict: false, discriminator: true });
  (addFormats as unknown as (a: Ajv) => Ajv)(instance);
  return instance;
}

const bodies = ajv(false);
const urlParts = ajv('array');

/**
 * JSON bodies are checked strictly (a number is not a string, `["x"]` is not `"x"`); query strings,
 * path parameters and headers arrive as text, so only they are coerced to the schema's types.
 */
export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodies : urlParts).compile(schema) as ReturnType<FastifySchemaCompiler<object>>;
