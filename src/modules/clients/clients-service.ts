import { isUniqueViolation, type Store } from '../../db/database.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { iso } from '../../lib/clock.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { newId } from '../../lib/ids.ts';
import type { CursorCodec, Page } from '../../lib/pagination.ts';
import { paginate } from '../../lib/pagination.ts';
import type { AuditService } from '../audit/audit-service.ts';
import type { AlertWriter } from '../alerts/alert-writer.ts';
import type { ClientRow, ClientsRepo } from './clients-repo.ts';
import type { Client, CreateClientBody, UpdateClientBody } from './clients-schemas.ts';

const toClient = (r: ClientRow): Client => ({
  id: r.id,
  name: r.name,
  slug: r.slug,
  contactEmail: r.contact_email,
  notes: r.notes,
  reportRecipients: JSON.parse(r.report_recipients) as string[],
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** The database's unique constraint decides a slug race; its refusal is our 409. */
async function slugUnique<T>(slug: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (slug !== undefined && isUniqueViolation(err, 'clients_org_slug')) throw conflict(`A client with slug "${slug}" already exists`);
    throw err;
  }
}

export function clientsService(deps: { store: Store; repo: ClientsRepo; alerts: Pick<AlertWriter, 'detachClient'>; audit: AuditService; clock: Clock; cursors: CursorCodec }) {
  const { store, repo, audit, clock, cursors } = deps;

  return {
    async create(orgId: string, actor: Actor, input: CreateClientBody): Promise<Client> {
      const now = clock.now();
      const row: ClientRow = {
        id: newId('cli'),
        org_id: orgId,
        name: input.name,
        slug: input.slug,
        contact_email: input.contactEmail ?? null,
        notes: input.notes ?? null,
        report_recipients: JSON.stringify(input.reportRecipients ?? []),
        created_at: now,
        updated_at: now,
      };
      await slugUnique(row.slug, () => store.db.transaction().execute(async (trx) => {
        await repo.insert(trx, row);
        await audit.record(trx, { orgId, action: 'client.created', actor, target: { type: 'client', id: row.id }, metadata: { name: row.name, slug: row.slug } });
      }));
      return toClient(row);
    },

    async get(orgId: string, id: string): Promise<Client> {
      const row = await repo.get(store.db, orgId, id);
      if (!row) throw notFound('Client');
      return toClient(row);
    },

    list(orgId: string, query: { limit: number; cursor?: string | undefined }): Promise<Page<Client>> {
      return paginate(cursors, `${orgId}:clients`, query,
        (after) => repo.page(store.db, orgId, query.limit, after), () => repo.count(store.db, orgId), toClient);
    },

    async update(orgId: string, actor: Actor, id: string, input: UpdateClientBody): Promise<Client> {
      const row = await slugUnique(input.slug, () => store.db.transaction().execute(async (trx) => {
        const updated = await repo.update(trx, orgId, id, {
          ...(input.name !== undefined && { name: input.name }),
          ...(input.slug !== undefined && { slug: input.slug }),
          ...(input.contactEmail !== undefined && { contact_email: input.contactEmail }),
          ...(input.notes !== undefined && { notes: input.notes }),
          ...(input.reportRecipients !== undefined && { report_recipients: JSON.stringify(input.reportRecipients) }),
          updated_at: clock.now(),
        });
        if (!updated) throw notFound('Client');
        await audit.record(trx, { orgId, action: 'client.updated', actor, target: { type: 'client', id }, metadata: { changed: Object.keys(input) } });
        return updated;
      }));
      return toClient(row);
    },

    /**
     * Deletes the client and keeps its alerts and integrations, which then belong to no client. A
     * suppression window scoped to the client refuses the delete (409): unscoped, it would silence every
     * client's alerts. The row is deleted first so that, on PostgreSQL, the transaction holds its lock
     * while it checks the windows and unlinks.
     */
    async remove(orgId: string, actor: Actor, id: string): Promise<void> {
      await store.db.transaction().execute(async (trx) => {
        if (!(await repo.remove(trx, orgId, id))) throw notFound('Client');
        if (await repo.hasSuppressionWindows(trx, orgId, id)) {
          throw conflict('The client has suppression windows scoped to it: delete or re-scope its suppression windows first');
        }
        const at = clock.now();
        await deps.alerts.detachClient(trx, orgId, id, at);
        await repo.detach(trx, orgId, id, at);
        await audit.record(trx, { orgId, action: 'client.deleted', actor, target: { type: 'client', id } });
      });
    },
  };
}
export type ClientsService = ReturnType<typeof clientsService>;
