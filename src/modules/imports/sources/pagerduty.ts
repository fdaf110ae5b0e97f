import { AppError } from '../../../lib/errors.ts';
import { isValidTimezone } from '../../suppression/recurrence-fns.ts';
import { MAX_REPEAT } from '../../escalations/escalations-schemas.ts';
import { isoMinute, nearestPreset, noChannel, restrictionsOf, rotationOfHours, startLayerAt, type Window } from '../imports-fns.ts';
import { emptyModel, type Skip, type SourceLayer, type SourceModel, type SourceSchedule, type SourceTarget, type SourceUser } from '../imports-model.ts';
import { MAX_PAGES, type VendorHttp } from '../vendor-http.ts';
import { arr, num, obj, str, type ImportSource, type Json } from './source.ts';

/**
 * PagerDuty's REST API v2, as published in PagerDuty/api-schema `reference/REST/openapiv3.json`: offset paging
 * (`limit`, `offset`, `more`), `Authorization: Token token=…`, the versioned `Accept` header, the `User`,
 * `ContactMethod`, `NotificationRule`, `Schedule`/`ScheduleLayer`/`Restriction`, `Override`,
 * `EscalationPolicy`/`EscalationRule`, `Service` (with `include[]=integrations`: full `Integration` objects) and
 * event orchestration list shapes.
 */

const PAGE = 100;
/** How far ahead overrides are read (PagerDuty wants both ends of the range). */
const OVERRIDES_AHEAD_MS = 366 * 86_400_000;

async function list(http: VendorHttp, path: string, key: string, query: Record<string, string> = {}): Promise<Json[]> {
  const out: Json[] = [];
  let offset = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const body = obj((await http.get(path, { ...query, limit: PAGE, offset })).body);
    const items = arr(body[key]);
    out.push(...items);
    if (body.more !== true || items.length === 0) return out;
    offset += items.length;
  }
  throw new AppError('SERVICE_UNAVAILABLE', `PagerDuty kept saying there is more after ${MAX_PAGES} pages of ${path}`);
}

const idOf = (v: unknown): string => str(obj(v).id) ?? '';

function user(u: Json, methods: Json[], rules: Json[], skips: Skip[]): SourceUser {
  const id = idOf(u);
  const name = str(u.name) ?? str(u.email) ?? id;
  const contacts: SourceUser['contacts'] = [];
  for (const m of methods) {
    const type = str(m.type) ?? '';
    const label = str(m.label) ?? type;
    if (type === 'email_contact_method' && str(m.address)) {
      contacts.push({ sourceId: idOf(m), type: 'email', label, target: { to: str(m.address) as string } });
    } else {
      skips.push({ kind: 'contact_method', sourceId: idOf(m), name: `${name}: ${label}`, reason: noChannel(`a ${type.replace(/_contact_method$/, '').replace('push_notification', 'PagerDuty app')} contact method`) });
    }
  }
  const kept = new Set(contacts.map((c) => c.sourceId));
  const ordered: NonNullable<SourceUser['rules']> = [];
  for (const r of rules) {
    const where = { kind: 'notification_rule', sourceId: idOf(r), name: `${name}: after ${num(r.start_delay_in_minutes) ?? 0} min` };
    if (str(r.urgency) === 'low') skips.push({ ...where, reason: 'a low-urgency rule: AlertFlow has one list of rules per person; the high-urgency rules are the ones imported' });
    else if (!kept.has(idOf(r.contact_method))) skips.push({ ...where, reason: 'pages by a contact method that is not imported' });
    else ordered.push({ contactSourceId: idOf(r.contact_method), afterMinutes: num(r.start_delay_in_minutes) ?? 0 });
  }
  return { sourceId: id, email: str(u.email) ?? '', name, contacts, rules: ordered.length > 0 ? ordered : null };
}

/** `HH:mm:ss` as minutes since midnight, and whether it fell on a whole minute. */
function timeOfDay(text: string): { minute: number; exact: boolean } {
  const [h, m, s] = text.split(':').map(Number);
  return { minute: (h ?? 0) * 60 + (m ?? 0), exact: !s };
}

