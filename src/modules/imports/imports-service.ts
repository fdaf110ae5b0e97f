import type { Logger } from 'pino';
import type { Store } from '../../db/database.ts';
import { bodyProblems } from '../../http/validation.ts';
import type { Actor } from '../../lib/actor.ts';
import { iso, type Clock } from '../../lib/clock.ts';
import { AppError } from '../../lib/errors.ts';
import { CreateContactMethodBody, NotificationRulesBody } from '../contacts/contacts-schemas.ts';
import type { ContactsService } from '../contacts/contacts-service.ts';
import { CreatePolicyBody, MAX_DELAY_MINUTES, MAX_STEPS, type Step, type Target } from '../escalations/escalations-schemas.ts';
import type { EscalationsService } from '../escalations/escalations-service.ts';
import { CreateIntegrationBody, type Integration } from '../integrations/integrations-schemas.ts';
import type { IntegrationsService } from '../integrations/integrations-service.ts';
import { scheduleErrors } from '../schedules/schedules-fns.ts';
import { CreateScheduleBody, MAX_LAYERS, MAX_OVERRIDES } from '../schedules/schedules-schemas.ts';
import type { SchedulesService } from '../schedules/schedules-service.ts';
import { CreateUserBody } from '../users/users-schemas.ts';
import type { UsersService } from '../users/users-service.ts';
import { CreateWorkflowBody } from '../workflows/workflows-schemas.ts';
import type { WorkflowsService } from '../workflows/workflows-service.ts';
import { found, linker, type Linker } from './imports-links.ts';
import type { ImportResult, SourceModel, SourceTarget } from './imports-model.ts';
import type { ImportsRepo } from './imports-repo.ts';
import type { ImportSource } from './sources/source.ts';
import { vendorHttp } from './vendor-http.ts';

export interface ImportOptions {
  system: string;
  orgId: string;
  apiUrl: string;
  /** Used for the vendor's API only: never stored, logged or shown. */
  token: string;
  apply: boolean;
  createUsers: boolean;
}

interface Run {
  orgId: string;
  actor: Actor;
  vendor: string;
  apply: boolean;
  createUsers: boolean;
  model: SourceModel;
  link: Linker;
  senderFields: ImportSource['senderFields'];
  /** "Name <email>" of each source person, for messages about them. */
  who: (sourceId: string) => string;
}

/** A placeholder id of a plan: the object does not exist yet, so nothing can be read about it. */
const isPlaced = (id: string): boolean => id.startsWith('(new ');

/**
 * `alertflow import`: reads another on-call tool through its API (sources/*.ts), then plans or applies the move
 * object by object through each module's own service, so that their validation, audit and organization scoping
 * apply as for a person using the API. See docs/migration.md.
 */
