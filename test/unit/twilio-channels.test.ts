import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import type { ChannelDeps } from '../../src/modules/notifications/channels/channel.ts';
import { HELP, parseReply, SMS_LIMITS, smsText } from '../../src/modules/notifications/channels/sms.ts';
import { fromNumberFor, twilioSignature } from '../../src/modules/notifications/channels/twilio.ts';
import { callTwiml, VOICE_LIMITS } from '../../src/modules/notifications/channels/voice.ts';
import { alertOf, hostile, notice, page } from '../support/pages.ts';

const deps = { baseUrl: 'https://alertflow.example.com' } as ChannelDeps;

describe('Twilio request signatures', () => {
  it('matches the example of Twilio\'s security documentation', () => {
    // https://www.twilio.com/docs/usage/security#validating-requests: this URL, these parameters, auth token 12345.
    const params: Array<[string, string]> = [['CallSid', 'CA1234567890ABCDE'], ['Caller', '+12349013030'], ['Digits', '1234'], ['From', '+12349013030'], ['To', '+18005551212']];
    assert.equal(twilioSignature('12345', 'https://mycompany.com/myapp.php?foo=1&bar=2', params), '0/KCTR6DLpKmkAf8muzZqo1nDgQ=');
    assert.equal(twilioSignature('12345', 'https://mycompany.com/myapp.php?foo=1&bar=2', [...params].reverse()), '0/KCTR6DLpKmkAf8muzZqo1nDgQ=', 'parameters in any order');
    assert.notEqual(twilioSignature('12345', 'https://mycompany.com/myapp.php?foo=1&bar=3', params), '0/KCTR6DLpKmkAf8muzZqo1nDgQ=', 'the query is signed');
  });

  it('gives a destination always the same sending number of the pool', () => {
    const t = { accountSid: 'AC', authToken: 't', apiUrl: '', fromNumbers: ['+15005550001', '+15005550002', '+15005550003'] };
    const chosen = new Set(Array.from({ length: 60 }, (_, i) => fromNumberFor(t, `+491510000${String(i).padStart(4, '0')}`)));
    assert.equal(chosen.size, 3, 'spread over the pool');
    assert.equal(fromNumberFor(t, '+4915100001234'), fromNumberFor(t, '+4915100001234'));
  });
});

describe('the SMS reply grammar', () => {
  const cases: Array<[string, ReturnType<typeof parseReply>]> = [
    ['12', { code: '12', action: 'acknowledge' }], [' 12 ', { code: '12', action: 'acknowledge' }], ['#12', { code: '12', action: 'acknowledge' }],
    ['12R', { code: '12', action: 'resolve' }], ['12 r', { code: '12', action: 'resolve' }],
    ['R12', null], ['12RR', null], ['ack 12', null], ['', null], ['1234567', null], ['12\nR', null],
  ];
  for (const [body, expected] of cases) it(JSON.stringify(body), () => assert.deepEqual(parseReply(body), expected));
  it('has a help text naming the grammar', () => assert.match(HELP, /e\.g\. 12.*12R/));
});

describe('SMS rendering', () => {
  it('names severity, incident and title, and the reply code', () => {
    assert.equal(smsText({ ...page(alertOf()), replyCode: '7' }), 'AlertFlow [CRITICAL] #7 Disk almost full on db1 Reply 7 to acknowledge, 7R to resolve.');
    assert.equal(smsText(page(alertOf())), 'AlertFlow [CRITICAL] #7 Disk almost full on db1 https://alertflow.example.com/alerts/alt_1', 'no code: the link');
    assert.equal(smsText(notice()), '[TEST] AlertFlow test page for Ops. This is a test page.');
  });

  it('keeps hostile text on one line, within two texts, the code whole', () => {
    const text = smsText({ ...page(hostile), replyCode: '4821' });
    assert.ok(text.length <= SMS_LIMITS.chars, String(text.length));
    assert.doesNotMatch(text, /[\u0000-\u001f\u2028\u2029]/);
    assert.ok(text.endsWith('Reply 4821 to acknowledge, 4821R to resolve.'));
    assert.doesNotMatch(text, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])/, 'no half surrogate pair');
  });
});

describe('voice TwiML', () => {
  it('reads the page and gathers one key twice, then ends unanswered', () => {
    const xml = callTwiml(deps, page(alertOf()));
    assert.match(xml, /^<Response><Gather input="dtmf" numDigits="1" timeout="8" method="POST" action="https:\/\/alertflow\.example\.com\/api\/inbound\/channels\/voice\/gather\?n=ntf_1&amp;r=0"><Say>AlertFlow page\. critical\. #7 Disk almost full on db1\. Press 4 to acknowledge, 6 to resolve\.<\/Say><\/Gather>/);
    assert.equal((xml.match(/<Gather /g) ?? []).length, 2);
    assert.ok(xml.endsWith('<Say>No key was pressed. Goodbye.</Say><Hangup/></Response>'));
  });

  it('escapes hostile text into well-formed XML within Twilio\'s 4,000 characters', () => {
    const xml = callTwiml(deps, page(hostile));
    assert.ok(xml.length <= VOICE_LIMITS.twiml, String(xml.length));
    const says = [...xml.matchAll(/<Say>([^<]*)<\/Say>/g)].map((m) => m[1] as string);
    assert.ok(says.length >= 3, 'every Say closed, no markup from the title inside');
    assert.ok(says.every((t) => !/[<>\u0000-\u0008]/.test(t) && !/&(?!(amp|lt|gt|quot|apos);)/.test(t)));
    const n = callTwiml(deps, notice({ text: 'Your AlertFlow code is 1 2 3 4 5 6.' }));
    assert.equal((n.match(/1 2 3 4 5 6/g) ?? []).length, 2, 'a notice is read twice');
  });
});

describe('Twilio configuration', () => {
  const sid = `AC${'a'.repeat(32)}`;
  it('is off without it, complete with it, and refuses a partial or malformed one', () => {
    assert.equal(loadConfig({}).providers.twilio, null);
    const t = loadConfig({ TWILIO_ACCOUNT_SID: sid, TWILIO_AUTH_TOKEN: 'x'.repeat(32), TWILIO_FROM_NUMBER: '+15005550006, +15005550007' }).providers.twilio;
    assert.deepEqual(t, { accountSid: sid, authToken: 'x'.repeat(32), fromNumbers: ['+15005550006', '+15005550007'], apiUrl: 'https://api.twilio.com' });
    assert.throws(() => loadConfig({ TWILIO_ACCOUNT_SID: sid }), /TWILIO_AUTH_TOKEN and TWILIO_FROM_NUMBER must be set too/);
    assert.throws(() => loadConfig({ TWILIO_ACCOUNT_SID: 'sid', TWILIO_AUTH_TOKEN: 'x'.repeat(32), TWILIO_FROM_NUMBER: '+15005550006' }), /TWILIO_ACCOUNT_SID must be/);
    assert.throws(() => loadConfig({ TWILIO_ACCOUNT_SID: sid, TWILIO_AUTH_TOKEN: 'x'.repeat(32), TWILIO_FROM_NUMBER: '015005550006' }), /TWILIO_FROM_NUMBER must be E\.164/);
    assert.throws(() => loadConfig({ TWILIO_API_URL: 'ftp://x' }), /TWILIO_API_URL/);
  });
});
