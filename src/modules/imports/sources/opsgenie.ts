import { AppError } from '../../../lib/errors.ts';
import { nearestPreset, noChannel } from '../imports-fns.ts';
import { emptyModel, type Skip, type SourceModel, type SourceTarget, type SourceUser } from '../imports-model.ts';
import { MAX_PAGES, type VendorHttp } from '../vendor-http.ts';
import { durationMinutes, opsgeniePolicy, opsgenieSchedule } from './opsgenie-rota.ts';
import { teamRoutes } from './opsgenie-routing.ts';
import { arr, obj, str, type ImportSource, type Json } from './source.ts';

/**
 * Opsgenie's REST API v2 as opsgenie/opsgenie-oas publishes it (swagger.yaml with paths/, definitions/,
 * responses/): `Authorization: GenieKey …`, answers `{data, took, requestId}`, the user list paged by
 * `limit`/`offset` with `paging.next` links, GET /v2/users, /v2/users/{id}/contacts, /v2/users/{id}/notification-rules
 * (and /{ruleId} for its steps), /v2/schedules?expand=rotation, /v2/schedules/{id}/overrides, /v2/escalations,
 * /v2/integrations, /v2/teams and /v2/teams/{id}/routing-rules.
 */

/** Integration types built on `EmailBasedIncomingFeature` in `definitions/integration.yaml`: alerts by email. */
const EMAIL_TYPES = new Set(['AtlassianBambooEmail', 'AutoTaskEmail', 'AutotaskAEMEmail', 'Email', 'LabTechEmail', 'MonitisEmail', 'NeustarEmail', 'OEMEmail',
  'Pingdom', 'RedGateSqlMonitorEmail', 'RingCentralEmail', 'UptimeRobotEmail', 'UptrendsEmail', 'ZyrionEmail']);

const data = async (http: VendorHttp, path: string, query: Record<string, string> = {}): Promise<Json[]> => arr(obj((await http.get(path, query)).body).data);
const enc = encodeURIComponent;

async function users(http: VendorHttp): Promise<Json[]> {
  const out: Json[] = [];
  let next: string | null = '/v2/users';
  for (let page = 0; next !== null && page < MAX_PAGES; page++) {
    const body = obj((await http.get(next, page === 0 ? { limit: 100, offset: 0 } : {})).body);
    const items = arr(body.data);
    out.push(...items);
    next = items.length > 0 ? str(obj(body.paging).next) : null;
  }
  if (next !== null) throw new AppError('SERVICE_UNAVAILABLE', `Opsgenie kept linking a next page after ${MAX_PAGES} pages of users`);
  return out;
}

/** A person's email contacts, and the one unconditional "new alert" rule of theirs as their paging order. */
async function person(http: VendorHttp, u: Json, skips: Skip[]): Promise<SourceUser> {
  const id = str(u.id) ?? '';
  const name = str(u.fullName) ?? str(u.username) ?? id;
  const contacts: SourceUser['contacts'] = [];
  for (const c of await data(http, `/v2/users/${enc(id)}/contacts`)) {
    const method = str(c.method) ?? '';
    const where = { kind: 'contact_method', sourceId: str(c.id) ?? '', name: `${name}: ${method} ${str(c.to) ?? ''}` };
    if (obj(c.status).enabled === false) skips.push({ ...where, reason: 'disabled in Opsgenie' });
    else if (method === 'email' && str(c.to)) contacts.push({ sourceId: where.sourceId, type: 'email', label: `Email ${str(c.to)}`, target: { to: str(c.to) as string } });
    else skips.push({ ...where, reason: noChannel(`an Opsgenie ${method} contact`) });
  }
  let rules: SourceUser['rules'] = null;
  for (const meta of await data(http, `/v2/users/${enc(id)}/notification-rules`)) {
    const where = { kind: 'notification_rule', sourceId: str(meta.id) ?? '', name: `${name}: ${str(meta.name) ?? str(meta.actionType)}` };
    if (str(meta.actionType) !== 'create-alert') {
      skips.push({ ...where, reason: `notifies on "${str(meta.actionType)}": AlertFlow's rules page for new alerts; see schedule handoff notices for shift starts` });
      continue;
    }
    if (meta.enabled === false) {
      skips.push({ ...where, reason: 'disabled in Opsgenie' });
      continue;
    }
    const rule = obj(obj((await http.get(`/v2/users/${enc(id)}/notification-rules/${enc(where.sourceId)}`)).body).data);
    if (rules !== null || str(obj(rule.criteria).type) !== 'match-all' || rule.timeRestriction) {
      skips.push({ ...where, reason: rules !== null ? 'a further "new alert" rule: AlertFlow has one list of rules per person, the first unconditional one is imported' : 'applies to some alerts or times only: AlertFlow rules are unconditional' });
      continue;
    }
    if (obj(rule.repeat).enabled === true) skips.push({ ...where, reason: 'repeats its steps: AlertFlow rules page once (the escalation policy repeats)' });
    rules = [];
    for (const step of arr(rule.steps)) {
      const contact = obj(step.contact);
      if (step.enabled === false) {
        skips.push({ ...where, sourceId: `${where.sourceId}/${str(step.id)}`, reason: `its step by ${str(contact.method)} is disabled in Opsgenie` });
        continue;
      }
      const found = contacts.find((c) => c.target.to === str(contact.to) && str(contact.method) === 'email');
      if (found) rules.push({ contactSourceId: found.sourceId, afterMinutes: durationMinutes(obj(step.sendAfter)).minutes });
      else skips.push({ ...where, sourceId: `${where.sourceId}/${str(step.id)}`, reason: `its step by ${str(contact.method)} pages by a contact method that is not imported` });
    }
  }
  return { sourceId: id, email: str(u.username) ?? '', name, contacts, rules };
}

