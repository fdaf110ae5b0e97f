import { Type, type TObject, type TSchema } from 'typebox';
import { outboundUrlProblem, type AllowList } from '../../../infra/outbound.ts';
import { schemaIssues } from '../../../http/validation.ts';
import type { ErrorDetail } from '../../../lib/errors.ts';
import { flagsOf, hostOnly, MASKED_SECRET, type Channel, type ChannelTarget } from './channel.ts';

/**
 * What every consumer of channels needs to do with a target, from the channel's own declaration: check it
 * (schema, URLs, secret lengths), mask its secrets for a response, keep a stored secret sent back masked,
 * and describe its fields for a form. Pure; no function here names a channel.
 */

interface FieldInfo {
  name: string;
  schema: TSchema & { title?: string; description?: string; maxLength?: number; minLength?: number; pattern?: string; format?: string };
  required: boolean;
}

export function fieldsOf(channel: Pick<Channel, 'target'>): FieldInfo[] {
  const required = new Set((channel.target.required as string[] | undefined) ?? []);
  return Object.entries(channel.target.properties as Record<string, FieldInfo['schema']>).map(([name, schema]) => ({ name, schema, required: required.has(name) }));
}

const secretNames = (channel: Pick<Channel, 'target'>): string[] => fieldsOf(channel).filter((f) => flagsOf(f.schema).secret === true).map((f) => f.name);

/** The problems of a target against its channel's schema, each at its own path under `base`. */
export function schemaProblems(channel: Pick<Channel, 'target'>, target: unknown, base: string): ErrorDetail[] {
  if (target === null || typeof target !== 'object' || Array.isArray(target)) return [{ path: base, message: 'must be an object' }];
  const seen = new Set<string>();
  return schemaIssues(channel.target, target).flatMap((e): ErrorDetail[] => {
    const at = `${base}${e.instancePath ?? ''}`;
    if (e.keyword === 'required') return [{ path: `${at}/${String(e.params?.missingProperty)}`, message: 'is required' }];
    if (e.keyword === 'additionalProperties') return [{ path: `${at}/${String(e.params?.additionalProperty)}`, message: 'is not a field of this channel\'s target' }];
    return [{ path: at, message: e.message ?? 'is not valid' }];
  }).filter((d) => !seen.has(d.path) && seen.add(d.path)).slice(0, 10);
}

/**
 * What is wrong with a target: its schema, then every URL field (the outbound address policy, as sending
 * applies it) and every secret's length (the mask passes: it keeps the stored secret, which `keepSecrets`
 * settles).
 */
export function targetProblems(channel: Pick<Channel, 'target'>, target: unknown, allow: AllowList, base = '/target'): ErrorDetail[] {
  const schema = schemaProblems(channel, target, base);
  if (schema.length > 0) return schema;
  const t = target as ChannelTarget;
  const errors: ErrorDetail[] = [];
  for (const f of fieldsOf(channel)) {
    const value = t[f.name];
    if (value === undefined) continue;
    const flags = flagsOf(f.schema);
    if (flags.url) {
      const problem = outboundUrlProblem(value, allow);
      if (problem) errors.push({ path: `${base}/${f.name}`, message: problem });
    }
    if (flags.secret && flags.secretMin !== undefined && value !== MASKED_SECRET && value.length < flags.secretMin) {
      errors.push({ path: `${base}/${f.name}`, message: `must be ${flags.secretMin}–${f.schema.maxLength ?? 256} characters (or ${MASKED_SECRET} to keep the stored one)` });
    }
  }
  return errors;
}

/**
 * A delivery's target (as its channel described it) as shown to `viewer` (a member's id; null for an API key).
 * A person's own target (their contact method: a webhook URL, an ntfy server and topic) is a credential
 * of theirs when its channel addresses it by URL: anyone else sees its host only, as chat webhooks are shown.
 */
