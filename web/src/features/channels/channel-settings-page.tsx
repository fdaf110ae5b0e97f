import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { blankTarget, cleanTarget } from '../../api/channels';
import type { ChannelSetup } from '../../api/types';
import { ChannelFields } from '../../components/channel-fields';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { CopyValue } from '../../components/copy-button';
import { ErrorDisplay } from '../../components/error-display';
import { formatTime } from '../../components/format';
import { Loading, Page } from '../../components/page';
import { useCan } from '../auth/session';
import { useContactMethods, useSendTest } from '../contacts/contacts-api';
import { useChannelProviders, useChannelSettings, useRemoveChannelSettings, useSaveChannelSettings } from './channel-settings-api';

/** A URL the provider is given, named as its settings name it: `interactivity` → "Interactivity URL". */
const urlLabel = (name: string): string => `${name.charAt(0).toUpperCase()}${name.slice(1)} URL`;

/** The operator's Twilio account, as the environment sets it (read-only), and a test page to one of my own numbers. */
function Twilio() {
  const providers = useChannelProviders();
  const methods = useContactMethods();
  const test = useSendTest();
  const phones = (methods.data?.data ?? []).filter((m) => (m.type === 'sms' || m.type === 'voice') && m.verified);
  const t = providers.data?.twilio;
  return (
    <section className="panel" aria-labelledby="twilio-head">
      <h2 id="twilio-head">Phone: SMS and voice calls (Twilio)</h2>
      <ErrorDisplay error={providers.error} />
      {!t ? <Loading rows={2} /> : !t.configured ? (
        <p data-testid="twilio-status">Off: the operator has not set <code>TWILIO_ACCOUNT_SID</code>, <code>TWILIO_AUTH_TOKEN</code> and <code>TWILIO_FROM_NUMBER</code>, so nobody can be paged by SMS or call.</p>
      ) : (
        <>
          <p data-testid="twilio-status">On: set by the operator in the environment (read-only here).</p>
          <dl className="pairs">
            <div><dt>Account</dt><dd>{t.accountSid}</dd></div>
            <div><dt>Sending numbers</dt><dd>{t.fromNumbers.join(', ')}</dd></div>
            <CopyValue label="Messaging webhook (HTTP POST) of each number" value={t.smsWebhookUrl} testId="sms-webhook-url" copy="Copy the webhook URL" />
          </dl>
          <h3>Send a test</h3>
          {phones.length === 0 ? (
            <p className="muted">Confirm a phone number in <Link to="/profile/contact-methods">your contact methods</Link> to send yourself a test text or call.</p>
          ) : (
            <ul className="short-list">
              {phones.map((m) => (
                <li key={m.id} className="meta-line">
                  <span>{m.label} ({m.type === 'sms' ? 'SMS' : 'call'})</span>
                  <button type="button" className="secondary small" disabled={test.sending(m.id)} onClick={() => test.send(m.id)} aria-label={`Send a test to ${m.label}`}>Send a test</button>
                  {test.outcome(m.id) && <span role="status" className="hint">{test.outcome(m.id)}</span>}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

/** One organization set-up (a Slack app, a Telegram bot): its status, the URLs to give the provider, its form. */
function Setup({ setup, canWrite }: { setup: ChannelSetup; canWrite: boolean }) {
  const info = { type: setup.channel, fields: setup.fields };
  const [values, setValues] = useState<Record<string, string>>(setup.settings ?? blankTarget(info));
  const [saved, setSaved] = useState(false);
  const [removing, setRemoving] = useState(false);
  const save = useSaveChannelSettings();
  const remove = useRemoveChannelSettings();
  const head = `setup-${setup.channel}`;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    save.mutate({ channel: setup.channel, settings: cleanTarget(info, values) }, {
      onSuccess: (r) => {
        setValues(r.data.settings ?? blankTarget(info));
        setSaved(true);
      },
    });
  };
  return (
    <section className="panel" aria-labelledby={head} data-testid={`setup-${setup.channel}`}>
      <h2 id={head}>{setup.label}</h2>
      <p data-testid={`${setup.channel}-status`}>
        {setup.configured ? `Set up${setup.updatedAt ? `, last changed ${formatTime(setup.updatedAt)}` : ''}.` : 'Not set up: this channel cannot send for this organization yet.'}
      </p>
      <p className="muted">{setup.about}</p>
      {Object.keys(setup.urls).length > 0 && (
        <dl className="pairs">
          {Object.entries(setup.urls).map(([name, url]) => (
            <CopyValue key={name} label={urlLabel(name)} value={url} testId={`${setup.channel}-url-${name}`} copy={`Copy the ${name} URL`} />
          ))}
        </dl>
      )}
      {canWrite ? (
        <form onSubmit={submit} noValidate aria-label={`${setup.label} set-up`}>
          <ChannelFields info={info} target={values} path="" error={save.error} onChange={(v) => { setSaved(false); setValues(v); }} />
          <ErrorDisplay error={save.error ?? remove.error} fields={setup.fields.map((f) => f.name)} />
          {saved && <p role="status">Saved: the provider accepted it.</p>}
          <div className="actions">
            {setup.configured && <button type="button" className="danger" onClick={() => setRemoving(true)}>Remove</button>}
            <button type="submit" disabled={save.isPending}>{save.isPending ? 'Checking…' : 'Save and check'}</button>
          </div>
        </form>
      ) : <p className="muted">An owner or admin sets this up.</p>}
      <ConfirmDialog open={removing} title={`Remove the ${setup.label} set-up?`} confirmLabel="Remove" danger busy={remove.isPending}
        onCancel={() => setRemoving(false)}
        onConfirm={() => remove.mutate(setup.channel, { onSettled: () => setRemoving(false), onSuccess: () => setValues(blankTarget(info)) })}>
        <p>Its pages fail from now on, saying it is not set up, until it is set up again.</p>
      </ConfirmDialog>
    </section>
  );
}

export default function ChannelSettingsPage() {
  const canWrite = useCan('integrations:write');
  const settings = useChannelSettings();
  return (
    <Page title="Channels">
      <p className="muted">How AlertFlow reaches people beyond email: phone and SMS through the operator&rsquo;s Twilio account, and this organization&rsquo;s own chat apps whose buttons answer a page.</p>
      <Twilio />
      <ErrorDisplay error={settings.error} />
      {settings.isPending ? <Loading rows={3} /> : (settings.data?.data ?? []).map((s) => <Setup key={s.channel} setup={s} canWrite={canWrite} />)}
    </Page>
  );
}