function layer(s: Json, l: Json, index: number, zone: string, now: number, skips: Skip[]): SourceLayer | null {
  const where = { kind: 'schedule_layer', sourceId: `${idOf(s)}/${str(l.id) ?? index}`, name: `${str(s.name)}: ${str(l.name) ?? `layer ${index + 1}`}` };
  const end = str(l.end) ? Date.parse(str(l.end) as string) : null;
  if (end !== null && end <= now) {
    skips.push({ ...where, reason: `ended ${isoMinute(end)} UTC (an earlier version of the layer); only layers still running are imported` });
    return null;
  }
  const turn = num(l.rotation_turn_length_seconds) ?? 0;
  if (turn <= 0 || turn % 3600 !== 0) {
    skips.push({ ...where, reason: `turns of ${turn} seconds: AlertFlow turns last whole hours` });
    return null;
  }
  const windows: Window[] = [];
  for (const r of arr(l.restrictions)) {
    const t = timeOfDay(str(r.start_time_of_day) ?? '00:00:00');
    const seconds = num(r.duration_seconds) ?? 0;
    if (!t.exact || seconds % 60 !== 0) skips.push({ ...where, reason: 'a restriction with seconds in it: AlertFlow restrictions are to the minute, so it starts or ends up to a minute apart' });
    const minutes = Math.round(seconds / 60);
    if (str(r.type) === 'weekly_restriction') windows.push({ day: (num(r.start_day_of_week) ?? 1) - 1, startMinute: t.minute, minutes });
    else for (let day = 0; day < 7; day++) windows.push({ day, startMinute: t.minute, minutes });
  }
  const restrictions = restrictionsOf(windows);
  if (restrictions === null) {
    skips.push({ ...where, reason: 'its restrictions would need more than AlertFlow\'s 14 per layer' });
    return null;
  }
  const base: SourceLayer = {
    name: (str(l.name) ?? `Layer ${index + 1}`).slice(0, 100),
    startsAt: Date.parse(str(l.rotation_virtual_start) ?? str(l.start) ?? ''),
    ...rotationOfHours(turn / 3600),
    users: arr(l.users).map((u) => idOf(u.user)),
    restrictions,
  };
  // Before `start` PagerDuty's layer has nobody; only a start still to come matters.
  const start = Date.parse(str(l.start) ?? '');
  const started = start > now ? startLayerAt(base, zone, start) : { layer: base, exact: true };
  if (!started.exact) skips.push({ ...where, reason: `starts ${isoMinute(start)} UTC, inside a turn: AlertFlow starts it at that turn's end` });
  if (end !== null) skips.push({ ...where, reason: `ends ${isoMinute(end)} UTC: AlertFlow layers have no end, so it goes on after that` });
  return started.layer;
}

function schedule(s: Json, overrides: Json[], now: number, skips: Skip[]): SourceSchedule | null {
  const zone = str(s.time_zone) ?? 'UTC';
  const where = { kind: 'schedule', sourceId: idOf(s), name: str(s.name) ?? idOf(s) };
  if (!isValidTimezone(zone)) {
    skips.push({ ...where, reason: `time zone "${zone}" is not an IANA zone name` });
    return null;
  }
  // GET lists the top layer first (the reverse of the order POST takes, as PagerDuty/public-support-scripts'
  // schedule_layer_reorganizer notes); AlertFlow wants the lowest first.
  const layers = arr(s.schedule_layers).reverse()
    .map((l, i) => layer(s, l, i, zone, now, skips))
    .filter((l): l is SourceLayer => l !== null);
  return {
    sourceId: idOf(s),
    name: where.name,
    description: str(s.description),
    timezone: zone,
    layers,
    overrides: overrides
      .map((o) => ({ user: idOf(o.user), startsAt: Date.parse(str(o.start) ?? ''), endsAt: Date.parse(str(o.end) ?? '') }))
      .filter((o) => o.endsAt > now),
  };
}

function policy(p: Json, skips: Skip[]) {
  const name = str(p.name) ?? idOf(p);
  const steps = arr(p.escalation_rules).map((r, i) => {
    const where = { kind: 'escalation_rule', sourceId: `${idOf(p)}/${str(r.id) ?? i}`, name: `${name}: rule ${i + 1}` };
    if (str(r.escalation_rule_assignment_strategy) === 'round_robin') {
      skips.push({ ...where, reason: 'round robin assignment: AlertFlow pages every target of a step' });
    }
    const targets: SourceTarget[] = [];
    for (const t of arr(r.targets)) {
      const type = str(t.type) ?? '';
      if (type === 'user' || type === 'user_reference') targets.push({ type: 'user', sourceId: idOf(t) });
      else if (type === 'schedule' || type === 'schedule_reference') targets.push({ type: 'schedule', sourceId: idOf(t) });
      else skips.push({ ...where, sourceId: `${where.sourceId}/${idOf(t)}`, reason: `a ${type} target: not imported` });
    }
    return { delayMinutes: num(r.escalation_delay_in_minutes) ?? 0, targets };
  });
  const loops = num(p.num_loops) ?? 0;
  if (loops > MAX_REPEAT) skips.push({ kind: 'escalation_policy', sourceId: idOf(p), name, reason: `repeats ${loops} times: AlertFlow repeats a policy at most ${MAX_REPEAT} times` });
  return { sourceId: idOf(p), name, steps, repeat: Math.min(loops, MAX_REPEAT) };
}