export function targetShownTo(channel: Pick<Channel, 'target'> | undefined, row: { target: string; recipient_id: string | null }, viewer: string | null): string {
  if (row.recipient_id === null || row.recipient_id === viewer) return row.target;
  return channel === undefined || fieldsOf(channel).some((f) => flagsOf(f.schema).url === true) ? hostOnly(row.target) : row.target;
}

/** A target as responses show it: every secret field masked. */
export function maskTarget(channel: Pick<Channel, 'target'>, target: ChannelTarget): ChannelTarget {
  const out = { ...target };
  for (const name of secretNames(channel)) if (out[name] !== undefined) out[name] = MASKED_SECRET;
  return out;
}

export type Kept = { ok: true; target: ChannelTarget } | { ok: false; errors: ErrorDetail[] };

/**
 * A target whose secrets were sent as the mask, with the stored secrets put back: from the first stored
 * target of the same channel whose other fields are the same (a secret belongs to what it unlocks), or, for
 * the edit of one record's own target (`own`), from that stored target. Without one the mask is refused, so
 * the mask itself is never stored as a secret.
 */
export function keepSecrets(channel: Pick<Channel, 'target'>, target: ChannelTarget, stored: readonly ChannelTarget[], base = '/target', own = false): Kept {
  const secrets = secretNames(channel);
  const masked = secrets.filter((n) => target[n] === MASKED_SECRET);
  if (masked.length === 0) return { ok: true, target };
  const same = (s: ChannelTarget) => own || Object.keys({ ...s, ...target }).every((k) => secrets.includes(k) || s[k] === target[k]);
  const match = stored.find((s) => same(s) && masked.every((n) => s[n] !== undefined));
  if (!match) {
    return { ok: false, errors: masked.map((n) => ({ path: `${base}/${n}`, message: `is the mask ${MASKED_SECRET}, but there is no stored one to keep: send the secret` })) };
  }
  return { ok: true, target: { ...target, ...Object.fromEntries(masked.map((n) => [n, match[n] as string])) } };
}

/** The response schema of a channel's targets: the same fields, secrets only ever the mask. */
export function maskedSchema(channel: Pick<Channel, 'target'>): TObject {
  const required = new Set((channel.target.required as string[] | undefined) ?? []);
  const properties = Object.fromEntries(fieldsOf(channel).map((f) => {
    const s = flagsOf(f.schema).secret ? Type.Unsafe<string>({ type: 'string', enum: [MASKED_SECRET] }) : Type.String({ ...(f.schema.title && { title: f.schema.title }) });
    return [f.name, required.has(f.name) ? s : Type.Optional(s)];
  }));
  return Type.Object(properties, { additionalProperties: false });
}

/** A form field of the channel catalogue (`GET /channels`), as the dashboard draws it. */
export interface CatalogueField {
  name: string;
  label: string;
  hint: string;
  required: boolean;
  secret: boolean;
  url: boolean;
  maxLength: number | null;
  pattern: string | null;
  format: string | null;
}

export function catalogueFields(channel: Pick<Channel, 'target'>): CatalogueField[] {
  return fieldsOf(channel).map((f) => {
    const flags = flagsOf(f.schema);
    return {
      name: f.name,
      label: f.schema.title ?? f.name,
      hint: f.schema.description ?? '',
      required: f.required,
      secret: flags.secret === true,
      url: flags.url === true,
      maxLength: f.schema.maxLength ?? null,
      pattern: f.schema.pattern ?? null,
      format: f.schema.format ?? null,
    };
  });
}

/** `email {to}; webhook {url, secret?}`: the target shapes, for descriptions in the OpenAPI document. */
export const shapesAbout = (channels: ReadonlyArray<[string, Pick<Channel, 'target'>]>): string =>
  channels.map(([type, c]) => `\`${type}\` \`{${fieldsOf(c).map((f) => `${f.name}${f.required ? '' : '?'}`).join(', ')}}\``).join(', ');
