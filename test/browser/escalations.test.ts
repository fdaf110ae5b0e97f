import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { startServer, stopAll, type ServerProcess } from '../support/process.ts';
import { createTestStore, STORE_KINDS, type TestStore } from '../support/stores.ts';
import { assertAccessible, browserSkipReason, freePort, OWNER, screenshot, setUpOrganization, sharedBrowser, watchErrors } from './browser.ts';

/**
 * The Escalation policies pages in Debian's Chromium against a real `alertflow serve` process, on both stores:
 * an empty list, a policy refused in words (no member chosen), then made with two steps (a member, then an email
 * channel after 5 minutes), its detail, and deleted. Scanned with axe-core at 1280 px, at 390 px and in dark mode.
 */

const skip = browserSkipReason();

const browser = sharedBrowser();

for (const kind of STORE_KINDS) {
  describe(`escalation policies in the dashboard (${kind})`, { skip: skip ?? false }, () => {
    let store: TestStore;
    let server: ServerProcess;
    let context: BrowserContext;
    let page: Page;
    let errors: string[];
    const shot = (name: string) => screenshot(page, `${kind}-escalations-${name}`);

    before(async () => {
      store = await createTestStore(kind);
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      server = await startServer({ DATABASE_URL: store.url, PORT: String(port), BASE_URL: base });
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

    it('makes a two-step policy, after a refusal in words', async () => {
      await page.getByRole('link', { name: 'Escalation' }).click();
      await page.getByRole('heading', { name: 'Escalation policies', exact: true }).waitFor();
      await page.getByText('No escalation policies yet').waitFor();
      await assertAccessible(page, 'escalation policies (empty)');
      await shot('empty');

      await page.getByRole('button', { name: 'New policy' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Databases');
      await page.getByRole('button', { name: 'Create policy' }).click();
      await page.getByRole('alert').filter({ hasText: 'Member must not be empty' }).first().waitFor();
      await assertAccessible(page, 'new policy form with an error');

      await page.getByLabel('Member').selectOption({ label: `${OWNER.name} <${OWNER.email}>` });
      await page.getByRole('button', { name: 'Add step' }).click();
      await page.getByLabel('Target 1: page').nth(1).selectOption('channel');
      await page.getByLabel('Email address').fill('team@example.test');
      await assertAccessible(page, 'new policy form, two steps');
      await shot('form');
      await page.getByRole('button', { name: 'Create policy' }).click();
      await page.getByRole('cell', { name: `at once: ${OWNER.name} <${OWNER.email}>; after 5 min: email team@example.test` }).waitFor();
      await assertAccessible(page, 'escalation policies list');
      await shot('list');
    });

    it('shows the policy at 390 px and in dark mode, then deletes it', async () => {
      await page.getByRole('link', { name: 'Databases' }).click();
      await page.getByRole('heading', { name: 'Databases', exact: true }).waitFor();
      await page.getByText('Page email team@example.test; then wait 5 min (the last step).').waitFor();
      await assertAccessible(page, 'policy detail');
      await page.setViewportSize({ width: 390, height: 800 });
      await assertAccessible(page, 'policy detail (390 px)');
      await shot('detail-390');
      await page.emulateMedia({ colorScheme: 'dark' });
      await assertAccessible(page, 'policy detail (dark)');
      await shot('detail-dark');
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1280, height: 800 });

      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete policy' }).click();
      await page.getByText('No escalation policies yet').waitFor();
      assert.deepEqual(errors, []);
    });
  });
}
