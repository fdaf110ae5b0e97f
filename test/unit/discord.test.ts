import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { parseAllowList } from '../../src/infra/outbound.ts';
import type { ChannelDeps } from '../../src/modules/notifications/channels/channel.ts';
import { DISCORD_LIMITS, discordChannel, discordPayload, embedCharacters } from '../../src/modules/notifications/channels/discord.ts';
import { ACK, alertOf, hostile, notice, page } from '../support/pages.ts';

/** Discord's webhook embeds (discord/discord-api-docs: Execute Webhook, Embed Limits) from a page, against Discord's limits. */
describe('Discord', () => {
  it('sends one embed with severity, title, the acknowledge link and no mentions allowed', () => {
    const p = discordPayload(page(alertOf())) as any;
    assert.deepEqual(p.allowed_mentions, { parse: [] });
    assert.equal(p.embeds.length, 1);
    assert.equal(p.embeds[0].title, '[CRITICAL] #7 Disk almost full on db1');
    assert.match(p.embeds[0].description, new RegExp(`\\[Acknowledge\\]\\(${ACK.replace(/\./g, '\\.')}\\)`));
    assert.deepEqual(p.embeds[0].fields.slice(0, 2).map((f: any) => f.name), ['Status', 'env']);
    assert.match(JSON.stringify(discordPayload(notice())), /test page/);
  });

  it('keeps hostile text within every limit of one message, its markdown and links inert', () => {
    const p = discordPayload(page(hostile)) as any;
    const e = p.embeds[0];
    assert.ok(e.title.length <= DISCORD_LIMITS.title);
    assert.ok(e.description.length <= DISCORD_LIMITS.description);
    assert.ok(e.fields.length <= DISCORD_LIMITS.fields);
    assert.ok(e.fields.every((f: any) => f.name.length <= DISCORD_LIMITS.fieldName && f.value.length <= DISCORD_LIMITS.fieldValue && f.value.length > 0));
    assert.ok(embedCharacters(e) <= DISCORD_LIMITS.total, String(embedCharacters(e)));
    assert.doesNotMatch(e.description, /(?<!\\)\[click\]/, 'the sender\'s [text](url) is not a link');
    assert.doesNotMatch(e.description, /(?<!\\)<https:\/\/evil/);
  });

  it('posts to the webhook with ?wait=true; a 429 is retried, a 400 is final', async () => {
    const seen: Array<{ url: string; body: string }> = [];
    const answers = [204, 429, 400];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        seen.push({ url: req.url ?? '', body });
        res.writeHead(answers[seen.length - 1] ?? 500).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/webhooks/1/token`;
    const deps = { outboundAllow: parseAllowList('127.0.0.1'), userAgent: 'AlertFlow/test', webhookTimeoutMs: 2000 } as ChannelDeps;
    const org = { orgId: 'org', settings: null };
    assert.equal((await discordChannel.send(deps, page(alertOf()), { webhookUrl: url }, org)).outcome, 'sent');
    assert.equal((await discordChannel.send(deps, page(alertOf()), { webhookUrl: url }, org)).outcome, 'retry');
    assert.equal((await discordChannel.send(deps, page(alertOf()), { webhookUrl: url }, org)).outcome, 'failed');
    assert.equal(seen[0]!.url, '/api/webhooks/1/token?wait=true');
    assert.equal(JSON.parse(seen[0]!.body).username, 'AlertFlow');
    assert.equal(discordChannel.describe({ webhookUrl: url }), `http://127.0.0.1:${(server.address() as AddressInfo).port}/…`, 'the token never in the log');
    await new Promise((r) => server.close(r));
  });
});
