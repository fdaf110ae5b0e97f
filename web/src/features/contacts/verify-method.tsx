import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { ContactMethod } from '../../api/types';
import { ErrorDisplay } from '../../components/error-display';
import { fieldErrors, TextField } from '../../components/form';
import { useSendCode, useVerifyMethod } from './contacts-api';

/**
 * A method that pages only once confirmed (a phone number): send a code to it (a text, or a call that reads
 * it), then enter the code. Until then nobody is paged there.
 */
export function VerifyMethod({ method, autoSend = false }: { method: ContactMethod; /** Just added: the first code goes at once. */ autoSend?: boolean }) {
  const send = useSendCode();
  const verify = useVerifyMethod();
  const [code, setCode] = useState('');
  const asked = useRef(false);
  useEffect(() => {
    if (!autoSend || asked.current) return;
    asked.current = true;
    send.mutate(method.id);
  }, [autoSend, method.id, send]);
  const sent = send.data?.data;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    verify.mutate({ id: method.id, code: code.trim() });
  };
  return (
    <form className="verify" onSubmit={submit} noValidate aria-label={`Confirm ${method.label}`}>
      <p className="hint" role="note">Not confirmed yet: it pages only once you enter the code sent to it.</p>
      {sent && <p role="status" className="hint">{sent.status === 'sent' ? 'Code sent. It expires in 10 minutes.' : `The code could not be sent: ${sent.lastError ?? 'no reason given'}`}</p>}
      <div className="actions start">
        <button type="button" className="secondary small" disabled={send.isPending} onClick={() => send.mutate(method.id)}>{sent ? 'Send a new code' : 'Send a code'}</button>
      </div>
      <TextField label={`Code for ${method.label}`} inputMode="numeric" autoComplete="one-time-code" maxLength={20} value={code}
        errors={fieldErrors(verify.error, 'code')} onChange={(e) => setCode(e.target.value)} />
      <ErrorDisplay error={send.error ?? verify.error} fields={['code']} />
      <div className="actions start">
        <button type="submit" className="small" disabled={verify.isPending || code.trim() === ''}>Confirm</button>
      </div>
    </form>
  );
}
