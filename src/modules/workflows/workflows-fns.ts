import { CONDITION_FIELDS, type ConditionSubject } from '../../lib/conditions.ts';
import type { ErrorDetail } from '../../lib/errors.ts';

/**
 * Templates of workflow text fields (incident titles, email subjects, label values) and field paths (the
 * `groupBy` of create_incident). Pure: no I/O, no code execution, and only own properties of known fields
 * are ever read, so a placeholder can reach neither a prototype nor anything not listed here.
 *
 * Placeholders: `{{alert.<field>}}` (`id` and the condition fields: title, severity, status, source,
 * description, fingerprint, clientId, integrationId), `{{alert.labels.<key>}}`, `{{alert.annotations.<key>}}`,
 * `{{incident.number}}`, `{{incident.title}}`; spaces inside the braces are allowed. A placeholder with no
 * value (an absent label, a null field, no incident yet) renders empty, and so would an unknown one, which
 * saving a workflow refuses.
 */

/** What a template can read of an alert: the condition subject, plus its id once stored. */
export type TemplateAlert = ConditionSubject & { id?: string | null };

export interface TemplateContext {
  alert: TemplateAlert;
  /** The incident of the workflow's create_incident, once it ran. */
  incident?: { number?: number | string | null; title?: string | null } | null;
}

export const ALERT_TEMPLATE_FIELDS = ['id', ...CONDITION_FIELDS] as const;
const INCIDENT_FIELDS = ['number', 'title'] as const;

/** `{{…}}` with no brace inside: linear to scan, and a lone `{{` stays literal text. */
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

export const DEFAULT_INCIDENT_TITLE = '{{alert.title}}';
/** Empty: the notifications module's own subject, `[SEVERITY] title` (`[RESOLVED] …`, `[ACKNOWLEDGED] …`). */
export const DEFAULT_EMAIL_SUBJECT = '';

type FieldRef = { kind: 'field'; name: string } | { kind: 'labels' | 'annotations'; key: string };

/** An alert field path as conditions name them: a known field, `labels.<key>` or `annotations.<key>`. */
export function parseFieldPath(path: string, fields: readonly string[] = CONDITION_FIELDS): FieldRef | null {
  if (fields.includes(path)) return { kind: 'field', name: path };
  for (const kind of ['labels', 'annotations'] as const) {
    if (path.startsWith(`${kind}.`) && path.length > kind.length + 1) return { kind, key: path.slice(kind.length + 1) };
  }
  return null;
}

const own = (map: object | null | undefined, key: string): unknown =>
  map !== null && map !== undefined && Object.hasOwn(map, key) ? (map as Record<string, unknown>)[key] : undefined;

const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '');

/** The value of a field path on an alert, or undefined when absent (null fields, missing labels). */
export function readField(alert: TemplateAlert, path: string, fields: readonly string[] = CONDITION_FIELDS): string | undefined {
  const ref = parseFieldPath(path, fields);
  if (ref === null) return undefined;
  const v = ref.kind === 'field' ? own(alert, ref.name) : own(own(alert, ref.kind) as object | undefined, ref.key);
  return v === null || v === undefined ? undefined : text(v);
}

function resolve(expression: string, ctx: TemplateContext): string {
  const dot = expression.indexOf('.');
  if (dot < 0) return '';
  const root = expression.slice(0, dot);
  const rest = expression.slice(dot + 1);
  if (root === 'alert') return readField(ctx.alert, rest, ALERT_TEMPLATE_FIELDS) ?? '';
  if (root === 'incident' && (INCIDENT_FIELDS as readonly string[]).includes(rest)) return text(own(ctx.incident, rest));
  return '';
}

/** The template with each placeholder replaced by its value; unknown or empty ones render as ''. */
export const renderTemplate = (template: string, ctx: TemplateContext): string =>
  template.replace(PLACEHOLDER, (_, inner: string) => resolve(inner.trim(), ctx));

/** Problems of a template's placeholders, under `path`: each must name a known root and field. */
export function templateErrors(template: string, path: string): ErrorDetail[] {
  const errors: ErrorDetail[] = [];
  for (const m of template.matchAll(PLACEHOLDER)) {
    const expression = (m[1] as string).trim();
    const dot = expression.indexOf('.');
    const root = dot < 0 ? expression : expression.slice(0, dot);
    const rest = dot < 0 ? '' : expression.slice(dot + 1);
    if (root !== 'alert' && root !== 'incident') {
      errors.push({ path, message: `has an unknown placeholder {{${expression}}}: placeholders start with alert. or incident.` });
    } else if (root === 'alert' && parseFieldPath(rest, ALERT_TEMPLATE_FIELDS) === null) {
      errors.push({ path, message: `has an unknown placeholder {{${expression}}}: use alert.<${ALERT_TEMPLATE_FIELDS.join('|')}>, alert.labels.<key> or alert.annotations.<key>` });
    } else if (root === 'incident' && !(INCIDENT_FIELDS as readonly string[]).includes(rest)) {
      errors.push({ path, message: `has an unknown placeholder {{${expression}}}: use incident.number or incident.title` });
    }
  }
  return errors;
}
