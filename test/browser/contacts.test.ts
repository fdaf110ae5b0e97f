import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { startServer, stopAll, type ServerProcess } from '../support/process.ts';
import { createTestStore, STORE_KINDS, type TestStore } from '../support/stores.ts';
import { apiAsBrowser, assertAccessible, assertAccessibleNarrowAndDark, browserSkipReason, freePort, OWNER, screenshot, setUpOrganization, sharedBrowser, watchErrors } from './browser.ts';

/**
 * The contact methods page in Debian's Chromium against a real `alertflow serve`, on both stores: from the profile,
 * add an ntfy method (a refused URL in words first) and an email method, set "ntfy at once, email after 3 minutes",
 * reload and see them, reorder, edit keeping the token, delete with a confirmation. axe at 1280 px, 390 px and dark.
 */

const skip = browserSkipReason();

const browser = sharedBrowser();

for (const kind of STORE_KINDS) {
  describe(`contact methods in the dashboard (${kind})`, { skip: skip ?? false }, () => {
    let store: TestStore;
    let server: ServerProcess;
    let context: BrowserContext;
    let page: Page;
    let errors: string[];
    const shot = (name: string) => screenshot(page, `${kind}-contacts-${name}`);
    const api = async (method: string, path: string) => {
      const r = await apiAsBrowser(server, context, method, path);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data;
    };
    const ruleRows = async () => {
      const rows = page.getByTestId('rule');
      const out: string[] = [];
      for (let i = 0; i < await rows.count(); i++) {
        const minutes = await page.getByLabel(`Rule ${i + 1}: after (minutes)`).inputValue();
        const method = page.getByLabel(`Rule ${i + 1}: contact method`);
        const chosen = await method.locator('option:checked').textContent();
        out.push(`${minutes} → ${chosen}`);
      }
      return out;
    };

    before(async () => {
      store = await createTestStore(kind);
      const port = await freePort();
      server = await startServer({ DATABASE_URL: store.url, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}` });
      context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
      page = await context.newPage();
      errors = watchErrors(page);
      await setUpOrganization(page, server, OWNER);
    });
    after(async () => {
      await context?.close();
      await stopAll([server]);
      await store?.drop();
    });

    it('adds an ntfy and an email method from the profile, a refused URL said in words first', async () => {
      await page.getByRole('link', { name: 'Your profile' }).click();
      await page.getByRole('link', { name: 'Contact methods and notification rules' }).click();
      await page.getByRole('heading', { name: 'Contact methods', exact: true }).waitFor();
      await page.getByText('No contact methods yet').waitFor();
      await page.getByText(OWNER.email).first().waitFor();
      await assertAccessible(page, 'contact methods (empty)');
      await shot('empty');

      await page.getByRole('button', { name: 'Add contact method' }).click();
      await page.getByLabel('Type').selectOption({ label: 'ntfy push' });
      await page.getByLabel('Server URL').fill('ftp://ntfy.example.com');
      await page.getByLabel('Topic').fill('olive-pages');
      await page.getByLabel('Access token').fill('tk_olive_secret');
      await page.getByLabel('Label').fill('Phone');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'Server URL must use http or https' }).waitFor();
      await assertAccessible(page, 'contact method form with an error');
      await page.getByLabel('Server URL').fill('https://ntfy.example.com');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByTestId('contact-method').filter({ hasText: 'Phone' }).waitFor();

      await page.getByRole('button', { name: 'Add contact method' }).click();
      await page.getByLabel('Type').selectOption({ label: 'Email' });
      await page.getByLabel('Email address').fill('olive@pager.test');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByTestId('contact-method').filter({ hasText: 'olive@pager.test' }).waitFor();
      const methods = await api('GET', '/users/me/contact-methods');
      assert.deepEqual(methods.map((m: { type: string; label: string }) => `${m.type} ${m.label}`), ['ntfy Phone', 'email olive@pager.test']);
      assert.equal(methods[0].target.token, '********');
    });

    it('sets "ntfy at once, email after 3 minutes", sees them after a reload, and reorders them', async () => {
      await page.getByRole('button', { name: 'Add rule' }).click();
      await page.getByRole('button', { name: 'Add rule' }).click();
      await page.getByLabel('Rule 2: contact method').selectOption({ label: 'olive@pager.test' });
      await page.getByLabel('Rule 2: after (minutes)').fill('3');
      await page.getByRole('button', { name: 'Save rules' }).click();
      await page.getByText('Rules saved.').waitFor();
      await page.reload();
      await page.getByTestId('rule').nth(1).waitFor();
      assert.deepEqual(await ruleRows(), ['0 → Phone', '3 → olive@pager.test']);
      const [phone, email] = await api('GET', '/users/me/contact-methods');
      assert.deepEqual((await api('GET', '/users/me/notification-rules')).rules, [{ contactMethodId: phone.id, afterMinutes: 0 }, { contactMethodId: email.id, afterMinutes: 3 }]);
      await assertAccessible(page, 'contact methods with rules');
      await shot('rules');

      await page.getByRole('button', { name: 'Move rule 2 up' }).click();
      await page.getByRole('button', { name: 'Save rules' }).click();
      await page.getByText('Rules saved.').waitFor();
      await page.reload();
      await page.getByTestId('rule').nth(1).waitFor();
      assert.deepEqual(await ruleRows(), ['3 → olive@pager.test', '0 → Phone']);
    });

    it('edits a method keeping its token; 390 px and dark mode', async () => {
      await page.getByRole('button', { name: 'Edit Phone' }).click();
      assert.equal(await page.getByLabel('Access token').inputValue(), '********', 'the mask stands for the stored token');
      await page.getByLabel('Label').fill('My phone');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByTestId('contact-method').filter({ hasText: 'My phone' }).waitFor();
      const [phone] = await api('GET', '/users/me/contact-methods');
      assert.deepEqual([phone.label, phone.target.token], ['My phone', '********'], 'the token is still stored');

      await assertAccessibleNarrowAndDark(page, 'contact methods', `${kind}-contacts`);
    });

    it('deletes a method after a confirmation; its rule goes with it', async () => {
      await page.getByRole('button', { name: 'Delete olive@pager.test' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete contact method' }).click();
      await page.getByTestId('contact-method').filter({ hasText: 'olive@pager.test' }).waitFor({ state: 'detached' });
      await page.getByTestId('rule').nth(1).waitFor({ state: 'detached' });
      assert.deepEqual(await ruleRows(), ['0 → My phone']);
      assert.equal((await api('GET', '/users/me/notification-rules')).rules.length, 1);
      assert.deepEqual(errors, []);
    });
  });
}
