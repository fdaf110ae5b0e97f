import { AppError } from '../../../lib/errors.ts';
import { MAX_REPEAT } from '../../escalations/escalations-schemas.ts';
import { isValidTimezone } from '../../suppression/recurrence-fns.ts';
import { minutesOf, nearestPreset, noChannel } from '../imports-fns.ts';
import { emptyModel, type Skip, type SourceModel, type SourcePolicy, type SourceTarget, type SourceUser } from '../imports-model.ts';
import { MAX_PAGES, type VendorHttp } from '../vendor-http.ts';
import { oncallShift, type ShiftOut } from './grafana-oncall-shifts.ts';
import { arr, num, obj, str, strs, type ImportSource, type Json } from './source.ts';

/**
 * Grafana OnCall's public API v1 as grafana/oncall `docs/sources/oncall-api-reference/` documents it: the
 * `Authorization: <token>` header, lists paged by `next` links (`_index.md`), and the objects of `users.md`,
 * `personal_notification_rules.md`, `schedules.md`, `on_call_shifts.md`, `escalation_chains.md`,
 * `escalation_policies.md`, `integrations.md` and `routes.md`. The `repeat_escalation` step and its five
 * repeats come from `engine/apps/alerts/models/escalation_policy.py` (PUBLIC_STEP_CHOICES_MAP, MAX_TIMES_REPEAT).
 */

async function list(http: VendorHttp, path: string, query: Record<string, string> = {}): Promise<Json[]> {
  const out: Json[] = [];
  let next: string | null = path;
  for (let page = 0; next !== null && page < MAX_PAGES; page++) {
    const body = obj((await http.get(next, page === 0 ? query : {})).body);
    out.push(...arr(body.results));
    next = str(body.next);
  }
  if (next !== null) throw new AppError('SERVICE_UNAVAILABLE', `Grafana OnCall kept linking a next page after ${MAX_PAGES} pages of ${path}`);
  return out;
}

const MAX_REPEATS_IN_ONCALL = 5;

/** A person's default (not "important") personal rules: email steps with the waits before them. */
function person(u: Json, rules: Json[], skips: Skip[]): SourceUser {
  const id = str(u.id) ?? '';
  const email = str(u.email) ?? '';
  const name = str(u.username) ?? email;
  const contact = { sourceId: `${id}/email`, type: 'email', label: `Email ${email}`, target: { to: email } };
  const order: NonNullable<SourceUser['rules']> = [];
  let after = 0;
  for (const r of [...rules].sort((a, b) => (num(a.position) ?? 0) - (num(b.position) ?? 0))) {
    const where = { kind: 'notification_rule', sourceId: str(r.id) ?? '', name: `${name}: ${str(r.type)}` };
    const type = str(r.type) ?? '';
    if (r.important === true) skips.push({ ...where, reason: 'an "important" rule: AlertFlow has one list of rules per person; the default list is imported' });
    else if (type === 'wait') after += minutesOf(num(r.duration) ?? 0).minutes;
    else if (type === 'notify_by_email') order.push({ contactSourceId: contact.sourceId, afterMinutes: after });
    else skips.push({ ...where, reason: noChannel(`notifies by ${type.replace('notify_by_', '').replaceAll('_', ' ')}`) });
  }
  return { sourceId: id, email, name, contacts: order.length > 0 && email ? [contact] : [], rules: order.length > 0 ? order : null };
}

/** An escalation chain: notify steps until a wait make one AlertFlow step; the wait is that step's delay. */
function chain(c: Json, policies: Json[], scheduleIds: Set<string>, skips: Skip[]): SourcePolicy {
  const id = str(c.id) ?? '';
  const name = str(c.name) ?? id;
  const steps: SourcePolicy['steps'] = [];
  let open = false;
  let repeat = 0;
  const add = (targets: SourceTarget[]) => {
    const last = steps[steps.length - 1];
    if (open && last) last.targets.push(...targets);
    else steps.push({ delayMinutes: 0, targets });
    open = true;
  };
  const ordered = [...policies].sort((a, b) => (num(a.position) ?? 0) - (num(b.position) ?? 0));
  for (const [i, p] of ordered.entries()) {
    const where = { kind: 'escalation_step', sourceId: str(p.id) ?? `${id}/${i}`, name: `${name}: step ${i + 1} (${str(p.type)})` };
    const type = str(p.type) ?? '';
    if (repeat > 0) {
      skips.push({ ...where, reason: 'after "repeat escalation": never reached' });
      continue;
    }
    if (p.important === true) skips.push({ ...where, reason: 'notifies by the "important" rules in OnCall: AlertFlow has one list per person' });
    if (type === 'wait') {
      const m = minutesOf(num(p.duration) ?? 0);
      if (!m.exact) skips.push({ ...where, reason: `waits ${num(p.duration)} seconds: rounded up to ${m.minutes} minutes` });
      const last = steps[steps.length - 1];
      if (last) last.delayMinutes += m.minutes;
      else skips.push({ ...where, reason: 'the chain starts with a wait: AlertFlow\'s first step pages at once' });
      open = false;
    } else if (type === 'notify_persons') add(strs(p.persons_to_notify).map((u) => ({ type: 'user', sourceId: u })));
    else if (type === 'notify_on_call_from_schedule') {
      const s = str(p.notify_on_call_from_schedule) ?? '';
      if (scheduleIds.has(s)) add([{ type: 'schedule', sourceId: s }]);
      else {
        skips.push({ ...where, reason: `schedule ${s} is not imported` });
        add([]);
      }
    } else if (type === 'repeat_escalation') repeat = MAX_REPEATS_IN_ONCALL;
    else {
      skips.push({ ...where, reason: type === 'notify_person_next_each_time' ? 'notifies the next person each time (round robin): AlertFlow pages every target of a step' : `a "${type}" step: AlertFlow escalation steps page people and schedules` });
      add([]);
    }
  }
  return { sourceId: id, name, steps, repeat: Math.min(repeat, MAX_REPEAT) };
}

