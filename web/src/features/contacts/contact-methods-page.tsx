import { useState } from 'react';
import { Link } from 'react-router';
import { channelNamed, channelsFor, useChannels } from '../../api/channels';
import type { ChannelInfo, ContactMethod, PatchContactMethodBody } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay } from '../../components/error-display';
import { Loading, Page } from '../../components/page';
import { useSession } from '../auth/session';
import {
  useAddContactMethod, useContactMethods, useDeleteContactMethod, useNotificationRules, useSaveRules, useSendTest, useUpdateContactMethod,
} from './contacts-api';
import { createBody, draftOf, emptyDraft, reach, targetOf, type MethodDraft } from './contacts-fns';
import { MethodForm } from './method-form';
import { LinkChat } from './link-chat';
import { VerifyMethod } from './verify-method';
import { RulesEditor } from './rules-editor';

type Editing = { kind: 'add' } | { kind: 'edit'; method: ContactMethod } | null;

function MethodList({ methods, channels, added, onEdit, onDelete }: {
  methods: ContactMethod[]; channels: ChannelInfo[] | undefined; added: string | null; onEdit: (m: ContactMethod) => void; onDelete: (m: ContactMethod) => void;
}) {
  const test = useSendTest();
  return (
    <ul className="short-list contact-list">
      {methods.map((m) => (
        <li key={m.id} className="contact-item" data-testid="contact-method">
          <div className="break">
            <strong>{m.label}</strong> <span className="badge">{channelNamed(channels, m.type)?.label ?? m.type}</span>
            <div className="muted">{reach(m, channelNamed(channels, m.type))}</div>
            {test.outcome(m.id) && <div role="status" className="hint">{test.outcome(m.id)}</div>}
            {!m.verified && <VerifyMethod method={m} autoSend={m.id === added} />}
          </div>
          <div className="row-actions">
            {m.verified && <button type="button" className="secondary small" disabled={test.sending(m.id)} onClick={() => test.send(m.id)} aria-label={`Send a test to ${m.label}`}>Send a test</button>}
            <button type="button" className="secondary small" onClick={() => onEdit(m)} aria-label={`Edit ${m.label}`}>Edit</button>
            <button type="button" className="danger small" onClick={() => onDelete(m)} aria-label={`Delete ${m.label}`}>Delete</button>
          </div>
        </li>
      ))}
    </ul>
  );
}

export default function ContactMethodsPage() {
  const session = useSession();
  const [linking, setLinking] = useState(false);
  const methods = useContactMethods(linking);
  const rules = useNotificationRules();
  const add = useAddContactMethod();
  const update = useUpdateContactMethod();
  const remove = useDeleteContactMethod();
  const saveRules = useSaveRules();
  const catalogue = useChannels();
  // A chat linked from the chat itself (Telegram) is not typed in: its Link button gives the code to send.
  const contactChannels = channelsFor(catalogue.data, 'contact').filter((c) => !c.linked);
  const linkedChannels = channelsFor(catalogue.data, 'contact').filter((c) => c.linked);
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<ContactMethod | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const list = methods.data?.data ?? [];

  const close = () => {
    setEditing(null);
    add.reset();
    update.reset();
  };
  const save = (draft: MethodDraft) => {
    const info = channelNamed(catalogue.data, draft.type);
    if (editing?.kind === 'edit') {
      const label = draft.label.trim();
      update.mutate({ id: editing.method.id, body: { ...(label && { label }), target: targetOf(draft, info) } as PatchContactMethodBody }, { onSuccess: close });
    } else {
      add.mutate(createBody(draft, info), { onSuccess: (r) => { setAdded(r.data.id); close(); } });
    }
  };

  return (
    <Page title="Contact methods" actions={<button type="button" onClick={() => setEditing({ kind: 'add' })} disabled={editing !== null}>Add contact method</button>}>
      <p className="muted"><Link to="/profile">Your profile</Link> · how you are paged when an alert or escalation reaches you.</p>
      {editing && catalogue.data && (
        <MethodForm
          key={editing.kind === 'edit' ? editing.method.id : 'new'}
          heading={editing.kind === 'edit' ? `Edit ${editing.method.label}` : 'Add a contact method'}
          initial={editing.kind === 'edit' ? draftOf(editing.method) : emptyDraft(contactChannels.find((c) => c.available)?.type)}
          channels={contactChannels}
          fixedType={editing.kind === 'edit'}
          submitLabel={editing.kind === 'edit' ? 'Save' : 'Add'}
          busy={add.isPending || update.isPending}
          error={editing.kind === 'edit' ? update.error : add.error}
          onSubmit={save}
          onCancel={close}
        />
      )}
      {linkedChannels.map((c) => <LinkChat key={c.type} channel={c} onWaiting={setLinking} />)}
      <ErrorDisplay error={methods.error ?? rules.error ?? remove.error ?? catalogue.error} />
      <section className="panel" aria-labelledby="methods-head">
        <h2 id="methods-head">Where</h2>
        {methods.isPending ? <Loading rows={3} /> : list.length === 0 ? (
          <EmptyState title="No contact methods yet">
            <p>You are paged by email at <strong className="break">{session.user.email}</strong>. Add another way to be reached: the channels are listed under Add contact method.</p>
          </EmptyState>
        ) : <MethodList methods={list} channels={catalogue.data} added={added} onEdit={(m) => setEditing({ kind: 'edit', method: m })} onDelete={setDeleting} />}
      </section>
      {list.length > 0 && (
        <section className="panel" aria-labelledby="rules-head">
          <h2 id="rules-head">When</h2>
          <p className="hint">Each rule pages you by one method, so many minutes after the page starts (0 = at once). A method may appear more than once; methods no rule names do not page you.</p>
          {rules.isPending ? <Loading rows={2} /> : rules.data && (
            // Read again after a method is deleted (its rules go with it): the editor starts over from what is stored.
            <RulesEditor key={JSON.stringify(rules.data.data.rules)} rules={rules.data.data.rules} methods={list} save={saveRules} />
          )}
        </section>
      )}
      <ConfirmDialog open={deleting !== null} title={`Delete ${deleting?.label ?? ''}?`} confirmLabel="Delete contact method" danger busy={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting.id, { onSuccess: () => saveRules.reset(), onSettled: () => setDeleting(null) })}>
        <p>You will no longer be paged there; the rules that name it are removed too.</p>
      </ConfirmDialog>
    </Page>
  );
}
