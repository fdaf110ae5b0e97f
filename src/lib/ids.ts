import { randomBytes } from 'node:crypto';

/** Opaque, unguessable record id with a readable type prefix (`alt_…`, `int_…`). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}
