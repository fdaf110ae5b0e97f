import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TELEGRAM_LIMITS, telegramPayload, webhookSecret } from '../../src/modules/notifications/channels/telegram.ts';
import { alertOf, hostile, notice, page } from '../support/pages.ts';

/** The Bot API's sendMessage (core.telegram.org/bots/api) from a page, against its limits. */
describe('Telegram', () => {
  it('sends plain text with inline buttons the incident\'s state allows, each within 64 bytes of callback data', () => {
    const p = telegramPayload({ ...page(alertOf()), deliveryId: 'ntf_0123456789abcdefghij' }, '-100123') as any;
    assert.equal(p.chat_id, '-100123');
    assert.equal(p.parse_mode, undefined, 'plain text: a sender\'s text is never markup');
    assert.match(p.text, /^\[CRITICAL\] #7 Disk almost full on db1\n\nOnly 3% left\./);
    const buttons = p.reply_markup.inline_keyboard.flat();
    assert.deepEqual(buttons.map((b: any) => b.text), ['Acknowledge', 'Resolve', 'Open in AlertFlow']);
    assert.ok(buttons.every((b: any) => b.url !== undefined || Buffer.byteLength(b.callback_data) <= TELEGRAM_LIMITS.callbackData));
    const acked = page(alertOf());
    acked.incident = { ...acked.incident!, status: 'acknowledged' };
    const a = telegramPayload(acked, '1') as any;
    assert.deepEqual(a.reply_markup.inline_keyboard.flat().map((b: any) => b.text), ['Resolve', 'Open in AlertFlow']);
    assert.match(a.text, /^\[ACKNOWLEDGED\]/);
    assert.deepEqual((telegramPayload(notice(), '1') as any).reply_markup.inline_keyboard, [], 'a notice has no buttons');
  });

  it('keeps hostile text within 4,096 characters, whole characters', () => {
    const p = telegramPayload(page(hostile), '1') as any;
    assert.ok(p.text.length <= TELEGRAM_LIMITS.text);
    assert.doesNotMatch(p.text, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('derives a webhook secret token Telegram accepts, different per organization and bot', () => {
    const s = webhookSecret('123:abc', 'org_1');
    assert.match(s, /^[A-Za-z0-9_-]{1,256}$/);
    assert.notEqual(s, webhookSecret('123:abc', 'org_2'));
    assert.notEqual(s, webhookSecret('123:abd', 'org_1'));
  });
});
