import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { startServer, stopAll, type ServerProcess } from '../support/process.ts';
import { createTestStore, STORE_KINDS, type TestStore } from '../support/stores.ts';
import { assertAccessible, browserSkipReason, freePort, OWNER, screenshot, sharedBrowser, watchErrors } from './browser.ts';

/**
 * The Heartbeats pages in Debian's Chromium against a real `alertflow serve` process, on both stores: create one
 * (a refused value in words first), see its ping URL and cron example once, ping it from the test, see it `up`,
 * edit it, delete it. Scanned with axe-core at 1280 px, at 390 px and in dark mode; photographed.
 */

const skip = browserSkipReason();

const browser = sharedBrowser();

for (const kind of STORE_KINDS) {
  describe(`heartbeats in the dashboard (${kind})`, { skip: skip ?? false }, () => {
    let store: TestStore;
    let server: ServerProcess;
    let context: BrowserContext;
    let page: Page;
    let errors: string[];
    let base: string;
    let pingUrl: string;
    const shot = (name: string) => screenshot(page, `${kind}-heartbeats-${name}`);

    before(async () => {
      store = await createTestStore(kind);
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      server = await startServer({ DATABASE_URL: store.url, PORT: String(port), BASE_URL: base });
      context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
      page = await context.newPage();
      errors = watchErrors(page);
      const link = /(https?:\/\/\S+\/setup\?token=[\w-]+)/.exec(server.output)?.[1];
      assert.ok(link, `no setup link in the log:\n${server.output}`);
      await page.goto(link);
      await page.getByLabel('Organization name').fill('Acme');
      await page.getByLabel('Your name').fill(OWNER.name);
      await page.getByLabel('Email').fill(OWNER.email);
      await page.getByLabel('Password').fill(OWNER.password);
      await page.getByRole('button', { name: 'Create organization' }).click();
      await page.getByRole('heading', { name: 'Integrations', exact: true }).waitFor();
    });
    after(async () => {
      await context?.close();
      await stopAll([server]);
      await store?.drop();
    });

    it('creates a heartbeat and shows its ping URL once, with the cron example', async () => {
      await page.getByRole('link', { name: 'Heartbeats' }).click();
      await page.getByRole('heading', { name: 'Heartbeats', exact: true }).waitFor();
      await page.getByText('No heartbeats yet').waitFor();
      await assertAccessible(page, 'heartbeats (empty)');
      await shot('empty');

      await page.getByRole('button', { name: 'New heartbeat' }).click();
      await page.getByLabel('Name', { exact: true }).fill('nightly-backup');
      await page.getByLabel('Expected every (seconds)').fill('0');
      await page.getByRole('button', { name: 'Create heartbeat' }).click();
      await page.getByRole('alert').filter({ hasText: /Expected every \(seconds\) must be >= 1/ }).waitFor();
      await assertAccessible(page, 'new heartbeat form with an error');
      await page.getByLabel('Expected every (seconds)').fill('3600');
      await page.getByRole('button', { name: 'Create heartbeat' }).click();

      const shown = page.getByTestId('ping-url');
      await shown.waitFor();
      pingUrl = (await shown.textContent()) ?? '';
      assert.match(pingUrl, new RegExp(`^${base}/api/inbound/heartbeat/hb_[\\w-]{32}$`));
      await page.getByRole('button', { name: 'Copy URL' }).click();
      await page.getByRole('button', { name: 'Copied' }).waitFor();
      assert.equal(await page.evaluate('navigator.clipboard.readText()'), pingUrl);
      const cron = (await page.getByLabel('cron example').textContent()) ?? '';
      assert.ok(cron.includes(`curl -fsS -m 10 --retry 3 -o /dev/null '${pingUrl}'`), cron);
      await assertAccessible(page, 'heartbeat created');
      await shot('created');
      await page.getByRole('button', { name: 'Done' }).click();
      assert.equal(await page.getByTestId('ping-url').count(), 0, 'the URL is not shown again');
      await page.getByRole('cell', { name: 'new', exact: true }).waitFor();
    });

    it('a ping from outside turns it up; edit, 390 px and dark mode', async () => {
      const r = await fetch(pingUrl);
      assert.equal(r.status, 200, await r.text());
      await page.reload();
      await page.getByRole('cell', { name: 'up', exact: true }).waitFor();
      await assertAccessible(page, 'heartbeats list');
      await shot('list');

      await page.getByRole('link', { name: 'nightly-backup' }).click();
      await page.getByRole('heading', { name: 'nightly-backup', exact: true }).waitFor();
      await page.getByText('Pinged in time').waitFor();
      await page.getByRole('button', { name: 'Edit' }).click();
      await page.getByLabel('Grace (seconds)').fill('900');
      await page.getByLabel('Alert severity').selectOption('high');
      await page.getByLabel('Labels').fill('just text');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('alert').filter({ hasText: 'Labels line 1 is not key=value' }).waitFor();
      await page.getByLabel('Labels').fill('team=dba\nenv=prod');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('every 1 h, 15 min grace').waitFor();
      await page.getByText('team=dba').waitFor();
      await assertAccessible(page, 'heartbeat detail');
      await shot('detail');

      await page.setViewportSize({ width: 390, height: 800 });
      await assertAccessible(page, 'heartbeat detail (390 px)');
      await shot('detail-390');
      await page.emulateMedia({ colorScheme: 'dark' });
      await assertAccessible(page, 'heartbeat detail (dark)');
      await shot('detail-dark');
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize({ width: 1280, height: 800 });
    });

    it('deletes it after a confirmation; its URL stops working', async () => {
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete heartbeat' }).click();
      await page.getByText('No heartbeats yet').waitFor();
      assert.equal((await fetch(pingUrl, { method: 'POST' })).status, 401);
      assert.deepEqual(errors, []);
    });
  });
}
