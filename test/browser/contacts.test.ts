import assert from 'node:assert/strict';
import { it } from 'node:test';
import { apiAsBrowser, assertAccessible, assertAccessibleNarrowAndDark, eachStore, OWNER, screenshot, sharedBrowser, useDashboard } from './browser.ts';

/**
 * The contact methods page in Debian's Chromium against a real `alertflow serve`, on both stores: from the profile,
 * add an ntfy method (a refused URL in words first) and an email method, set "ntfy at once, email after 3 minutes",
 * reload and see them, reorder, edit keeping the token, delete with a confirmation. axe at 1280 px, 390 px and dark.
 */

const browser = sharedBrowser();

eachStore('contact methods in the dashboard', { together: true }, (kind) => {
  const app = useDashboard(browser, kind);
  const shot = (name: string) => screenshot(app.page, `${kind}-contacts-${name}`);
  const api = async (method: string, path: string) => {
    const r = await apiAsBrowser(app.server, app.context, method, path);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data;
  };
  const ruleRows = async () => {
    const rows = app.page.getByTestId('rule');
    const out: string[] = [];
    for (let i = 0; i < await rows.count(); i++) {
      const minutes = await app.page.getByLabel(`Rule ${i + 1}: after (minutes)`).inputValue();
      const method = app.page.getByLabel(`Rule ${i + 1}: contact method`);
      const chosen = await method.locator('option:checked').textContent();
      out.push(`${minutes} → ${chosen}`);
    }
    return out;
  };

  it('adds an ntfy and an email method from the profile, a refused URL said in words first', async () => {
    await app.page.getByRole('link', { name: 'Your profile' }).click();
    await app.page.getByRole('link', { name: 'Contact methods and notification rules' }).click();
    await app.page.getByRole('heading', { name: 'Contact methods', exact: true }).waitFor();
    await app.page.getByText('No contact methods yet').waitFor();
    await app.page.getByText(OWNER.email).first().waitFor();
    await assertAccessible(app.page, 'contact methods (empty)');
    await shot('empty');

    await app.page.getByRole('button', { name: 'Add contact method' }).click();
    await app.page.getByLabel('Type').selectOption({ label: 'ntfy push' });
    await app.page.getByLabel('Server URL').fill('ftp://ntfy.example.com');
    await app.page.getByLabel('Topic').fill('olive-pages');
    await app.page.getByLabel('Access token').fill('tk_olive_secret');
    await app.page.getByLabel('Label').fill('Phone');
    await app.page.getByRole('button', { name: 'Add', exact: true }).click();
    await app.page.getByRole('alert').filter({ hasText: 'Server URL must use http or https' }).waitFor();
    await assertAccessible(app.page, 'contact method form with an error');
    await app.page.getByLabel('Server URL').fill('https://ntfy.example.com');
    await app.page.getByRole('button', { name: 'Add', exact: true }).click();
    await app.page.getByTestId('contact-method').filter({ hasText: 'Phone' }).waitFor();

    await app.page.getByRole('button', { name: 'Add contact method' }).click();
    await app.page.getByLabel('Type').selectOption({ label: 'Email' });
    await app.page.getByLabel('Email address').fill('olive@pager.test');
    await app.page.getByRole('button', { name: 'Add', exact: true }).click();
    await app.page.getByTestId('contact-method').filter({ hasText: 'olive@pager.test' }).waitFor();
    const methods = await api('GET', '/users/me/contact-methods');
    assert.deepEqual(methods.map((m: { type: string; label: string }) => `${m.type} ${m.label}`), ['ntfy Phone', 'email olive@pager.test']);
    assert.equal(methods[0].target.token, '********');
  });

  it('sets "ntfy at once, email after 3 minutes", sees them after a reload, and reorders them', async () => {
    await app.page.getByRole('button', { name: 'Add rule' }).click();
    await app.page.getByRole('button', { name: 'Add rule' }).click();
    await app.page.getByLabel('Rule 2: contact method').selectOption({ label: 'olive@pager.test' });
    await app.page.getByLabel('Rule 2: after (minutes)').fill('3');
    await app.page.getByRole('button', { name: 'Save rules' }).click();
    await app.page.getByText('Rules saved.').waitFor();
    await app.page.reload();
    await app.page.getByTestId('rule').nth(1).waitFor();
    assert.deepEqual(await ruleRows(), ['0 → Phone', '3 → olive@pager.test']);
    const [phone, email] = await api('GET', '/users/me/contact-methods');
    assert.deepEqual((await api('GET', '/users/me/notification-rules')).rules, [{ contactMethodId: phone.id, afterMinutes: 0 }, { contactMethodId: email.id, afterMinutes: 3 }]);
    await assertAccessible(app.page, 'contact methods with rules');
    await shot('rules');

    await app.page.getByRole('button', { name: 'Move rule 2 up' }).click();
    await app.page.getByRole('button', { name: 'Save rules' }).click();
    await app.page.getByText('Rules saved.').waitFor();
    await app.page.reload();
    await app.page.getByTestId('rule').nth(1).waitFor();
    assert.deepEqual(await ruleRows(), ['3 → olive@pager.test', '0 → Phone']);
  });

  it('edits a method keeping its token; 390 px and dark mode', async () => {
    await app.page.getByRole('button', { name: 'Edit Phone' }).click();
    assert.equal(await app.page.getByLabel('Access token').inputValue(), '********', 'the mask stands for the stored token');
    await app.page.getByLabel('Label').fill('My phone');
    await app.page.getByRole('button', { name: 'Save', exact: true }).click();
    await app.page.getByTestId('contact-method').filter({ hasText: 'My phone' }).waitFor();
    const [phone] = await api('GET', '/users/me/contact-methods');
    assert.deepEqual([phone.label, phone.target.token], ['My phone', '********'], 'the token is still stored');

    await assertAccessibleNarrowAndDark(app.page, 'contact methods', `${kind}-contacts`);
  });

  it('deletes a method after a confirmation; its rule goes with it', async () => {
    await app.page.getByRole('button', { name: 'Delete olive@pager.test' }).click();
    await app.page.getByRole('dialog').getByRole('button', { name: 'Delete contact method' }).click();
    await app.page.getByTestId('contact-method').filter({ hasText: 'olive@pager.test' }).waitFor({ state: 'detached' });
    await app.page.getByTestId('rule').nth(1).waitFor({ state: 'detached' });
    assert.deepEqual(await ruleRows(), ['0 → My phone']);
    assert.equal((await api('GET', '/users/me/notification-rules')).rules.length, 1);
    assert.deepEqual(app.errors, []);
  });
});
