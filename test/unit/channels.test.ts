import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Alert } from '../../src/modules/alerts/alerts-schemas.ts';
import { ACK, alertOf, hostile, HOSTILE, notice, page, RESOLVE, texts } from '../support/pages.ts';
import { emailOf } from '../../src/modules/notifications/channels/email.ts';
import { NTFY_LIMITS, ntfyPayload } from '../../src/modules/notifications/channels/ntfy.ts';
import { CHANNELS } from '../../src/modules/notifications/channels/registry.ts';
import { schemaProblems } from '../../src/modules/notifications/channels/target-fns.ts';
import { escapeMrkdwn, SLACK_LIMITS, slackPayload } from '../../src/modules/notifications/channels/slack.ts';
import { escapeTeamsMarkdown, TEAMS_LIMITS, teamsPayload } from '../../src/modules/notifications/channels/teams.ts';

describe('Slack Block Kit', () => {
  it('shows severity, title, labels, links and the acknowledge button', () => {
    const p = slackPayload(page(alertOf()));
    const blocks = p.blocks as Array<Record<string, any>>;
    assert.match(blocks[0]!.text.text, /^\[CRITICAL\] #7 Disk almost full on db1$/);
    const all = JSON.stringify(p);
    assert.match(all, /`host` = db1/);
    assert.match(all, /<https:\/\/runbooks.example.com\/disk\|runbook_url>/);
    const actions = blocks.find((b) => b.type === 'actions')!;
    assert.deepEqual(actions.elements.map((e: any) => [e.text.text, e.url]).slice(0, 2), [['Acknowledge', ACK], ['Resolve', RESOLVE]]);
  });

  it('keeps hostile text within the limits and escaped', () => {
    const p = slackPayload(page(hostile));
    const blocks = p.blocks as Array<Record<string, any>>;
    assert.ok(blocks.length <= SLACK_LIMITS.blocks);
    for (const b of blocks) {
      if (b.type === 'section') assert.ok(b.text.text.length <= SLACK_LIMITS.sectionText, `section of ${b.text.text.length}`);
      if (b.type === 'header') assert.ok(b.text.text.length <= SLACK_LIMITS.headerText);
    }
    const mrkdwn = blocks.filter((b) => b.type === 'section').map((b) => b.text.text as string).join('\n');
    // The sender's mention and link never reach Slack as syntax.
    assert.doesNotMatch(mrkdwn, /<!channel>|<@U123>|<https:\/\/evil/);
    assert.match(mrkdwn, /&lt;!channel&gt;/);
    // Every link it does make is one of ours, its URL unbroken by `|` or `>`.
    for (const m of mrkdwn.matchAll(/<([^|>]*)\|/g)) assert.match(m[1]!, /^https:\/\/(alertflow|example)\.(example\.)?com/);
    assert.deepEqual(JSON.parse(JSON.stringify(p)), p);
    assert.equal(escapeMrkdwn('a & <b>'), 'a &amp; &lt;b&gt;');
  });
});

describe('Teams Adaptive Card', () => {
  it('is a message with one Adaptive Card of a supported version, acknowledge first', () => {
    const p = teamsPayload(page(alertOf())) as any;
    assert.equal(p.type, 'message');
    assert.equal(p.attachments.length, 1);
    assert.equal(p.attachments[0].contentType, 'application/vnd.microsoft.card.adaptive');
    const card = p.attachments[0].content;
    assert.equal(card.type, 'AdaptiveCard');
    assert.ok(['1.4', '1.5'].includes(card.version));
    assert.deepEqual(card.actions[0], { type: 'Action.OpenUrl', title: 'Acknowledge', url: ACK });
    assert.match(JSON.stringify(card.body), /\[CRITICAL\] #7 Disk almost full/);
  });

  it('stays well under 28 KB with hostile text', () => {
    const json = JSON.stringify(teamsPayload(page(hostile)));
    assert.ok(Buffer.byteLength(json) <= TEAMS_LIMITS.bytes, `${Buffer.byteLength(json)} bytes`);
    assert.ok(Buffer.byteLength(json) < 28 * 1024);
    JSON.parse(json);
  });
});

describe('Teams TextBlock Markdown', () => {
  it('escapes what Teams would read as markup in sender text: bold, italic, links, code, lists, headings', () => {
    assert.equal(escapeTeamsMarkdown('**bold** _it_ [click](https://evil.example) `x` ~s~ <b>'), '\\*\\*bold\\*\\* \\_it\\_ \\[click\\]\\(https://evil.example\\) \\`x\\` \\~s\\~ \\<b\\>');
    assert.equal(escapeTeamsMarkdown('- one\n  + two\n3. three\n# Title\nC:\\temp'), '\\- one\n  \\+ two\n3\\. three\n\\# Title\nC:\\\\temp');
    assert.equal(escapeTeamsMarkdown('Disk 95.5% full on db-1 #7'), 'Disk 95.5% full on db-1 #7', 'plain text stays as it is');
  });

  it('the card\'s title and description carry the escaped text, our own severity prefix does not', () => {
    const card = (teamsPayload(page(alertOf({ title: '[Pay here](https://evil.example)', description: '**urgent**\n- step' }))) as any).attachments[0].content;
    assert.equal(card.body[0].text, '[CRITICAL] #7 \\[Pay here\\]\\(https://evil.example\\)');
    assert.equal(card.body[2].text, '\\*\\*urgent\\*\\*\n\\- step');
  });
});

describe('ntfy', () => {
  it('names the topic, maps severity to priority and offers the acknowledge action', () => {
    const severities = { critical: 5, high: 4, medium: 3, low: 2, info: 2 } as const;
    for (const [severity, priority] of Object.entries(severities)) {
      const p = ntfyPayload(page(alertOf({ severity: severity as Alert['severity'] })), { serverUrl: 'https://ntfy.example.com', topic: 'oncall' });
      assert.equal(p.priority, priority);
      assert.equal(p.topic, 'oncall');
    }
    const p = ntfyPayload(page(alertOf()), { serverUrl: 'https://ntfy.example.com', topic: 'oncall' }) as any;
    assert.deepEqual(p.actions[0], { action: 'view', label: 'Acknowledge', url: ACK, clear: true });
    assert.ok(p.actions.length <= 3);
  });

  it('bounds title and message bytes with hostile text', () => {
    const p = ntfyPayload(page(hostile), { serverUrl: 'https://ntfy.example.com', topic: 'oncall' }) as any;
    assert.ok(p.title.length <= NTFY_LIMITS.title);
    assert.doesNotMatch(p.title, /[\r\n]/);
    assert.ok(Buffer.byteLength(p.message) <= NTFY_LIMITS.messageBytes);
    assert.ok(!texts(p).some((t) => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(t)), 'no half surrogate pair');
  });
});

describe('email page', () => {
  it('carries the acknowledge and resolve links in text and HTML, HTML escaped', () => {
    const m = emailOf(page(alertOf({ title: '<b>x</b>' })), 'https://alertflow.example.com');
    assert.match(m.text, new RegExp(`Acknowledge: ${ACK.replace(/\./g, '\\.')}`));
    assert.match(m.text, /Resolve: /);
    assert.match(m.html, /href="https:\/\/alertflow.example.com\/links\/tok.ack">Acknowledge</);
    assert.doesNotMatch(m.html, /<b>x<\/b>/);
  });
});

describe('a notice (a handoff, a test page) in every channel', () => {
  it('says its subject and text, with no acknowledge or resolve button', () => {
    const n = notice({ subject: '[TEST] AlertFlow test page for <Ops>', text: 'Nothing is wrong.' });
    for (const [type, channel] of Object.entries(CHANNELS)) {
      const out = JSON.stringify((channel as { render: (m: unknown, t: unknown) => unknown }).render(n, { topic: 'ops', serverUrl: 'https://n.test', number: '+4915100000001', url: 'https://x.test' }));
      assert.match(out, /Nothing is wrong\./, type);
      assert.match(out, /TEST/, type);
      assert.doesNotMatch(out, /Acknowledge|Press 4/, `${type}: a notice is not answered`);
    }
  });
});

describe('registry', () => {
  it('every channel declares a closed target schema, a name, its uses and what it reaches without secrets', () => {
    for (const [type, channel] of Object.entries(CHANNELS)) {
      assert.equal((channel.target as { additionalProperties?: unknown }).additionalProperties, false, `${type} refuses fields it does not declare`);
      assert.ok(channel.label && channel.about && channel.uses.length > 0, type);
      assert.ok(schemaProblems(channel, { extra: 'x' }, '').some((p) => p.path === '/extra'), `${type} refuses an unknown field`);
    }
    // A chat webhook URL is a secret: the delivery log shows its host only.
    assert.equal(CHANNELS.slack.describe({ webhookUrl: 'https://hooks.slack.com/services/T/B/secret' }), 'https://hooks.slack.com/…');
  });
});

describe('clip', () => {
  it('never leaves half a surrogate pair', async () => {
    const { clip } = await import('../../src/modules/notifications/channels/channel.ts');
    for (let max = 1; max < 8; max++) assert.doesNotMatch(clip('💥💥💥💥💥', max), /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
