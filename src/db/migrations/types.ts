import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';

/** A migration is written once for both stores; it receives the dialect for the few places they differ. */
export type MigrationFactory = (dialect: Dialect) => Migration;

/** Types that differ by dialect; everything else in the migrations is written once. */
export function columnTypes(dialect: Dialect) {
  return {
    json: dialect === 'postgres' ? 'jsonb' : 'text',
    ts: dialect === 'postgres' ? 'bigint' : 'integer',
  } as const;
}