export function importsService(deps: {
  store: Store;
  repo: ImportsRepo;
  users: Pick<UsersService, 'list' | 'create'>;
  contacts: ContactsService;
  schedules: SchedulesService;
  escalations: EscalationsService;
  integrations: IntegrationsService;
  workflows: WorkflowsService;
  orgExists: (orgId: string) => Promise<boolean>;
  clock: Clock;
  log: Logger;
  /** How the vendor client waits before retrying a 429. */
  sleep: (ms: number) => Promise<void>;
  sources: readonly ImportSource[];
}) {
  const { store, repo, contacts, schedules, escalations, integrations, workflows } = deps;

  async function members(orgId: string): Promise<Map<string, string>> {
    const byEmail = new Map<string, string>();
    let cursor: string | undefined;
    do {
      const page = await deps.users.list(orgId, { limit: 100, ...(cursor !== undefined && { cursor }) });
      for (const u of page.data) byEmail.set(u.email.toLowerCase(), u.id);
      cursor = page.meta.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return byEmail;
  }

  /** People, matched by email; unknown ones made members without a password when asked (`--create-users`). */
  async function people(r: Run): Promise<void> {
    let byEmail = await members(r.orgId);
    for (const u of r.model.users) {
      const item = { kind: 'user' as const, sourceId: u.sourceId, name: r.who(u.sourceId) };
      const email = u.email.trim().toLowerCase();
      const found = byEmail.get(email);
      if (email === '') r.link.skip({ ...item, reason: 'has no email address to match a member by' });
      else if (found !== undefined) r.link.known(item, found);
      else if (!r.createUsers) r.link.skip({ ...item, reason: `no member of this organization has the email ${email}: rerun with --create-users to add them as members without a password` });
      else {
        const body = { email, name: u.name.trim().slice(0, 200) || email, role: 'member' as const };
        const problems = bodyProblems(CreateUserBody, body);
        if (problems.length > 0) r.link.skip({ ...item, reason: `AlertFlow would refuse it: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}` });
        else if (!r.apply) r.link.planned(item);
        else {
          try {
            // The CLI runs as the operator, trusted like the owner (null: no grant check).
            const made = await deps.users.create(r.orgId, r.actor, body, null);
            await r.link.created(item, made.id, { setPasswordLink: made.setPasswordLink.url });
          } catch (err) {
            // Added meanwhile (another run, a person): matched like any member.
            if (!(err instanceof AppError && err.code === 'CONFLICT')) throw err;
            byEmail = await members(r.orgId);
            const now = byEmail.get(email);
            if (now === undefined) throw err;
            r.link.known(item, now);
          }
        }
      }
    }
  }

  /** Each imported person's contact methods (a method they already have is reused), then their rules. */
  async function contactMethods(r: Run): Promise<void> {
    for (const u of r.model.users) {
      const userId = r.link.idOf('user', u.sourceId);
      if (userId === undefined) continue;
      const mine = isPlaced(userId) ? [] : await contacts.list(r.orgId, userId);
      for (const c of u.contacts) {
        const item = { kind: 'contact_method' as const, sourceId: c.sourceId, name: `${r.who(u.sourceId)}: ${c.label}` };
        const same = mine.find((m) => m.type === c.type && JSON.stringify(m.target) === JSON.stringify(c.target));
        if (same && !r.link.linkOf('contact_method', c.sourceId)) {
          r.link.known(item, same.id);
          continue;
        }
        const body = { type: c.type, label: c.label.slice(0, 100) || c.type, target: c.target } as CreateContactMethodBody;
        await r.link.upsert(item, body, CreateContactMethodBody, {
          create: (db) => contacts.create(r.orgId, r.actor, userId, body, db),
          update: (id, db) => contacts.update(r.orgId, r.actor, userId, id, { label: body.label, target: body.target }, db),
          exists: (id) => found(contacts.get(r.orgId, userId, id)),
        });
      }
      if (u.rules === null) continue;
      const item = { kind: 'notification_rules' as const, sourceId: u.sourceId, name: `${r.who(u.sourceId)}: notification rules` };
      const rules = u.rules.flatMap((rule) => {
        const id = r.link.idOf('contact_method', rule.contactSourceId);
        return id === undefined ? [] : [{ contactMethodId: id, afterMinutes: rule.afterMinutes }];
      });
      if (rules.length === 0) continue;
      if (!r.link.linkOf('notification_rules', u.sourceId) && !isPlaced(userId) && (await contacts.rules(r.orgId, userId)).length > 0) {
        r.link.skip({ ...item, reason: 'the member has set notification rules in AlertFlow already: those are kept' });
        continue;
      }
      const body = { rules };
      await r.link.upsert(item, body, NotificationRulesBody, {
        create: async (db) => {
          await contacts.replaceRules(r.orgId, r.actor, userId, body, db);
          return { id: userId };
        },
        update: (_id, db) => contacts.replaceRules(r.orgId, r.actor, userId, body, db),
      });
    }
  }

  async function scheduleAll(r: Run): Promise<void> {
    for (const s of r.model.schedules) {
      const item = { kind: 'schedule' as const, sourceId: s.sourceId, name: s.name };
      const kept = s.layers.length > MAX_LAYERS ? s.layers.slice(-MAX_LAYERS) : s.layers;
      if (kept.length < s.layers.length) r.link.skip({ ...item, reason: `has ${s.layers.length} layers: AlertFlow keeps the ${MAX_LAYERS} with the highest precedence` });
      const layers = kept.flatMap((l) => {
        const where = { kind: 'schedule_layer', sourceId: `${s.sourceId}/${l.name}`, name: `${s.name}: ${l.name}` };
        const users = l.users.flatMap((u) => {
          const id = r.link.idOf('user', u);
          if (id === undefined) r.link.skip({ ...where, reason: `${r.who(u)} is not imported: the rotation goes round without them, so turns fall differently than in ${r.vendor}` });
          return id === undefined ? [] : [id];
        });
        if (users.length === 0) {
          r.link.skip({ ...where, reason: 'nobody in it is imported' });
          return [];
        }
        return [{ name: l.name, startsAt: iso(l.startsAt), rotation: l.rotation, shiftHours: l.shiftHours, users, restrictions: l.restrictions }];
      });
      const overrides = [...s.overrides].sort((a, b) => a.startsAt - b.startsAt).flatMap((o) => {
        const id = r.link.idOf('user', o.user);
        if (id === undefined) r.link.skip({ kind: 'schedule_override', sourceId: `${s.sourceId}/${iso(o.startsAt)}`, name: `${s.name}: override from ${iso(o.startsAt)}`, reason: `${r.who(o.user)} is not imported` });
        return id === undefined ? [] : [{ userId: id, startsAt: iso(o.startsAt), endsAt: iso(o.endsAt) }];
      });
      if (overrides.length > MAX_OVERRIDES) r.link.skip({ ...item, reason: `has ${overrides.length} overrides to come: AlertFlow keeps the first ${MAX_OVERRIDES}` });
      const body = { name: s.name.slice(0, 200), description: s.description?.slice(0, 4096) ?? null, timezone: s.timezone, layers, overrides: overrides.slice(0, MAX_OVERRIDES) };
      await r.link.upsert(item, body, CreateScheduleBody, {
        create: (db) => schedules.create(r.orgId, r.actor, body, db),
        update: (id, db) => schedules.update(r.orgId, r.actor, id, body, db),
        exists: (id) => found(schedules.get(r.orgId, id)),
      }, () => scheduleErrors(body));
    }
  }

  function target(r: Run, t: SourceTarget): Target | null {
    const id = r.link.idOf(t.type, t.sourceId);
    return id === undefined ? null : { type: t.type, id };
  }

  async function policies(r: Run): Promise<void> {
    for (const p of r.model.policies) {
      const item = { kind: 'escalation_policy' as const, sourceId: p.sourceId, name: p.name };
      const steps: Step[] = [];
      p.steps.forEach((st, i) => {
        const where = { kind: 'escalation_step', sourceId: `${p.sourceId}/${i + 1}`, name: `${p.name}: step ${i + 1}` };
        const targets: Target[] = [];
        for (const t of st.targets) {
          const found = target(r, t);
          if (found === null) r.link.skip({ ...where, reason: `${t.type === 'user' ? r.who(t.sourceId) : `schedule ${t.sourceId}`} is not imported` });
          else if (!targets.some((x) => x.type === found.type && 'id' in x && 'id' in found && x.id === found.id)) targets.push(found);
        }
        if (targets.length === 0) {
          // Its wait goes to the step before, so the later steps still fire when they did.
          const before = steps[steps.length - 1];
          if (before) before.delayMinutes += st.delayMinutes;
          r.link.skip({ ...where, reason: before ? 'no target left: its wait is added to the step before' : 'no target left: the policy starts with the next step, at once' });
          return;
        }
        steps.push({ delayMinutes: st.delayMinutes, targets });
      });
      for (const [i, st] of steps.entries()) {
        if (st.delayMinutes <= MAX_DELAY_MINUTES) continue;
        r.link.skip({ kind: 'escalation_step', sourceId: `${p.sourceId}/${i + 1}`, name: `${p.name}: step ${i + 1}`, reason: `waits ${st.delayMinutes} minutes: AlertFlow waits at most ${MAX_DELAY_MINUTES}` });
        st.delayMinutes = MAX_DELAY_MINUTES;
      }
      if (steps.length > MAX_STEPS) r.link.skip({ ...item, reason: `has ${steps.length} steps: AlertFlow keeps the first ${MAX_STEPS}` });
      if (steps.length === 0) {
        r.link.skip({ ...item, reason: 'none of its steps has a target that is imported' });
        continue;
      }
      const body = { name: p.name.slice(0, 200), steps: steps.slice(0, MAX_STEPS), repeat: p.repeat };
      await r.link.upsert(item, body, CreatePolicyBody, {
        create: (db) => escalations.create(r.orgId, r.actor, body, db),
        update: (id, db) => escalations.update(r.orgId, r.actor, id, body, db),
        exists: (id) => found(escalations.get(r.orgId, id)),
      });
    }
  }

  /** What a sender needs to post to an imported integration: its URL and key (shown in full, as the API shows a writer). */
  const credentialsOf = (i: Integration, fields: ImportSource['senderFields']): Record<string, string> =>
    Object.fromEntries(fields.map((f) => [f, i[f]]));

  async function integrationAll(r: Run): Promise<void> {
    for (const i of r.model.integrations) {
      const body = { name: i.name.slice(0, 200), preset: i.preset, enabled: i.enabled };
      await r.link.upsert({ kind: 'integration', sourceId: i.sourceId, name: i.name }, body, CreateIntegrationBody, {
        create: async (db) => {
          const made = await integrations.create(r.orgId, r.actor, body, db);
          return { id: made.id, credentials: credentialsOf(made, r.senderFields) };
        },
        update: (id, db) => integrations.update(r.orgId, r.actor, id, body, db),
        exists: (id) => found(integrations.get(r.orgId, id, false)),
      });
    }
  }

  /** Routing: a workflow per source route that opens an incident and starts the route's policy. */
  async function routes(r: Run): Promise<void> {
    for (const route of r.model.routes) {
      const item = { kind: 'workflow' as const, sourceId: route.sourceId, name: `Route: ${route.name}` };
      const policyId = r.link.idOf('escalation_policy', route.policy);
      const ints = route.integrations.flatMap((i) => r.link.idOf('integration', i) ?? []);
      if (policyId === undefined) r.link.skip({ ...item, reason: `its escalation policy ${route.policy} is not imported, so it would page nobody` });
      else if (ints.length === 0) r.link.skip({ ...item, reason: 'none of its integrations is imported' });
      else {
        const from = { field: 'integrationId', op: 'in' as const, value: ints };
        const body = {
          name: item.name.slice(0, 200),
          description: route.description.slice(0, 4096),
          enabled: true,
          trigger: 'alert.created' as const,
          conditions: route.conditions === null ? from : { all: [from, ...('all' in route.conditions ? route.conditions.all : [route.conditions])] },
          // One incident per alert fingerprint, as the source opened one per alert (or per dedup key).
          actions: [{ type: 'create_incident' as const, groupBy: ['fingerprint'], escalationPolicyId: policyId }],
        };
        await r.link.upsert(item, body, CreateWorkflowBody, {
          create: (db) => workflows.create(r.orgId, r.actor, body, db),
          update: (id, db) => workflows.update(r.orgId, r.actor, id, body, db),
          exists: (id) => found(workflows.get(r.orgId, id)),
        });
      }
    }
  }

  return {
    systems: (): string[] => deps.sources.map((s) => s.system),

    async run(opts: ImportOptions): Promise<ImportResult> {
      const source = deps.sources.find((s) => s.system === opts.system);
      if (!source) throw new AppError('VALIDATION_ERROR', `unknown system "${opts.system}": one of ${deps.sources.map((s) => s.system).join(', ')}`);
      if (!(await deps.orgExists(opts.orgId))) throw new AppError('NOT_FOUND', `no organization ${opts.orgId}`);
      const http = vendorHttp({ vendor: source.vendor, baseUrl: opts.apiUrl, headers: source.headers(opts.token), sleep: deps.sleep, log: deps.log, needs: source.needs });
      const model = await source.read(http, deps.clock.now());
      const names = new Map(model.users.map((u) => [u.sourceId, u.email ? `${u.name} <${u.email}>` : u.name]));
      const r: Run = {
        orgId: opts.orgId,
        actor: { type: 'system', id: `import:${source.system}` },
        vendor: source.vendor,
        senderFields: source.senderFields,
        apply: opts.apply,
        createUsers: opts.createUsers,
        model,
        link: linker({
          store, repo, orgId: opts.orgId, system: source.system, vendor: source.vendor, apply: opts.apply, now: () => deps.clock.now(),
          links: await repo.list(store.db, opts.orgId, source.system),
        }),
        who: (id) => names.get(id) ?? `person ${id}`,
      };
      for (const s of model.skips) r.link.skip(s);
      await people(r);
      await contactMethods(r);
      await scheduleAll(r);
      await policies(r);
      await integrationAll(r);
      await routes(r);
      r.link.leftovers();
      const res = r.link.result;
      deps.log.info({ orgId: opts.orgId, system: source.system, applied: opts.apply, create: res.create.length, update: res.update.length, skip: res.skip.length, unchanged: res.unchanged.length }, 'import finished');
      return res;
    },
  };
}
export type ImportsService = ReturnType<typeof importsService>;
