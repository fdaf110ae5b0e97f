import type { SelectQueryBuilder } from 'kysely';
import type { Keyset } from '../lib/pagination.ts';
import type { SqlParams } from './sql-text.ts';

/**
 * Newest-first keyset pagination over (created_at, id), shared by every list. It fetches `limit + 1`
 * rows so the page knows whether more follow; rows inserted after the first page never shift later pages.
 */
export function keysetPage<QB extends SelectQueryBuilder<any, any, any>>(q: QB, limit: number, after: Keyset | null): QB {
  let r = q as SelectQueryBuilder<any, any, any>;
  if (after) {
    r = r.where((eb) => eb.or([
      eb('created_at', '<', after.createdAt),
      eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
    ]));
  }
  return r.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1) as QB;
}

export async function countRows(q: SelectQueryBuilder<any, any, any>): Promise<number> {
  const row = await q.clearSelect().select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number((row as { n: unknown }).n);
}

/** keysetPage's ordering, continuation and limit as the tail of SQL text whose WHERE clause comes before it. */
export function keysetSql(after: Keyset | null, limit: number, p: SqlParams): string {
  let tail = '';
  if (after) {
    const createdAt = p.add(after.createdAt);
    tail = ` and (created_at < ${createdAt} or (created_at = ${createdAt} and id < ${p.add(after.id)}))`;
  }
  return `${tail} order by created_at desc, id desc limit ${p.add(limit + 1)}`;
}
