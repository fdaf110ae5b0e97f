import type { Kysely } from 'kysely';
import { inTransaction, isUniqueViolation, type Store } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { bodyProblems } from '../../http/validation.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import { digestOf } from './imports-fns.ts';
import type { ImportKind, ImportResult, PlanItem, Skip } from './imports-model.ts';
import type { ImportLinkRow, ImportsRepo } from './imports-repo.ts';

/**
 * One import run's bookkeeping: which source object became which AlertFlow object, and the create / update /
 * unchanged / skip decision for each. In a plan nothing is written; on apply each object is written through its
 * own module's service, in one transaction with its link, so that it is created once however many runs there are.
 */

export interface Writer {
  /** Creates the object in `db` (the link's transaction); its id, and anything the person must be shown once. */
  create(db: Kysely<DB>): Promise<{ id: string; credentials?: Record<string, string> }>;
  update(id: string, db: Kysely<DB>): Promise<unknown>;
  /** Whether the linked object is still there (read outside any transaction); absent: assumed so. */
  exists?(id: string): Promise<boolean>;
}

/** Whether a service's `get` finds the object: false on NOT_FOUND. */
export const found = (read: Promise<unknown>): Promise<boolean> =>
  read.then(() => true, (err: unknown) => {
    if (err instanceof AppError && err.code === 'NOT_FOUND') return false;
    throw err;
  });

export interface Item {
  kind: ImportKind;
  sourceId: string;
  name: string;
}

const describe = (details: readonly ErrorDetail[]): string => details.slice(0, 5).map((d) => `${d.path || '/'} ${d.message}`).join('; ');

/** A refusal by AlertFlow's own rules, which the plan reports as a skip; anything else stops the run. */
const isRefusal = (err: unknown): err is AppError =>
  err instanceof AppError && (err.code === 'VALIDATION_ERROR' || err.code === 'CONFLICT' || err.code === 'NOT_FOUND');

