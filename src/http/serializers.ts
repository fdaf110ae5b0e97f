import type { FastifySerializerCompiler } from 'fastify';
import fastJson from 'fast-json-stringify';

type Serialize = (doc: unknown) => string;

/** Response serializers by schema object: route schemas are module constants, the same in every app of a process. */
const serializers = new WeakMap<object, Serialize>();

/**
 * Fastify's default serializer (fast-json-stringify over a route's response schema; the app adds no shared schemas),
 * compiled at the first response that uses it and once per process, not per app: compiling every route's serializer
 * was most of building an app (a server's start, and each of the hundreds of apps the tests build, several per
 * process), while a process answers through a few of them (docs/testing.md, "Time limits, structure and speed").
 */
export const serializerCompiler: FastifySerializerCompiler<object> = ({ schema }) => {
  let serialize = serializers.get(schema);
  if (serialize === undefined) {
    let compiled: Serialize | undefined;
    serialize = (doc) => (compiled ??= fastJson(schema as Parameters<typeof fastJson>[0]))(doc);
    serializers.set(schema, serialize);
  }
  return serialize;
};
