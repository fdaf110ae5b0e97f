import { CompiledQuery, type Kysely } from 'kysely';
import type { Store } from './database.ts';
import type { DB } from './schema.ts';

/** The values of a statement written out as SQL text: `add` binds one and returns its placeholder in the text. */
export interface SqlParams {
  readonly values: unknown[];
  add(value: unknown): string;
}

export function sqlParams(store: Pick<Store, 'param'>): SqlParams {
  const values: unknown[] = [];
  return {
    values,
    add: (value) => {
      values.push(value);
      return store.param(values.length);
    },
  };
}

/**
 * Runs SQL text as written (placeholders as `store.param` makes them), inside `db`'s transaction when it is one: for
 * the statements of hot paths, where building them with Kysely cost more than running them. The same text each time
 * is also what SQLite keeps prepared (sqlite-database.ts).
 */
export async function runSql<R = Record<string, unknown>>(db: Kysely<DB>, text: string, params: readonly unknown[]): Promise<R[]> {
  return (await db.executeQuery<R>(CompiledQuery.raw(text, [...params]))).rows;
}

/** runSql for a write without RETURNING: how many rows it changed. */
export async function runSqlChanges(db: Kysely<DB>, text: string, params: readonly unknown[]): Promise<number> {
  return Number((await db.executeQuery(CompiledQuery.raw(text, [...params]))).numAffectedRows ?? 0);
}

/**
 * SQL text written with PostgreSQL's placeholders (`$1`, `$2`, …) as `store` writes them (`?1` on SQLite): for fixed
 * statements, made once per repository and run with runSql.
 */
export const textFor = (store: Pick<Store, 'dialect'>, text: string): string =>
  store.dialect === 'sqlite' ? text.replace(/\$(\d+)/g, '?$1') : text;
