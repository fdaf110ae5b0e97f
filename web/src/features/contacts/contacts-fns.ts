import { cleanTarget, reachOf } from '../../api/channels';
import type { ChannelInfo, ContactMethod, CreateContactMethodBody } from '../../api/types';

/** What secrets read as in every answer; sent back, the stored one is kept. */
export const MASK = '********';

export interface MethodDraft {
  type: string;
  label: string;
  fields: Record<string, string>;
}

export const emptyDraft = (type = 'email'): MethodDraft => ({ type, label: '', fields: {} });

export const draftOf = (m: ContactMethod): MethodDraft => ({ type: m.type, label: m.label, fields: { ...(m.target as Record<string, string>) } });

/** The target the API takes: the type's fields, an empty optional one left out (for a secret: removed). */
export const targetOf = (d: MethodDraft, info: ChannelInfo | undefined): Record<string, string> => cleanTarget(info, d.fields);

export const createBody = (d: MethodDraft, info: ChannelInfo | undefined): CreateContactMethodBody =>
  ({ type: d.type, ...(d.label.trim() && { label: d.label.trim() }), target: targetOf(d, info) }) as CreateContactMethodBody;

/** What a method reaches, in one line of text (secrets are never in it). */
export const reach = (m: ContactMethod, info: ChannelInfo | undefined): string => reachOf(info, m.target as Record<string, string>);

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
