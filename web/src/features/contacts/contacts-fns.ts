import type { ContactMethod, ContactType, CreateContactMethodBody } from '../../api/types';

/** What secrets read as in every answer; sent back, the stored one is kept. */
export const MASK = '********';

export interface TargetField {
  name: string;
  label: string;
  hint?: string;
  secret?: boolean;
  optional?: boolean;
  inputType?: 'email' | 'url' | 'text';
}

const URL_HINT = 'http or https.';
const SECRET_HINT = `Optional. Shown as ${MASK} once saved: leave that to keep it, clear it to remove it.`;

/** Each type's name and the fields of its target, in the order the form shows them. */
export const CONTACT_TYPES: Record<ContactType, { name: string; fields: TargetField[] }> = {
  email: { name: 'Email', fields: [{ name: 'to', label: 'Email address', inputType: 'email' }] },
  ntfy: {
    name: 'ntfy push',
    fields: [
      { name: 'serverUrl', label: 'Server URL', hint: `Your ntfy server, e.g. https://ntfy.sh. ${URL_HINT}`, inputType: 'url' },
      { name: 'topic', label: 'Topic', hint: '1–64 letters, digits, - or _.' },
      { name: 'token', label: 'Access token', hint: SECRET_HINT, secret: true, optional: true },
    ],
  },
  slack: { name: 'Slack', fields: [{ name: 'webhookUrl', label: 'Incoming webhook URL', hint: URL_HINT, inputType: 'url' }] },
  teams: { name: 'Microsoft Teams', fields: [{ name: 'webhookUrl', label: 'Workflows webhook URL', hint: URL_HINT, inputType: 'url' }] },
  webhook: {
    name: 'Webhook',
    fields: [
      { name: 'url', label: 'URL', hint: `Receives a JSON POST. ${URL_HINT}`, inputType: 'url' },
      { name: 'secret', label: 'Signing secret', hint: `16–256 characters; signs the body with HMAC-SHA256. ${SECRET_HINT}`, secret: true, optional: true },
    ],
  },
};

export const TYPE_ORDER = Object.keys(CONTACT_TYPES) as ContactType[];

export interface MethodDraft {
  type: ContactType;
  label: string;
  fields: Record<string, string>;
}

export const emptyDraft = (type: ContactType = 'email'): MethodDraft => ({ type, label: '', fields: {} });

export const draftOf = (m: ContactMethod): MethodDraft => ({ type: m.type, label: m.label, fields: { ...(m.target as Record<string, string>) } });

/** The target the API takes: the type's fields, an empty optional one left out (for a secret: removed). */
export function targetOf(d: MethodDraft): Record<string, string> {
  const target: Record<string, string> = {};
  for (const f of CONTACT_TYPES[d.type].fields) {
    const v = (d.fields[f.name] ?? '').trim();
    if (v !== '' || !f.optional) target[f.name] = v;
  }
  return target;
}

export const createBody = (d: MethodDraft): CreateContactMethodBody =>
  ({ type: d.type, ...(d.label.trim() && { label: d.label.trim() }), target: targetOf(d) }) as CreateContactMethodBody;

/** What a method reaches, in one line of text (secrets are never in it). */
export function reach(m: ContactMethod): string {
  const t = m.target as Record<string, string>;
  switch (m.type) {
    case 'email': return t.to ?? '';
    case 'ntfy': return `${t.serverUrl ?? ''} · topic ${t.topic ?? ''}${t.token ? ' · with token' : ''}`;
    case 'webhook': return `${t.url ?? ''}${t.secret ? ' · signed' : ''}`;
    default: return t.webhookUrl ?? '';
  }
}

export interface RuleRow {
  contactMethodId: string;
  minutes: string;
}

/** The rules to save; minutes that are not a whole number go as they are, for the API to name. */
export const rulesOf = (rows: RuleRow[]) =>
  rows.map((r) => ({ contactMethodId: r.contactMethodId, afterMinutes: /^\d+$/.test(r.minutes.trim()) ? Number(r.minutes) : Number.NaN }));

export const move = <T,>(list: T[], i: number, by: number): T[] => {
  const next = [...list];
  const [x] = next.splice(i, 1);
  next.splice(i + by, 0, x as T);
  return next;
};
