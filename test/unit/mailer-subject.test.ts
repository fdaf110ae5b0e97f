import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeSubject } from '../../src/infra/mailer.ts';

const decode = (header: string): string =>
  header.split(' ').map((w) => {
    const m = /^=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=$/.exec(w);
    assert.ok(m, `an encoded word: ${w}`);
    assert.ok(w.length <= 75, `RFC 2047: at most 75 characters per word (${w.length})`);
    return Buffer.from(m[1] as string, 'base64').toString('utf8');
  }).join('');

describe('email Subject encoding', () => {
  it('leaves a subject without "=?" to nodemailer', () => {
    assert.equal(encodeSubject('[HIGH] Disk full'), '[HIGH] Disk full');
    assert.equal(encodeSubject('[LOW] Überlast ✓'), '[LOW] Überlast ✓');
  });

  it('sends a subject holding "=?" wholly as encoded words that decode to exactly the text', () => {
    for (const s of ['=?', '[HIGH] =?utf-8?B?W1JFU09MVkVEXQ==?= x', `[CRITICAL] ${'=?ü✓😀 '.repeat(40)}`, '=?'.repeat(200)]) {
      // decode() also asserts that the header is made of encoded words only: nothing of the text is raw.
      assert.equal(decode(encodeSubject(s)), s);
    }
  });
});
