import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { CreateContactMethodBody, LinkBody, Notification, NotificationRule, PatchContactMethodBody } from '../../api/types';

const METHODS = ['contact-methods'] as const;
const RULES = ['notification-rules'] as const;

/** `poll`: read again every few seconds (a chat being linked from the chat itself appears on its own). */
export function useContactMethods(poll = false) {
  return useQuery({ queryKey: METHODS, queryFn: ({ signal }) => unwrap(api.GET('/users/me/contact-methods', { signal })), refetchInterval: poll ? 3000 : false });
}

export function useNotificationRules() {
  return useQuery({ queryKey: RULES, queryFn: ({ signal }) => unwrap(api.GET('/users/me/notification-rules', { signal })) });
}

/** A method's change can change the rules too (deleting one drops its rules): both are read again. */
function useContactMutation<I, O>(fn: (input: I) => Promise<O>) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => Promise.all([qc.invalidateQueries({ queryKey: METHODS }), qc.invalidateQueries({ queryKey: RULES })]),
  });
}

export const useAddContactMethod = () =>
  useContactMutation((body: CreateContactMethodBody) => unwrap(api.POST('/users/me/contact-methods', { body })));

export const useUpdateContactMethod = () =>
  useContactMutation(({ id, body }: { id: string; body: PatchContactMethodBody }) =>
    unwrap(api.PATCH('/users/me/contact-methods/{id}', { params: { path: { id } }, body })));

export const useDeleteContactMethod = () =>
  useContactMutation((id: string) => unwrap(api.DELETE('/users/me/contact-methods/{id}', { params: { path: { id } } })));

export const useSaveRules = () =>
  useContactMutation((rules: NotificationRule[]) => unwrap(api.PUT('/users/me/notification-rules', { body: { rules } })));

/** "Send a test": a marked test page to the method now; the delivery as it went. */
const useTestContactMethod = () =>
  useMutation({ mutationFn: (id: string) => unwrap(api.POST('/users/me/contact-methods/{id}/test', { params: { path: { id } } })) });

/** How a test page went, in words: the provider's own error when it failed. */
const testOutcome = (n: Notification): string => (n.status === 'sent' ? 'Test page sent.' : `Test page failed: ${n.lastError ?? 'no reason given'}`);

/** "Send a test" to any of my methods, and how each went in words (the contact methods page, the Twilio settings). */
export function useSendTest() {
  const test = useTestContactMethod();
  const [outcomes, setOutcomes] = useState<Record<string, string>>({});
  return {
    send: (id: string) => test.mutate(id, {
      onSuccess: (r) => setOutcomes((o) => ({ ...o, [id]: testOutcome(r.data) })),
      onError: (e) => setOutcomes((o) => ({ ...o, [id]: `Test page not sent: ${e.message}` })),
    }),
    sending: (id: string) => test.isPending && test.variables === id,
    outcome: (id: string): string | undefined => outcomes[id],
  };
}

/** Sends a code to a method that pages only once confirmed (a phone number). */
export const useSendCode = () =>
  useMutation({ mutationFn: (id: string) => unwrap(api.POST('/users/me/contact-methods/{id}/send-code', { params: { path: { id } } })) });

/** Confirms a method with the code sent to it; the methods are read again (it pages from now on). */
export const useVerifyMethod = () =>
  useContactMutation(({ id, code }: { id: string; code: string }) => unwrap(api.POST('/users/me/contact-methods/{id}/verify', { params: { path: { id } }, body: { code } })));

/** A one-time code to link a chat account (Telegram) as a contact method, and where to send it. */
export const useRequestLink = () =>
  useMutation({ mutationFn: (type: LinkBody['type']) => unwrap(api.POST('/users/me/contact-methods/link', { body: { type } })) });
