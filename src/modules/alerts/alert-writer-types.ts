import type { AlertRow } from './alerts-repo.ts';
import type { SentStatus, WrittenAlert } from './alert-sql.ts';

/** Who resolves through ingest: the integration whose sender said so, or the system for a sender that is not one (a heartbeat). */
export interface Resolver {
  type: 'integration' | 'system';
  id: string;
}

/**
 * One alert of a payload as ingest writes it: a row to upsert (`windowId`: the suppression window that stores a
 * new firing alert `suppressed`), or the open alert of a fingerprint to resolve.
 */
export type WriteOp =
  | { kind: 'upsert'; row: AlertRow; sent: SentStatus; windowId: string | null }
  | { kind: 'resolve'; orgId: string; fingerprint: string; by: Resolver; at: number };

/** What a WriteOp returns: the upserted alert, or the id of the resolved one (null: none was open). */
export type OpResult = WrittenAlert | string | null;
