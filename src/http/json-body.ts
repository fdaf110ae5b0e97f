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
 * U+0000 removed from text: PostgreSQL can store it in neither text nor jsonb (the statement fails), and
 * no sender means it as content (it is a C string's end). It is stripped at the edge, never stored, so
 * both stores keep the same value and an alert carrying one is still taken rather than refused.
 */
export function withoutNul<T>(value: T): T {
  if (typeof value === 'string') return (value.includes('\u0000') ? value.replaceAll('\u0000', '') : value) as T;
  if (Array.isArray(value)) return value.map(withoutNul) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [withoutNul(k), withoutNul(v)])) as T;
  }
  return value;
}

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
  // JSON text can only carry U+0000 as the escape `\u0000`.
  return text.includes('\\u0000') ? withoutNul(value) : value;
}
