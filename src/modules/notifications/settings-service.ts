import type { Store } from '../../db/database.ts';
import type { Actor } from '../../lib/actor.ts';
import { iso, type Clock } from '../../lib/clock.ts';
import { AppError, notFound } from '../../lib/errors.ts';
import type { AuditService } from '../audit/audit-service.ts';
import type { ChannelDeps, ChannelTarget } from './channels/channel.ts';
import { CHANNEL_TYPES, channelOf, isChannelType, type ChannelType } from './channels/registry.ts';
import { catalogueFields, keepSecrets, maskTarget, targetProblems } from './channels/target-fns.ts';
import type { ChannelSetup } from './notifications-schemas.ts';
import type { SettingsRepo, SettingsRow } from './settings-repo.ts';

/** The channels an organization sets up itself (a Slack app, a Telegram bot), in the registry's order. */
export const SETUP_CHANNELS = CHANNEL_TYPES.filter((t) => channelOf(t).settings !== undefined);

/**
 * Each organization's set-up of the channels that need one: checked against the channel's declaration (its
 * schema, URLs, secrets) and with the provider (the token works) before it is stored; secrets never shown.
 */
export function settingsService(deps: { store: Store; repo: SettingsRepo; audit: AuditService; clock: Clock; channels: ChannelDeps }) {
  const { store, repo, audit, clock } = deps;
  const setupOf = (type: string) => {
    const s = isChannelType(type) ? channelOf(type).settings : undefined;
    if (!s) throw notFound('Channel set-up');
    return { type: type as ChannelType, settings: s };
  };
  const readConfig = (r: SettingsRow): ChannelTarget => store.readJson<ChannelTarget>(r.config);

  const view = (type: ChannelType, orgId: string, row: SettingsRow | undefined): ChannelSetup => {
    const c = channelOf(type);
    const s = c.settings as NonNullable<typeof c.settings>;
    return {
      channel: type, label: c.label, about: s.about, configured: row !== undefined,
      settings: row ? maskTarget({ target: s.schema }, readConfig(row)) : null,
      fields: catalogueFields({ target: s.schema }),
      urls: s.urls?.(deps.channels, orgId) ?? {},
      updatedAt: row ? iso(row.updated_at) : null,
    };
  };

  return {
    /** The settings of a channel for sending (secrets in clear); null when not set up. */
    async get(orgId: string, type: ChannelType): Promise<ChannelTarget | null> {
      const row = await repo.get(store.db, orgId, type);
      return row ? readConfig(row) : null;
    },

    async list(orgId: string): Promise<ChannelSetup[]> {
      const rows = new Map((await repo.list(store.db, orgId)).map((r) => [r.channel, r]));
      return SETUP_CHANNELS.map((t) => view(t, orgId, rows.get(t)));
    },

    /** Saves a channel's set-up: 400 naming what is wrong, or what the provider said (the token refused). */
    async put(orgId: string, actor: Actor, type: string, input: ChannelTarget): Promise<ChannelSetup> {
      const { type: channel, settings } = setupOf(type);
      const schema = { target: settings.schema };
      const problems = targetProblems(schema, input, deps.channels.outboundAllow, '');
      if (problems.length > 0) throw new AppError('VALIDATION_ERROR', 'Channel set-up is invalid', problems);
      const stored = await repo.get(store.db, orgId, channel);
      const kept = keepSecrets(schema, input, stored ? [readConfig(stored)] : [], '', true);
      if (!kept.ok) throw new AppError('VALIDATION_ERROR', 'Channel set-up is invalid', kept.errors);
      const checked = (await settings.check?.(deps.channels, { orgId, settings: kept.target })) ?? { ok: true };
      if (!checked.ok) throw new AppError('VALIDATION_ERROR', `${channelOf(channel).label} refused the set-up`, [{ path: '', message: checked.problem }]);
      const now = clock.now();
      const config = { ...kept.target, ...checked.learned };
      const row: SettingsRow = { org_id: orgId, channel, config: JSON.stringify(config), created_at: stored ? Number(stored.created_at) : now, updated_at: now };
      await store.db.transaction().execute(async (trx) => {
        await repo.put(trx, row);
        await audit.record(trx, { orgId, action: 'channel_settings.saved', actor, target: { type: 'channel_settings', id: channel }, metadata: { channel } });
      });
      return view(channel, orgId, row);
    },

    async remove(orgId: string, actor: Actor, type: string): Promise<void> {
      const { type: channel } = setupOf(type);
      await store.db.transaction().execute(async (trx) => {
        if (!(await repo.remove(trx, orgId, channel))) throw notFound('Channel set-up');
        await audit.record(trx, { orgId, action: 'channel_settings.deleted', actor, target: { type: 'channel_settings', id: channel }, metadata: { channel } });
      });
    },
  };
}
export type SettingsService = ReturnType<typeof settingsService>;
