import { randomBytes } from 'node:crypto';

/** Opaque, unguessable record id with a readable type prefix (`alt_…`, `int_…`). */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}

let sequence = 0;

/**
 * An id that sorts in creation order, for records listed by (created_at, id) whose order matters within one
 * millisecond (an incident's timeline): the time, then a per-process sequence, then randomness.
 */
export function orderedId(prefix: string, at: number): string {
  sequence = (sequence + 1) % 36 ** 4;
  return `${prefix}_${at.toString(36).padStart(9, '0')}${sequence.toString(36).padStart(4, '0')}${randomBytes(8).toString('base64url')}`;
}
