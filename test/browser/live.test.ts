import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { startServer, stopAll, type ServerProcess } from '../support/process.ts';
import { createTestStore, STORE_KINDS, type TestStore } from '../support/stores.ts';
import { apiAsBrowser, assertAccessible, browserSkipReason, freePort, ingestAt, OWNER, screenshot, setUpOrganization, sharedBrowser, watchErrors } from './browser.ts';

/**
 * Live updates in Debian's Chromium against real `alertflow serve` processes: an open alerts page shows an alert
 * ingested after it loaded, and drops it when resolved, without a reload; the tab title counts the firing alerts.
 * On PostgreSQL the page is served by one process and the alert ingested through another.
 */

const skip = browserSkipReason();

const browser = sharedBrowser();

for (const kind of STORE_KINDS) {
  const two = kind === 'postgres';
  describe(`live alerts in the dashboard (${kind}${two ? ', page served by one process, alert ingested through another' : ''})`, { skip: skip ?? false, timeout: 180_000 }, () => {
    let store: TestStore;
    let servers: ServerProcess[] = [];
    let context: BrowserContext;
    let page: Page;
    let errors: string[];

    before(async () => {
      store = await createTestStore(kind);
      const port = await freePort();
      servers.push(await startServer({ DATABASE_URL: store.url, PORT: String(port), BASE_URL: `http://127.0.0.1:${port}` }));
      context = await browser().newContext({ viewport: { width: 1280, height: 800 } });
      page = await context.newPage();
      errors = watchErrors(page);
      await setUpOrganization(page, servers[0] as ServerProcess, OWNER);
      // The second process starts after the setup: on an empty store it would issue a new setup link.
      if (two) servers.push(await startServer({ DATABASE_URL: store.url }));
    });
    after(async () => {
      await context?.close();
      await stopAll(servers);
      await store?.drop();
    });

    it('an alert ingested after the page loaded appears, then leaves when resolved, without a reload; the title counts firing alerts', async () => {
      const pageServer = servers[0] as ServerProcess;
      const ingestServer = servers[two ? 1 : 0] as ServerProcess;
      const integ = await apiAsBrowser(pageServer, context, 'POST', '/integrations', { name: 'prometheus' });
      assert.equal(integ.status, 201, integ.raw);
      await page.getByRole('link', { name: 'Alerts' }).click();
      await page.getByRole('heading', { name: 'Alerts', exact: true }).waitFor();
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      assert.equal(await page.title(), 'Alerts · AlertFlow');
      let navigations = 0;
      page.on('framenavigated', () => { navigations += 1; });

      const alertId = await ingestAt(`${ingestServer.url}/api/inbound/webhook/${integ.body.data.token}`, { title: 'Disk full on db1', severity: 'critical' });
      const row = page.getByRole('link', { name: 'Disk full on db1' });
      await row.waitFor({ timeout: 10_000 });
      await page.waitForFunction(`document.title === '(1) Alerts · AlertFlow'`, undefined, { timeout: 10_000 });
      await assertAccessible(page, 'live alerts');
      await screenshot(page, `${kind}-live-alerts`);
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.setViewportSize({ width: 390, height: 800 });
      await assertAccessible(page, 'live alerts (390 px, dark)');
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.emulateMedia({ colorScheme: 'light' });

      const resolved = await apiAsBrowser(ingestServer, context, 'POST', `/alerts/${alertId}/resolve`, {});
      assert.equal(resolved.status, 200, resolved.raw);
      await row.waitFor({ state: 'detached', timeout: 10_000 });
      await page.waitForFunction(`document.title === 'Alerts · AlertFlow'`, undefined, { timeout: 10_000 });
      assert.equal(navigations, 0, 'the page was not reloaded');
      assert.deepEqual(errors, []);
    });

    it('the notification toggle is remembered', async () => {
      const toggle = page.getByLabel('Alert me on new critical alerts');
      assert.equal(await toggle.isChecked(), false);
      await toggle.check();
      await page.reload();
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      assert.equal(await page.getByLabel('Alert me on new critical alerts').isChecked(), true);
    });

    it('signed out elsewhere, the open page ends its stream and goes to the sign-in page by itself', async () => {
      const out = await apiAsBrowser(servers[0] as ServerProcess, context, 'POST', '/auth/logout');
      assert.equal(out.status, 204, out.raw);
      await page.waitForURL(/\/sign-in/, { timeout: 20_000 });
    });
  });
}
