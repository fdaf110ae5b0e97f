import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { linkMail } from '../../src/modules/users/users-fns.ts';

describe('the set-password email', () => {
  const base = { url: 'https://alertflow.test/set-password?token=abc', expiresAt: Date.parse('2026-11-29T15:48:00Z'), role: 'member', orgName: 'Acme <Ops>', zone: 'Europe/Berlin' };

  it('names the organization and the inviter, and the expiry on the organization\'s clock with its zone', () => {
    const m = linkMail({ ...base, inviter: 'Olga Owner' });
    assert.equal(m.subject, 'Join Acme <Ops> on AlertFlow: set your password');
    assert.match(m.text, /^Olga Owner invited you to Acme <Ops> on AlertFlow \(role: member\)\./);
    assert.ok(m.text.includes('until Sunday, 29 November 2026 at 16:48 (Europe/Berlin)'), m.text);
    assert.ok(m.text.includes(base.url));
    assert.ok(!m.text.includes('2026-11-29T15:48'), 'no UTC timestamp');
    assert.ok(m.html.includes('Acme &lt;Ops&gt;') && !m.html.includes('<Ops>'), 'the html escapes what people typed');
  });

  it('says "An administrator" when an API key made the link', () => {
    assert.match(linkMail({ ...base, inviter: null }).text, /^An administrator invited you to Acme <Ops>/);
  });
});
