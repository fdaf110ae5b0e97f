import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { appPayload, fromSlack, slackSignature } from '../../src/modules/notifications/channels/slack-app.ts';
import { SLACK_LIMITS } from '../../src/modules/notifications/channels/slack.ts';
import { alertOf, hostile, notice, page } from '../support/pages.ts';

/** The Slack app's messages and Slack's request signing ("Verifying requests from Slack"). */
describe('Slack app', () => {
  const secret = '8f742231b10e8888abcd99yyyzzz85a5';
  const body = 'payload=%7B%22type%22%3A%22block_actions%22%7D';
  const now = 1_800_000_000_000;
  const ts = String(now / 1000);

  it('signs v0:<timestamp>:<body> with HMAC-SHA256 and accepts only its own signature within five minutes', () => {
    assert.equal(slackSignature(secret, ts, body), `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`);
    const headers = { 'x-slack-request-timestamp': ts, 'x-slack-signature': slackSignature(secret, ts, body) };
    assert.equal(fromSlack(secret, headers, body, now), true);
    assert.equal(fromSlack(secret, headers, body, now + 301_000), false, 'older than five minutes');
    assert.equal(fromSlack(secret, headers, body, now - 301_000), false, 'from the future');
    assert.equal(fromSlack(secret, headers, `${body}x`, now), false, 'another body');
    assert.equal(fromSlack('another-secret-0000000', headers, body, now), false);
    assert.equal(fromSlack(secret, { ...headers, 'x-slack-request-timestamp': 'soon' }, body, now), false);
  });

  it('offers the buttons the incident\'s state allows, carrying the notification id; a notice none', () => {
    const buttons = (m: Parameters<typeof appPayload>[0]) => ((appPayload(m).blocks as any[]).find((b) => b.type === 'actions')?.elements ?? []).map((e: any) => [e.action_id, e.value]);
    assert.deepEqual(buttons(page(alertOf())), [['acknowledge', 'ntf_1'], ['resolve', 'ntf_1'], ['open', undefined]]);
    const resolved = page(alertOf());
    resolved.incident = { ...resolved.incident!, status: 'resolved' };
    assert.deepEqual(buttons(resolved), [['open', undefined]]);
    assert.match(String(appPayload(resolved).text), /^\[RESOLVED\] \[CRITICAL\]/);
    assert.deepEqual(buttons(notice()), []);
  });

  it('keeps hostile text within Block Kit\'s limits', () => {
    const p = appPayload(page(hostile)) as any;
    assert.ok(p.blocks.length <= SLACK_LIMITS.blocks);
    assert.ok(p.blocks[0].text.text.length <= SLACK_LIMITS.headerText);
    assert.ok(p.blocks.filter((b: any) => b.type === 'section').every((b: any) => b.text.text.length <= SLACK_LIMITS.sectionText));
  });
});
