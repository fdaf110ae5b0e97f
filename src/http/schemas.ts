import { Type, type TProperties, type TSchema } from 'typebox';
import type { Scope } from '../modules/api-keys/api-keys-fns.ts';

/** A string limited to fixed values, as a plain `enum` (clearer in OpenAPI 3.0 than a union of consts). */
export const StringEnum = <const T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Human-readable message.' }),
    code: Type.String({ description: 'Upper-case identifier: VALIDATION_ERROR, INVALID_JSON, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, CONFLICT, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, RATE_LIMITED, INTERNAL_ERROR, SERVICE_UNAVAILABLE, OVERLOADED; from the HTTP layer, before any route: BAD_REQUEST (malformed HTTP), REQUEST_TIMEOUT (408), HEADERS_TOO_LARGE (431).' }),
    details: Type.Union([
      Type.Array(Type.Object({ path: Type.String(), message: Type.String() }, { additionalProperties: false })),
      Type.Null(),
    ]),
  },
  { additionalProperties: false },
);

const errorResponses = {
  400: { ...ErrorBody, description: 'VALIDATION_ERROR or INVALID_JSON' },
  401: { ...ErrorBody, description: 'UNAUTHORIZED: missing, malformed, unknown, expired or revoked key, or no valid session' },
  403: { ...ErrorBody, description: 'FORBIDDEN: the key (or the role) lacks the required scope, or a session request lacks its X-CSRF-Token' },
  404: { ...ErrorBody, description: 'NOT_FOUND' },
  429: { ...ErrorBody, description: 'RATE_LIMITED; see Retry-After' },
  500: { ...ErrorBody, description: 'INTERNAL_ERROR' },
  503: { ...ErrorBody, description: 'SERVICE_UNAVAILABLE: the store is unreachable for now; or OVERLOADED: the server holds too many request bodies at once (MAX_BODY_BYTES_IN_FLIGHT), this one was not read. Either way nothing was changed or stored; see Retry-After' },
};
const bodyErrors = {
  413: { ...ErrorBody, description: 'PAYLOAD_TOO_LARGE: body over 1 MiB' },
  415: { ...ErrorBody, description: 'UNSUPPORTED_MEDIA_TYPE: body is not application/json' },
};
export const conflictResponse = { 409: { ...ErrorBody, description: 'CONFLICT' } };

export const IdParams = Type.Object({ id: Type.String({ maxLength: 200 }) });

export const Actor = Type.Object(
  {
    type: StringEnum(['integration', 'api_key', 'user', 'system']),
    id: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * A PUT/PATCH body: any of a resource's editable fields, at least one, nothing else. The fields carry no
 * defaults, or the validator would fill them in and a rename would reset what was left out.
 */
export const UpdateBody = <T extends TProperties>(editable: T) => Type.Partial(Type.Object(editable), { additionalProperties: false, minProperties: 1 });
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });

interface RouteSchema {
  body?: TSchema;
  querystring?: TSchema;
  params?: TSchema;
  response: Record<number, TSchema>;
}

/**
 * A route's own schemas plus what documents the operation: the scope it needs (in `x-required-scopes`
 * and the description) and the bearer scheme. Only success responses (and CONFLICT where a route can
 * give it) are compiled into serializers; the common error responses are added to the OpenAPI document
 * by `documentErrors`, so each route does not compile a serializer per error status.
 */
export function apiSchema<S extends RouteSchema>(
  opts: { scope: Scope; summary: string; tag: string; description?: string },
  schema: S,
) {
  return {
    ...schema,
    summary: opts.summary,
    tags: [opts.tag],
    description: `${opts.description ? `${opts.description}\n\n` : ''}Requires scope \`${opts.scope}\`.`,
    security: [{ bearerAuth: [] as string[] }, { cookieAuth: [] as string[] }] as Array<Record<string, string[]>>,
    'x-required-scopes': [opts.scope],
  };
}

/** The OpenAPI form of a REST route's schema: every error response it can give, added to its own. */
export function documentErrors(schema: Record<string, unknown>): Record<string, unknown> {
  const scopes = schema['x-required-scopes'] as string[] | undefined;
  // Public operations (an empty list) document their own few error responses.
  if (!scopes?.length) return schema;
  // Write operations (POST, PUT, PATCH, DELETE) read any body sent, even those without a body schema, so they can meet 413/415.
  const bodyCodes = schema.body || scopes.some((s) => s.endsWith(':write')) ? bodyErrors : {};
  return { ...schema, response: { ...errorResponses, ...bodyCodes, ...(schema.response as object) } };
}
