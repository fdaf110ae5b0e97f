import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { startServer, stopAll, type ServerProcess } from '../support/process.ts';
import { apiAsBrowser, assertAccessible, eachStore, ingestAt, screenshot, sharedBrowser, useDashboard } from './browser.ts';

/**
 * Live updates in Debian's Chromium against real `alertflow serve` processes: an open alerts page shows an alert
 * ingested after it loaded, and drops it when resolved, without a reload; the tab title counts the firing alerts.
 * On PostgreSQL the page is served by one process and the alert ingested through another.
 */

const browser = sharedBrowser();

eachStore('live alerts in the dashboard', { together: true, timeout: 180_000, detail: (kind) => (kind === 'postgres' ? ', page served by one process, alert ingested through another' : '') }, (kind) => {
  const two = kind === 'postgres';
  // The second process stops before useDashboard's hooks drop the store it is connected to: after() hooks run in
  // the order they were added.
  let second: ServerProcess | undefined;
  after(async () => {
    await stopAll([second]);
  });
  const app = useDashboard(browser, kind);
  // The second process starts after the setup: on an empty store it would issue a new setup link.
  if (two) {
    before(async () => {
      second = await startServer({ DATABASE_URL: app.store.url });
    });
  }

  it('an alert ingested after the page loaded appears, then leaves when resolved, without a reload; the title counts firing alerts', async () => {
    const ingestServer = second ?? app.server;
    const integ = await apiAsBrowser(app.server, app.context, 'POST', '/integrations', { name: 'prometheus' });
    assert.equal(integ.status, 201, integ.raw);
    await app.page.getByRole('link', { name: 'Alerts' }).click();
    await app.page.getByRole('heading', { name: 'Alerts', exact: true }).waitFor();
    await app.page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    assert.equal(await app.page.title(), 'Alerts · AlertFlow');
    let navigations = 0;
    app.page.on('framenavigated', () => { navigations += 1; });

    const alertId = await ingestAt(`${ingestServer.url}/api/inbound/webhook/${integ.body.data.token}`, { title: 'Disk full on db1', severity: 'critical' });
    const row = app.page.getByRole('link', { name: 'Disk full on db1' });
    await row.waitFor({ timeout: 10_000 });
    await eventually('the title (1) Alerts · AlertFlow', async () => ((await app.page.title()) === '(1) Alerts · AlertFlow' ? true : undefined), 10_000);
    await assertAccessible(app.page, 'live alerts');
    await screenshot(app.page, `${kind}-live-alerts`);
    await app.page.emulateMedia({ colorScheme: 'dark' });
    await app.page.setViewportSize({ width: 390, height: 800 });
    await assertAccessible(app.page, 'live alerts (390 px, dark)');
    await app.page.setViewportSize({ width: 1280, height: 800 });
    await app.page.emulateMedia({ colorScheme: 'light' });

    const resolved = await apiAsBrowser(ingestServer, app.context, 'POST', `/alerts/${alertId}/resolve`, {});
    assert.equal(resolved.status, 200, resolved.raw);
    await row.waitFor({ state: 'detached', timeout: 10_000 });
    await eventually('the title Alerts · AlertFlow', async () => ((await app.page.title()) === 'Alerts · AlertFlow' ? true : undefined), 10_000);
    assert.equal(navigations, 0, 'the page was not reloaded');
    assert.deepEqual(app.errors, []);
  });

  it('the notification toggle is remembered', async () => {
    const toggle = app.page.getByLabel('Alert me on new critical alerts');
    assert.equal(await toggle.isChecked(), false);
    await toggle.check();
    await app.page.reload();
    await app.page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    assert.equal(await app.page.getByLabel('Alert me on new critical alerts').isChecked(), true);
  });

  it('signed out elsewhere, the open page ends its stream and goes to the sign-in page by itself', async () => {
    const out = await apiAsBrowser(app.server, app.context, 'POST', '/auth/logout');
    assert.equal(out.status, 204, out.raw);
    await app.page.waitForURL(/\/sign-in/, { timeout: 20_000 });
  });
});
