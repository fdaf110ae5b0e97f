import { useState } from 'react';
import type { Role, User } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { formatTime } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { Pager, useCursorPages } from '../../components/pager';
import { useCan, useSession } from '../auth/session';
import { AddMemberForm, LinkNotice } from './add-member-form';
import { useAddMember, useChangeRole, useMemberList, useNewLink, useRemoveMember } from './members-api';
import { TableWrap } from '../../components/table-wrap';

const ROLES: Role[] = ['member', 'admin', 'owner'];

export default function MembersPage() {
  const session = useSession();
  const canWrite = useCan('users:write');
  // Only an owner makes, unmakes or removes an owner (the API refuses the rest with 403).
  const isOwner = session.user.role === 'owner';
  const pages = useCursorPages();
  const list = useMemberList(pages.cursor);
  const add = useAddMember();
  const newLink = useNewLink();
  const role = useChangeRole();
  const remove = useRemoveMember();
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<User | null>(null);
  const rows = list.data?.data ?? [];
  const created = add.data?.data ?? newLink.data?.data;
  const done = () => {
    add.reset();
    newLink.reset();
    setAdding(false);
  };
  const mayChange = (u: User) => canWrite && (isOwner || u.role !== 'owner');

  return (
    <Page title="Members" actions={canWrite && !adding && !created ? <button type="button" onClick={() => setAdding(true)}>Add member</button> : undefined}>
      {!canWrite && <p className="muted">Owners and admins add and remove members and change roles.</p>}
      {created ? <LinkNotice created={created} onDone={done} /> : adding && (
        <AddMemberForm roles={isOwner ? ROLES : ROLES.filter((r) => r !== 'owner')} onAdd={(input) => add.mutate(input)} onCancel={done}
          error={add.error} busy={add.isPending} />
      )}
      <ErrorDisplay error={list.error ?? role.error ?? remove.error ?? newLink.error} />
      {list.isPending ? <Loading /> : rows.length === 0 ? (
        <EmptyState title="No members"><p>Members appear here once added.</p></EmptyState>
      ) : (
        <TableWrap label="Members">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th><th scope="col" className="wide-only">Email</th><th scope="col">Role</th><th scope="col" className="wide-only">Added</th>
                {canWrite && <th scope="col"><span className="sr-only">Actions</span></th>}
              </tr>
            </thead>
            <tbody>
              {rows.map((u) => (
                <tr key={u.id}>
                  <td>
                    {u.name}{u.id === session.user.id && <span className="muted"> (you)</span>}
                    {/* On a phone the email goes under the name, a line break allowed after its @: a column of its own broke it every few letters. */}
                    <small className="narrow-only break muted">{u.email.replace(/@.*/, '')}@<wbr />{u.email.replace(/^[^@]*@/, '')}</small>
                  </td>
                  <td className="wide-only break">{u.email}</td>
                  <td>
                    {mayChange(u) ? (
                      <select aria-label={`Role of ${u.name}`} value={u.role} disabled={role.isPending}
                        onChange={(e) => role.mutate({ id: u.id, role: e.target.value as Role })}>
                        {ROLES.filter((r) => isOwner || r !== 'owner').map((r) => <option key={r} value={r}>{r}</option>)}
                      </select>
                    ) : u.role}
                  </td>
                  <td className="wide-only">{formatTime(u.createdAt)}</td>
                  {canWrite && (
                    <td>
                      {mayChange(u) && (
                        <div className="row-actions">
                          <button type="button" className="secondary small" onClick={() => newLink.mutate(u.id)} aria-label={`New link for ${u.name}`} title="A new one-time set-password link">New link</button>
                          <button type="button" className="danger small" onClick={() => setRemoving(u)} aria-label={`Remove ${u.name}`}>Remove</button>
                        </div>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Pager pages={pages} meta={list.data?.meta} />
      <ConfirmDialog open={removing !== null} title={`Remove ${removing?.name ?? ''}?`} confirmLabel="Remove member" danger busy={remove.isPending}
        onCancel={() => setRemoving(null)}
        onConfirm={() => removing && remove.mutate(removing.id, { onSettled: () => setRemoving(null) })}>
        <p>They are signed out at once and can no longer sign in. Their incidents become unassigned and they leave every on-call schedule.</p>
      </ConfirmDialog>
    </Page>
  );
}