export const opsgenie: ImportSource = {
  system: 'opsgenie',
  vendor: 'Opsgenie',
  headers: (token) => ({ authorization: `GenieKey ${token}` }),
  // Senders already speaking Opsgenie's Alert API keep it: only the API URL and the key change.
  senderFields: ['opsgenieApiUrl', 'genieKey', 'ingestUrl'],
  needs: 'read access to users, schedules, escalations, teams and integrations (an API key with Read and Configuration access)',
  async read(http, now): Promise<SourceModel> {
    const model = emptyModel();
    const listed = await users(http);
    for (const u of listed) model.users.push(await person(http, u, model.skips));
    const byName = new Map(listed.map((u) => [str(u.username)?.toLowerCase(), str(u.id)]));
    // Recipients name a person by id or by username.
    const userOf = (r: Json): string | null => str(r.id) ?? byName.get(str(r.username)?.toLowerCase()) ?? null;

    /** The AlertFlow schedules standing for each Opsgenie schedule (one, or one per rotation). */
    const standsFor = new Map<string, string[]>();
    const scheduleNames = new Map<string, string>();
    for (const s of await data(http, '/v2/schedules', { expand: 'rotation' })) {
      scheduleNames.set(str(s.id) ?? '', str(s.name) ?? '');
      const overrides = await data(http, `/v2/schedules/${enc(str(s.id) ?? '')}/overrides`);
      const made = opsgenieSchedule(s, overrides, userOf, now, model.skips);
      model.schedules.push(...made);
      standsFor.set(str(s.id) ?? '', made.map((m) => m.sourceId));
    }
    const targets = (r: Json, where: Skip): SourceTarget[] => {
      const type = str(r.type);
      if (type === 'user' && userOf(r) !== null) return [{ type: 'user', sourceId: userOf(r) as string }];
      if (type === 'schedule' && standsFor.has(str(r.id) ?? '')) return (standsFor.get(str(r.id) ?? '') ?? []).map((sourceId) => ({ type: 'schedule', sourceId }));
      model.skips.push({ ...where, reason: type === 'team' ? `team ${str(r.name) ?? str(r.id)}: AlertFlow has no teams; page its schedule or people instead` : `a ${type} recipient that is not imported` });
      return [];
    };
    for (const e of await data(http, '/v2/escalations')) model.policies.push(opsgeniePolicy(e, targets, model.skips));

    const byTeam = new Map<string, string[]>();
    for (const i of await data(http, '/v2/integrations')) {
      const type = str(i.type) ?? '';
      const name = str(i.name) ?? str(i.id) ?? '';
      const where = { kind: 'integration', sourceId: str(i.id) ?? '', name };
      if (EMAIL_TYPES.has(type)) {
        model.skips.push({ ...where, reason: `its type ${type} takes alerts by email: AlertFlow takes alerts over HTTP only` });
        continue;
      }
      if (type === 'Heartbeat') {
        model.skips.push({ ...where, reason: 'a heartbeat: make it again under Heartbeats in AlertFlow' });
        continue;
      }
      const preset = nearestPreset(type);
      if (preset === 'standard' && type !== 'API') model.skips.push({ ...where, reason: `no AlertFlow preset reads what ${type} sends: made with the standard payload; give it a field mapping, or point the sender at the Opsgenie-compatible API (its genieKey)` });
      model.integrations.push({ sourceId: where.sourceId, name: name.slice(0, 200), preset, enabled: i.enabled !== false });
      const team = str(i.teamId);
      if (team) byTeam.set(team, [...(byTeam.get(team) ?? []), where.sourceId]);
      else model.skips.push({ ...where, reason: 'has no owner team, whose routing rules would say whom to page: no workflow is made for it' });
    }
    // A rule that notifies a schedule pages through a one-step policy made for it.
    const viaSchedule = (scheduleId: string): string | null => {
      const stand = standsFor.get(scheduleId);
      if (!stand || stand.length === 0) return null;
      const sourceId = `schedule:${scheduleId}`;
      if (!model.policies.some((p) => p.sourceId === sourceId)) {
        model.policies.push({ sourceId, name: `Notify ${scheduleNames.get(scheduleId) || scheduleId}`, steps: [{ delayMinutes: 0, targets: stand.map((id) => ({ type: 'schedule', sourceId: id })) }], repeat: 0 });
      }
      return sourceId;
    };
    for (const team of await data(http, '/v2/teams')) {
      const integrations = byTeam.get(str(team.id) ?? '');
      if (!integrations) continue;
      const rules = await data(http, `/v2/teams/${enc(str(team.id) ?? '')}/routing-rules`);
      if (rules.length === 0) model.skips.push({ kind: 'team', sourceId: str(team.id) ?? '', name: str(team.name) ?? '', reason: 'has no routing rules, so its integrations\' alerts page nobody' });
      teamRoutes(model, team, rules, integrations, viaSchedule);
    }
    return model;
  },
};
