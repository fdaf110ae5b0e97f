import secureJson from 'secure-json-parse';
import { AppError } from '../lib/errors.ts';

export const BODY_LIMIT = 1024 * 1024;
export const MAX_DEPTH = 32;

/** Depth of nested objects/arrays, stopping as soon as the limit is passed. */
function tooDeep(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Text as both stores keep it: U+0000 removed, and lone UTF-16 surrogates replaced by U+FFFD. PostgreSQL can
 * store neither (NUL in no text or jsonb value; a lone surrogate, which JSON can write as `\ud800`, is not
 * UTF-8, error 22P02), and no sender means either as content (a C string's end; half of a character). They
 * are settled where request text enters the system, so SQLite and PostgreSQL keep the same value and an alert
 * carrying one is still taken rather than refused.
 */
export function wellFormed<T>(value: T): T {
  if (typeof value === 'string') return (value.includes('\u0000') ? value.replaceAll('\u0000', '') : value).toWellFormed() as T;
  if (Array.isArray(value)) return value.map(wellFormed) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [wellFormed(k), wellFormed(v)])) as T;
  }
  return value;
}

/** JSON text can carry U+0000 and lone surrogates only as escapes (`\u0000`, `\ud800`): text without them needs no walk. */
const MAY_BE_ILL_FORMED = /\\u(?:0000|[dD][89a-fA-F])/;

/**
 * JSON bodies: `__proto__` and `constructor.prototype` keys are refused (no prototype pollution
 * through any later merge), and nesting is capped so a hostile body cannot exhaust the stack.
 */
export function parseJsonBody(text: string): unknown {
  // Many clients send `Content-Type: application/json` on every request, bodiless actions included:
  // an empty body is no body (a route that needs one then answers 400 VALIDATION_ERROR).
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    if (err instanceof SyntaxError && /prototype|__proto__/i.test(err.message)) {
      throw new AppError('VALIDATION_ERROR', 'Request body is not allowed', [{ path: '', message: 'keys __proto__ and constructor.prototype are not allowed' }]);
    }
    throw new AppError('INVALID_JSON', 'Request body is not valid JSON');
  }
  if (tooDeep(value, MAX_DEPTH)) {
    throw new AppError('VALIDATION_ERROR', 'Request body is nested too deeply', [{ path: '', message: `must not nest deeper than ${MAX_DEPTH} levels` }]);
  }
  return MAY_BE_ILL_FORMED.test(text) ? wellFormed(value) : value;
}
