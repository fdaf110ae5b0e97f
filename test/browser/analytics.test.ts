import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';
import { apiAsBrowser, assertAccessible, assertAccessibleNarrowAndDark, eachStore, ingestAt, screenshot, sharedBrowser, useDashboard } from './browser.ts';

/**
 * Analytics, the client board and a client report in Debian's Chromium against a real `alertflow serve`, on both
 * stores: figures as charts and tables, CSV downloads, the board sorted by what burns, the report printable, sender
 * text inert. Each page is scanned with axe at 1280 px, at 390 px and in dark mode, and photographed.
 */

const browser = sharedBrowser();
const HOSTILE = '<img src=x onerror="window.pwned=1">Checkout down';

eachStore('analytics in the dashboard', { together: true }, (kind) => {
  const app = useDashboard(browser, kind);
  const shot = (name: string) => screenshot(app.page, `${kind}-analytics-${name}`);
  const api = (method: string, path: string, body?: unknown) => apiAsBrowser(app.server, app.context, method, path, body);
  let alpha: string;

  /** The CSV a button offers, as text. */
  async function download(button: string, nth = 0): Promise<{ name: string; text: string }> {
    const [file] = await Promise.all([app.page.waitForEvent('download'), app.page.getByRole('button', { name: button }).nth(nth).click()]);
    return { name: file.suggestedFilename(), text: await readFile(await file.path(), 'utf8') };
  }

  it('the client board: the burning client first, the one in maintenance marked, sender text as text', async () => {
    const client = async (name: string, body: Record<string, unknown> = {}) => {
      const r = await api('POST', '/clients', { name, slug: name.toLowerCase(), ...body });
      assert.equal(r.status, 201, r.raw);
      return r.body.data.id as string;
    };
    alpha = await client('Alpha', { reportRecipients: ['ops@alpha.test'] });
    const beta = await client('Beta');
    await client('Gamma');
    const integ = await api('POST', '/integrations', { name: 'Prometheus' });
    const url = integ.body.data.ingestUrl as string;
    await ingestAt(url, { title: 'Queue backlog', severity: 'high', labels: { client: 'alpha', service: 'orders' } });
    await ingestAt(url, { title: HOSTILE, severity: 'critical', labels: { client: 'alpha', service: 'checkout' } });
    await ingestAt(url, { title: 'Disk 91 %', severity: 'high', labels: { client: 'beta' } });
    const now = Date.now();
    const w = await api('POST', '/suppression', { name: 'Patch night', clientId: beta, startsAt: new Date(now - 60_000).toISOString(), endsAt: new Date(now + 3_600_000).toISOString() });
    assert.equal(w.status, 201, w.raw);

    await app.page.getByRole('link', { name: 'Client board' }).click();
    await app.page.getByRole('heading', { name: 'Client board', exact: true }).waitFor();
    const tiles = app.page.locator('.tiles > li');
    await tiles.first().waitFor();
    assert.deepEqual(await tiles.locator('h2').allTextContents(), ['Alpha', 'Beta', 'Gamma']);
    await tiles.nth(1).getByText(/In maintenance until/).waitFor();
    // The sender's markup is shown as the text it is.
    await tiles.first().getByRole('link', { name: HOSTILE }).waitFor();
    assert.equal(await app.page.evaluate('window.pwned'), undefined);
    await assertAccessible(app.page, 'client board');
    await shot('board');
    await assertAccessibleNarrowAndDark(app.page, 'client board', `${kind}-analytics-board`);

    // Live: a new critical alert of Gamma moves it up without a reload.
    await ingestAt(url, { title: 'Gamma on fire', severity: 'critical', labels: { client: 'gamma' } });
    await app.page.locator('.tiles > li').nth(1).getByRole('heading', { name: 'Gamma' }).waitFor({ timeout: 15_000 });
  });

  it('the Analytics page: charts with a table view and CSV, pages per person, noisy alerts', async () => {
    await app.page.getByRole('link', { name: 'Analytics' }).first().click();
    await app.page.getByRole('heading', { name: 'Analytics', exact: true }).waitFor();
    await app.page.getByRole('heading', { name: 'Alerts opened' }).waitFor();
    await app.page.getByRole('img', { name: /Alerts opened: chart/ }).waitFor();
    await app.page.getByRole('heading', { name: 'Time to acknowledge and to resolve' }).waitFor();
    await app.page.getByRole('heading', { name: 'Top noisy alerts' }).waitFor();
    await assertAccessible(app.page, 'analytics');
    await shot('page');
    await assertAccessibleNarrowAndDark(app.page, 'analytics', `${kind}-analytics-page`);

    await app.page.getByRole('button', { name: 'Show table' }).first().click();
    const table = app.page.getByRole('table', { name: 'Alerts opened' });
    await table.waitFor();
    await assertAccessible(app.page, 'analytics, table view');
    const csv = await download('Download CSV');
    assert.equal(csv.name, 'alerts-opened.csv');
    assert.match(csv.text.split('\r\n')[0] as string, /^Period/);
    assert.equal(csv.text.split('\r\n').length - 2, await table.locator('tbody tr').count());
  });

  it('a client report: printable, as CSV, sender text inert', async () => {
    await app.page.goto(`${app.base}/clients/${alpha}`);
    await app.page.getByRole('link', { name: 'Report' }).click();
    await app.page.getByRole('heading', { name: 'Alpha: report' }).waitFor();
    // The current month, so that today's alerts are in it.
    const month = new Date().toISOString().slice(0, 7);
    await app.page.getByLabel('Month').fill(month);
    await app.page.getByRole('heading', { name: 'Availability' }).waitFor();
    await app.page.getByRole('cell', { name: 'checkout', exact: true }).waitFor();
    await assertAccessible(app.page, 'client report');
    await shot('report');
    await assertAccessibleNarrowAndDark(app.page, 'client report', `${kind}-analytics-report`);
    const csv = await download('Download CSV');
    assert.equal(csv.name, `report-alpha-${month}.csv`);
    assert.match(csv.text, /^Client,Alpha\r\n/);
    // Printed, the navigation and the buttons are gone and the report stays.
    await app.page.emulateMedia({ media: 'print' });
    assert.equal(await app.page.locator('.topbar').isVisible(), false);
    assert.equal(await app.page.getByRole('button', { name: 'Print' }).isVisible(), false);
    assert.equal(await app.page.getByRole('heading', { name: 'Availability' }).isVisible(), true);
    await app.page.emulateMedia({ media: 'screen' });
    assert.equal(await app.page.evaluate('window.pwned'), undefined);
    assert.deepEqual(app.errors, []);
  });
});