export function linker(deps: {
  store: Store; repo: ImportsRepo; orgId: string; system: string; vendor: string; apply: boolean; now: () => number; links: ImportLinkRow[];
}) {
  const { store, repo, orgId, system, apply } = deps;
  const lock = store.dialect === 'postgres';
  const key = (kind: string, sourceId: string) => `${kind}\n${sourceId}`;
  const links = new Map(deps.links.map((l) => [key(l.kind, l.source_id), l]));
  const ids = new Map<string, string>();
  const seen = new Set<string>();
  const result: ImportResult = { system, applied: apply, create: [], update: [], unchanged: [], skip: [] };

  const skip = (s: Skip): void => {
    result.skip.push({ kind: s.kind, sourceId: s.sourceId, name: s.name, reason: s.reason });
  };
  const record = (list: PlanItem[], item: Item, id: string, credentials?: Record<string, string>): string => {
    list.push({ kind: item.kind, sourceId: item.sourceId, name: item.name, id, ...(credentials && { credentials }) });
    ids.set(key(item.kind, item.sourceId), id);
    return id;
  };

  /** In one transaction: the link, then the object (created, updated, or left when its digest is the same). */
  async function write(item: Item, digest: string, w: Writer, goneId: string | null): Promise<{ list: 'create' | 'update' | 'unchanged'; id: string; credentials?: Record<string, string> }> {
    return inTransaction(store.db, async (trx) => {
      const at = deps.now();
      const link = await repo.get(trx, orgId, system, item.kind, item.sourceId, lock);
      const made = async () => {
        const created = await w.create(trx);
        await repo.update(trx, orgId, system, item.kind, item.sourceId, { target_id: created.id, digest, updated_at: at });
        return { list: 'create' as const, ...created };
      };
      if (!link) {
        // Claims the source object first: a concurrent run waits here for this transaction, then finds the link.
        await repo.insert(trx, { org_id: orgId, system, kind: item.kind, source_id: item.sourceId, target_id: '', digest: '', created_at: at, updated_at: at });
        return made();
      }
      // Deleted in AlertFlow since it was imported: the source still has it, so it is made again (unless another
      // run made it again meanwhile: then the link names the new one).
      if (goneId === link.target_id) return made();
      if (link.digest === digest) return { list: 'unchanged', id: link.target_id };
      try {
        await w.update(link.target_id, trx);
      } catch (err) {
        if (err instanceof AppError && err.code === 'NOT_FOUND') return made();
        throw err;
      }
      await repo.update(trx, orgId, system, item.kind, item.sourceId, { target_id: link.target_id, digest, updated_at: at });
      return { list: 'update', id: link.target_id };
    });
  }

  return {
    result,
    skip,
    /** The AlertFlow id a source object has (or will have, in a plan), or undefined when it is not imported. */
    idOf: (kind: ImportKind, sourceId: string): string | undefined => ids.get(key(kind, sourceId)),
    /** A source object that exists in AlertFlow without being written by the import (a member matched by email). */
    known(item: Item, id: string): void {
      seen.add(key(item.kind, item.sourceId));
      record(result.unchanged, item, id);
    },
    linkOf: (kind: ImportKind, sourceId: string): ImportLinkRow | undefined => links.get(key(kind, sourceId)),
    /** An object a plan would create outside `upsert` (a member). */
    planned(item: Item): void {
      seen.add(key(item.kind, item.sourceId));
      record(result.create, item, `(new ${item.kind} ${item.sourceId})`);
    },
    /** An object created outside `upsert` (a member, made by its service's own transaction), then linked. */
    async created(item: Item, id: string, credentials?: Record<string, string>): Promise<void> {
      seen.add(key(item.kind, item.sourceId));
      record(result.create, item, id, credentials);
      const at = deps.now();
      try {
        await repo.insert(store.db, { org_id: orgId, system, kind: item.kind, source_id: item.sourceId, target_id: id, digest: '', created_at: at, updated_at: at });
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        await repo.update(store.db, orgId, system, item.kind, item.sourceId, { target_id: id, digest: '', updated_at: at });
      }
    },

    /**
     * Plans or applies one object: `body` is what its service takes, checked against `schema` (the REST API's
     * own) and by `check` (rules beyond the schema) first. Returns its AlertFlow id, or null when it is skipped.
     */
    async upsert(item: Item, body: unknown, schema: object, w: Writer, check?: () => ErrorDetail[]): Promise<string | null> {
      seen.add(key(item.kind, item.sourceId));
      const problems = [...bodyProblems(schema, structuredClone(body)), ...(check?.() ?? [])];
      if (problems.length > 0) {
        skip({ ...item, reason: `AlertFlow would refuse it: ${describe(problems)}` });
        return null;
      }
      const digest = digestOf(body);
      const link = links.get(key(item.kind, item.sourceId));
      const gone = link !== undefined && w.exists !== undefined && !(await w.exists(link.target_id));
      const goneId = gone ? (link as ImportLinkRow).target_id : null;
      if (!apply) {
        if (!link || gone) return record(result.create, item, `(new ${item.kind} ${item.sourceId})`);
        return record(link.digest === digest ? result.unchanged : result.update, item, link.target_id);
      }
      for (let attempt = 1; ; attempt++) {
        try {
          const done = await write(item, digest, w, goneId);
          return record(result[done.list], item, done.id, done.credentials);
        } catch (err) {
          // Another run linked the same source object a moment earlier: the next attempt finds its link.
          if (attempt === 1 && isUniqueViolation(err)) continue;
          if (!isRefusal(err)) throw err;
          skip({ ...item, reason: `AlertFlow refused it: ${err.message}${err.details ? ` (${describe(err.details)})` : ''}` });
          return null;
        }
      }
    },

    /** Links of earlier runs whose source object is gone: reported, left as they are. */
    leftovers(): void {
      for (const l of links.values()) {
        if (seen.has(key(l.kind, l.source_id))) continue;
        skip({ kind: l.kind, sourceId: l.source_id, name: l.target_id, reason: `no longer in ${deps.vendor}: the AlertFlow ${l.kind.replace('_', ' ')} ${l.target_id} imported from it is left as it is` });
      }
    },
  };
}
export type Linker = ReturnType<typeof linker>;