/** Integration types that are no sender AlertFlow can take over (grafana/oncall engine/config_integrations/). */
const NOT_SENDERS: Record<string, string> = {
  inbound_email: 'takes alerts by email: AlertFlow takes alerts over HTTP only',
  direct_paging: 'pages people by hand: in AlertFlow, open an incident and assign it',
  maintenance: 'a maintenance integration: use AlertFlow\'s suppression windows',
};

export const grafanaOncall: ImportSource = {
  system: 'grafana-oncall',
  vendor: 'Grafana OnCall',
  headers: (token) => ({ authorization: token }),
  senderFields: ['ingestUrl'],
  needs: 'read access to users, schedules, escalation chains and integrations (an OnCall API token, or a service account token)',
  async read(http, now): Promise<SourceModel> {
    const model = emptyModel();
    const rules = await list(http, '/api/v1/personal_notification_rules/');
    for (const u of await list(http, '/api/v1/users/')) model.users.push(person(u, rules.filter((r) => str(r.user_id) === str(u.id)), model.skips));

    const scheduleIds = new Set<string>();
    for (const s of await list(http, '/api/v1/schedules/')) {
      const id = str(s.id) ?? '';
      const name = str(s.name) ?? id;
      const where = { kind: 'schedule', sourceId: id, name };
      if (str(s.type) === 'ical') {
        model.skips.push({ ...where, reason: 'an iCal schedule: its shifts live in an outside calendar, which the import does not read' });
        continue;
      }
      if (str(s.ical_url_overrides)) model.skips.push({ ...where, reason: 'its overrides come from an iCal feed, which the import does not read' });
      const shifts = await list(http, '/api/v1/on_call_shifts/', { schedule_id: id });
      // One time zone per AlertFlow schedule: the one most of its shifts keep.
      const zoneOf = (sh: Json) => str(sh.time_zone) ?? str(s.time_zone) ?? 'UTC';
      const counts = new Map<string, number>();
      for (const sh of shifts) counts.set(zoneOf(sh), (counts.get(zoneOf(sh)) ?? 0) + 1);
      const zone = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? str(s.time_zone) ?? 'UTC';
      if (!isValidTimezone(zone)) {
        model.skips.push({ ...where, reason: `time zone "${zone}" is not an IANA zone name` });
        continue;
      }
      const out = shifts.flatMap((sh) => {
        if (zoneOf(sh) === zone) return [oncallShift(sh, zone, now, model.skips)];
        model.skips.push({ kind: 'oncall_shift', sourceId: str(sh.id) ?? '', name: str(sh.name) ?? '', reason: `keeps its own time zone ${zoneOf(sh)}, unlike the schedule's other shifts (${zone}): an AlertFlow schedule has one time zone` });
        return [];
      }).filter((x): x is ShiftOut => x !== null);
      // Higher levels win in OnCall; later layers win in AlertFlow.
      out.sort((a, b) => a.level - b.level);
      model.schedules.push({ sourceId: id, name, description: null, timezone: zone, layers: out.flatMap((o) => o.layers), overrides: out.flatMap((o) => o.overrides) });
      scheduleIds.add(id);
    }

    const steps = await list(http, '/api/v1/escalation_policies/');
    for (const c of await list(http, '/api/v1/escalation_chains/')) {
      model.policies.push(chain(c, steps.filter((p) => str(p.escalation_chain_id) === str(c.id)), scheduleIds, model.skips));
    }

    const routes = await list(http, '/api/v1/routes/');
    for (const i of await list(http, '/api/v1/integrations/')) {
      const id = str(i.id) ?? '';
      const type = str(i.type) ?? '';
      const name = str(i.name) ?? id;
      const where = { kind: 'integration', sourceId: id, name };
      if (NOT_SENDERS[type]) {
        model.skips.push({ ...where, reason: NOT_SENDERS[type] as string });
        continue;
      }
      const preset = nearestPreset(type);
      if (preset === 'standard' && type !== 'webhook') model.skips.push({ ...where, reason: `no AlertFlow preset reads what a ${type} integration takes: made with the standard payload; give it a field mapping` });
      model.integrations.push({ sourceId: id, name: name.slice(0, 200), preset, enabled: true });
      for (const r of routes.filter((x) => str(x.integration_id) === id && x.is_the_last_route !== true)) {
        model.skips.push({ kind: 'route', sourceId: str(r.id) ?? '', name: `${name}: ${str(r.routing_regex)}`, reason: `routes by ${str(r.routing_type) === 'jinja2' ? 'a Jinja2 template' : 'a regular expression'} over the whole alert payload: AlertFlow workflows look at an alert's fields, so these alerts follow the default route` });
      }
      const chainId = str(obj(i.default_route).escalation_chain_id);
      if (chainId) model.routes.push({ sourceId: str(obj(i.default_route).id) ?? id, name: `${name} (default route)`, description: `Imported from the default route of the Grafana OnCall integration ${name}.`, integrations: [id], conditions: null, policy: chainId });
      else model.skips.push({ kind: 'route', sourceId: str(obj(i.default_route).id) ?? id, name: `${name} (default route)`, reason: 'has no escalation chain, so it pages nobody' });
    }
    return model;
  },
};
