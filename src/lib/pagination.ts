import { createHmac, timingSafeEqual } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { AppError } from './errors.ts';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: 'Page size, 1–100 (default 25).' })),
  cursor: Type.Optional(Type.String({ maxLength: 512, description: 'The `nextCursor` of the previous page; omit for the first page.' })),
};

export const PageMeta = Type.Object(
  {
    limit: Type.Integer(),
    hasMore: Type.Boolean(),
    nextCursor: Type.Union([Type.String(), Type.Null()]),
    total: Type.Optional(Type.Integer({ description: 'Count of matching records; first page only.' })),
  },
  { additionalProperties: false },
);
export type PageMeta = Static<typeof PageMeta>;

export const listOf = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({ data: Type.Array(item), meta: PageMeta }, { additionalProperties: false });

/** Position of the last row of a page in the newest-first order (created_at desc, id desc). */
export interface Keyset {
  createdAt: number;
  id: string;
}

/**
 * Cursors are opaque and signed: the signature binds them to the organization and the list they came
 * from, so a tampered, truncated or foreign cursor is a 400 rather than a silently wrong page.
 */
export class CursorCodec {
  readonly #secret: string;
  constructor(secret: string) {
    this.#secret = secret;
  }

  #sign(scope: string, body: string): Buffer {
    return createHmac('sha256', this.#secret).update(`${scope}\n${body}`).digest().subarray(0, 16);
  }

  encode(scope: string, key: Keyset): string {
    const body = Buffer.from(JSON.stringify([key.createdAt, key.id])).toString('base64url');
    return `${body}.${this.#sign(scope, body).toString('base64url')}`;
  }

  decode(scope: string, cursor: string): Keyset {
    const bad = new AppError('VALIDATION_ERROR', 'Invalid cursor', [{ path: '/cursor', message: 'is malformed or belongs to another list' }]);
    const [body, sig, extra] = cursor.split('.');
    if (!body || !sig || extra !== undefined) throw bad;
    const given = Buffer.from(sig, 'base64url');
    const expected = this.#sign(scope, body);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw bad;
    const value: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    if (!Array.isArray(value) || typeof value[0] !== 'number' || typeof value[1] !== 'string') throw bad;
    return { createdAt: value[0], id: value[1] };
  }
}

export interface Page<T> {
  data: T[];
  meta: PageMeta;
}

/**
 * Turns `limit + 1` fetched rows into a page: the extra row only tells whether there is more.
 */
export function toPage<R extends { created_at: number; id: string }, T>(
  rows: R[],
  limit: number,
  total: number | undefined,
  encode: (key: Keyset) => string,
  map: (row: R) => T,
): Page<T> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  const meta: PageMeta = {
    limit,
    hasMore,
    nextCursor: hasMore && last ? encode({ createdAt: last.created_at, id: last.id }) : null,
  };
  if (total !== undefined) meta.total = total;
  return { data: pageRows.map(map), meta };
}

/**
 * One list request: decode the cursor (bound to `scope`), fetch `limit + 1` rows after it, and count the
 * matches only for the first page.
 */
export async function paginate<R extends { created_at: number; id: string }, T>(
  cursors: CursorCodec,
  scope: string,
  query: { limit: number; cursor?: string | undefined },
  fetch: (after: Keyset | null) => Promise<R[]>,
  count: () => Promise<number>,
  map: (row: R) => T,
): Promise<Page<T>> {
  const after = query.cursor ? cursors.decode(scope, query.cursor) : null;
  const [rows, total] = await Promise.all([fetch(after), after ? undefined : count()]);
  return toPage(rows, query.limit, total, (k) => cursors.encode(scope, k), map);
}