/** Service settings AlertFlow has no place for, named when set. */
function unkeptSettings(s: Json): string[] {
  const out: string[] = [];
  if (num(s.auto_resolve_timeout)) out.push('auto-resolve timeout');
  if (num(s.acknowledgement_timeout)) out.push('acknowledgement timeout');
  if (str(obj(s.incident_urgency_rule).type) === 'use_support_hours') out.push('urgency by support hours');
  if (arr(s.scheduled_actions).length > 0) out.push('scheduled actions');
  return out;
}

function services(model: SourceModel, list: Json[]): void {
  for (const s of list) {
    const name = str(s.name) ?? idOf(s);
    const kept: string[] = [];
    for (const i of arr(s.integrations)) {
      const type = str(i.type) ?? '';
      const label = str(i.name) ?? str(i.summary) ?? type;
      if (type.startsWith('generic_email_inbound_integration')) {
        model.skips.push({ kind: 'integration', sourceId: idOf(i), name: `${name}: ${label}`, reason: 'an email integration: AlertFlow takes alerts over HTTP only' });
        continue;
      }
      model.integrations.push({
        sourceId: idOf(i),
        name: `${name}: ${label}`.slice(0, 200),
        preset: nearestPreset(`${str(obj(i.vendor).summary) ?? ''} ${label} ${type}`),
        enabled: str(s.status) !== 'disabled',
      });
      kept.push(idOf(i));
    }
    const settings = unkeptSettings(s);
    if (settings.length > 0) model.skips.push({ kind: 'service', sourceId: idOf(s), name, reason: `not carried over: ${settings.join(', ')}` });
    if (kept.length === 0) model.skips.push({ kind: 'service', sourceId: idOf(s), name, reason: 'no integration AlertFlow can take over, so nothing to route' });
    else if (idOf(s.escalation_policy) === '') model.skips.push({ kind: 'service', sourceId: idOf(s), name, reason: 'has no escalation policy, so its alerts page nobody: no workflow is made' });
    else {
      model.routes.push({ sourceId: idOf(s), name, description: `Imported from PagerDuty service ${name}.`, integrations: kept, conditions: null, policy: idOf(s.escalation_policy) });
    }
  }
}

export const pagerduty: ImportSource = {
  system: 'pagerduty',
  vendor: 'PagerDuty',
  headers: (token) => ({ authorization: `Token token=${token}`, accept: 'application/vnd.pagerduty+json;version=2' }),
  // Senders already speaking the Events API keep it: only the URL and the routing key change.
  senderFields: ['pagerdutyUrl', 'routingKey', 'ingestUrl'],
  needs: 'read access to users, schedules, escalation policies, services and event orchestrations (a read-only REST API key will do)',
  async read(http, now) {
    const model = emptyModel();
    for (const u of await list(http, '/users', 'users')) {
      const methods = arr(obj((await http.get(`/users/${encodeURIComponent(idOf(u))}/contact_methods`)).body).contact_methods);
      const rules = arr(obj((await http.get(`/users/${encodeURIComponent(idOf(u))}/notification_rules`)).body).notification_rules);
      model.users.push(user(u, methods, rules, model.skips));
    }
    for (const listed of await list(http, '/schedules', 'schedules')) {
      const id = encodeURIComponent(idOf(listed));
      const s = obj(obj((await http.get(`/schedules/${id}`)).body).schedule);
      const range = { since: new Date(now).toISOString(), until: new Date(now + OVERRIDES_AHEAD_MS).toISOString() };
      const overrides = arr(obj((await http.get(`/schedules/${id}/overrides`, range)).body).overrides);
      const mapped = schedule(s, overrides, now, model.skips);
      if (mapped) model.schedules.push(mapped);
    }
    model.policies = (await list(http, '/escalation_policies', 'escalation_policies')).map((p) => policy(p, model.skips));
    services(model, await list(http, '/services', 'services', { 'include[]': 'integrations' }));
    try {
      for (const o of await list(http, '/event_orchestrations', 'orchestrations')) {
        model.skips.push({ kind: 'event_orchestration', sourceId: idOf(o), name: str(o.name) ?? idOf(o), reason: 'routes events by their content with PagerDuty\'s own rule language: not imported; rebuild its rules as AlertFlow workflows' });
      }
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'UNAUTHORIZED')) throw err;
      model.skips.push({ kind: 'event_orchestration', sourceId: '*', name: 'Event orchestrations', reason: 'the token may not read them, so any routing by content there is not known to the import' });
    }
    return model;
  },
};
