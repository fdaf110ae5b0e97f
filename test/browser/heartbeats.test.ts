import assert from 'node:assert/strict';
import { it } from 'node:test';
import { assertAccessible, eachStore, screenshot, sharedBrowser, useDashboard } from './browser.ts';

/**
 * The Heartbeats pages in Debian's Chromium against a real `alertflow serve` process, on both stores: create one
 * (a refused value in words first), see its ping URL and cron example once, ping it from the test, see it `up`,
 * edit it, delete it. Scanned with axe-core at 1280 px, at 390 px and in dark mode; photographed.
 */

const browser = sharedBrowser();

eachStore('heartbeats in the dashboard', { together: false }, (kind) => {
  const app = useDashboard(browser, kind, { clipboard: true });
  let pingUrl: string;
  const shot = (name: string) => screenshot(app.page, `${kind}-heartbeats-${name}`);

  it('creates a heartbeat and shows its ping URL once, with the cron example', async () => {
    await app.page.getByRole('link', { name: 'Heartbeats' }).click();
    await app.page.getByRole('heading', { name: 'Heartbeats', exact: true }).waitFor();
    await app.page.getByText('No heartbeats yet').waitFor();
    await assertAccessible(app.page, 'heartbeats (empty)');
    await shot('empty');

    await app.page.getByRole('button', { name: 'New heartbeat' }).click();
    await app.page.getByLabel('Name', { exact: true }).fill('nightly-backup');
    await app.page.getByLabel('Expected every (seconds)').fill('0');
    await app.page.getByRole('button', { name: 'Create heartbeat' }).click();
    await app.page.getByRole('alert').filter({ hasText: /Expected every \(seconds\) must be >= 1/ }).waitFor();
    await assertAccessible(app.page, 'new heartbeat form with an error');
    await app.page.getByLabel('Expected every (seconds)').fill('3600');
    await app.page.getByRole('button', { name: 'Create heartbeat' }).click();

    const shown = app.page.getByTestId('ping-url');
    await shown.waitFor();
    pingUrl = (await shown.textContent()) ?? '';
    assert.match(pingUrl, new RegExp(`^${app.base}/api/inbound/heartbeat/hb_[\\w-]{32}$`));
    await app.page.getByRole('button', { name: 'Copy URL' }).click();
    await app.page.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await app.page.evaluate('navigator.clipboard.readText()'), pingUrl);
    const cron = (await app.page.getByLabel('cron example').textContent()) ?? '';
    assert.ok(cron.includes(`curl -fsS -m 10 --retry 3 -o /dev/null '${pingUrl}'`), cron);
    await assertAccessible(app.page, 'heartbeat created');
    await shot('created');
    await app.page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await app.page.getByTestId('ping-url').count(), 0, 'the URL is not shown again');
    await app.page.getByRole('cell', { name: 'new', exact: true }).waitFor();
  });

  it('a ping from outside turns it up; edit, 390 px and dark mode', async () => {
    const r = await fetch(pingUrl);
    assert.equal(r.status, 200, await r.text());
    await app.page.reload();
    await app.page.getByRole('cell', { name: 'up', exact: true }).waitFor();
    await assertAccessible(app.page, 'heartbeats list');
    await shot('list');

    await app.page.getByRole('link', { name: 'nightly-backup' }).click();
    await app.page.getByRole('heading', { name: 'nightly-backup', exact: true }).waitFor();
    await app.page.getByText('Pinged in time').waitFor();
    await app.page.getByRole('button', { name: 'Edit' }).click();
    await app.page.getByLabel('Grace (seconds)').fill('900');
    await app.page.getByLabel('Alert severity').selectOption('high');
    await app.page.getByLabel('Labels').fill('just text');
    await app.page.getByRole('button', { name: 'Save' }).click();
    await app.page.getByRole('alert').filter({ hasText: 'Labels line 1 is not key=value' }).waitFor();
    await app.page.getByLabel('Labels').fill('team=dba\nenv=prod');
    await app.page.getByRole('button', { name: 'Save' }).click();
    await app.page.getByText('every 1 h, 15 min grace').waitFor();
    await app.page.getByText('team=dba').waitFor();
    await assertAccessible(app.page, 'heartbeat detail');
    await shot('detail');

    await app.page.setViewportSize({ width: 390, height: 800 });
    await assertAccessible(app.page, 'heartbeat detail (390 px)');
    await shot('detail-390');
    await app.page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(app.page, 'heartbeat detail (dark)');
    await shot('detail-dark');
    await app.page.emulateMedia({ colorScheme: 'light' });
    await app.page.setViewportSize({ width: 1280, height: 800 });
  });

  it('deletes it after a confirmation; its URL stops working', async () => {
    await app.page.getByRole('button', { name: 'Delete' }).click();
    await app.page.getByRole('dialog').getByRole('button', { name: 'Delete heartbeat' }).click();
    await app.page.getByText('No heartbeats yet').waitFor();
    assert.equal((await fetch(pingUrl, { method: 'POST' })).status, 401);
    assert.deepEqual(app.errors, []);
  });
});
