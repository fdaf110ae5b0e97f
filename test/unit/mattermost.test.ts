import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeMattermost, MATTERMOST_LIMITS, mattermostPayload } from '../../src/modules/notifications/channels/mattermost.ts';
import { ACK, alertOf, hostile, notice, page } from '../support/pages.ts';

/** Mattermost's incoming webhook with a Slack-compatible attachment (Mattermost's "Message attachments" page), against its limits. */
describe('Mattermost', () => {
  it('sends an attachment with severity colour, title link, the acknowledge link and labels as fields', () => {
    const p = mattermostPayload(page(alertOf())) as any;
    const a = p.attachments[0];
    assert.equal(a.color, '#b91c1c');
    assert.equal(a.title_link, 'https://alertflow.example.com/alerts/alt_1');
    assert.equal(a.fallback, '[CRITICAL] #7 Disk almost full on db1', 'plain text, for notifications');
    assert.ok(a.text.includes(`[Acknowledge](${ACK})`));
    assert.deepEqual(a.fields.map((f: any) => f.title), ['Status', 'env', 'host']);
    assert.equal(mattermostPayload(notice()).attachments instanceof Array, true);
  });

  it('keeps hostile text inert (no markup, no @channel) and the post within Mattermost\'s size', () => {
    const p = mattermostPayload(page(alertOf({ title: '@channel <!here> **x**', description: 'ping @all and [click](https://evil.example)' }))) as any;
    const all = JSON.stringify(p);
    assert.doesNotMatch(all, /@(channel|all|here)/, 'no mention left');
    assert.doesNotMatch(p.attachments[0].text, /(?<!\\)\[click\]/);
    assert.equal(escapeMattermost('*a*'), '\\*a\\*');
    const big = mattermostPayload(page(hostile)) as any;
    assert.ok(JSON.stringify(big).length <= MATTERMOST_LIMITS.post, String(JSON.stringify(big).length));
    assert.ok(big.attachments[0].fields.length <= MATTERMOST_LIMITS.fields + 1);
  });
});
