import assert from 'node:assert/strict';
import { it } from 'node:test';
import { apiAsBrowser, assertAccessible, assertAccessibleNarrowAndDark, eachStore, ingestAt, screenshot, sharedBrowser, useDashboard } from './browser.ts';

/**
 * Flapping alerts in Debian's Chromium against a real `alertflow serve`, on both stores: an alert that fired,
 * resolved and fired again flaps (its integration's rule: 3 changes in 10 minutes); the alert list filters it and
 * marks it, its page draws its state history as a strip and says it in words, and the integration's form edits
 * the rule. Scanned with axe at 1280 px, at 390 px and in dark mode; photographed.
 */

const browser = sharedBrowser();

eachStore('flapping alerts in the dashboard', { together: true }, (kind) => {
  const app = useDashboard(browser, kind);
  const shot = (name: string) => screenshot(app.page, `${kind}-flapping-${name}`);
  const api = (method: string, path: string, body?: unknown) => apiAsBrowser(app.server, app.context, method, path, body);
  let integrationId: string;

  it('the list filters and marks a flapping alert; its page draws its history', async () => {
    const created = await api('POST', '/integrations', { name: 'Prometheus', flapping: { threshold: 3, windowSeconds: 600, stableSeconds: 600 } });
    assert.equal(created.status, 201, created.raw);
    integrationId = created.body.data.id;
    const url = created.body.data.ingestUrl as string;
    const alert = { title: 'db1 down', source: 'probe', severity: 'critical' };
    await ingestAt(url, alert);
    const resolved = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...alert, status: 'resolved' }) });
    assert.equal(resolved.status, 200);
    await ingestAt(url, alert);
    await ingestAt(url, { title: 'disk full', source: 'probe', severity: 'high' });

    await app.page.goto(`${app.base}/alerts?flapping=true`);
    await app.page.getByRole('heading', { name: 'Alerts', exact: true }).waitFor();
    const rows = app.page.locator('tbody tr');
    await rows.filter({ hasText: 'db1 down' }).getByText('flapping', { exact: true }).waitFor();
    assert.equal(await rows.filter({ hasText: 'disk full' }).count(), 0, 'an alert that does not flap is filtered out');
    await assertAccessible(app.page, 'alerts filtered by flapping');
    await shot('list');

    await rows.filter({ hasText: 'db1 down' }).getByRole('link', { name: 'db1 down' }).click();
    await app.page.getByRole('heading', { name: 'State history' }).waitFor();
    await app.page.getByText(/Fired 2 times since .*; flapping now: its changes do not page until it is stable\./).waitFor();
    assert.equal(await app.page.locator('.flap-strip .flap-firing').count(), 2, 'one firing span per time it fired');
    await app.page.getByText('Each time it fired').click();
    await app.page.getByText(/still open/).waitFor();
    await app.page.getByText(/resolved /).first().waitFor();
    await assertAccessible(app.page, 'a flapping alert');
    await shot('alert');
    await assertAccessibleNarrowAndDark(app.page, 'a flapping alert', `${kind}-flapping-alert`);
  });

  it('the integration\'s form edits its flap rule', async () => {
    await app.page.goto(`${app.base}/integrations/${integrationId}`);
    await app.page.getByText('3 changes within 10 min; stable after 10 min').waitFor();
    await app.page.getByRole('button', { name: 'Edit' }).click();
    await app.page.getByLabel('Changes').fill('6');
    await app.page.getByLabel('Within (minutes)').fill('15');
    await assertAccessible(app.page, 'the integration form with its flap rule');
    await app.page.getByRole('button', { name: 'Save integration' }).click();
    await app.page.getByText('6 changes within 15 min; stable after 10 min').waitFor();
    const stored = await api('GET', `/integrations/${integrationId}`);
    assert.deepEqual(stored.body.data.flapping, { threshold: 6, windowSeconds: 900, stableSeconds: 600 });
  });
});
