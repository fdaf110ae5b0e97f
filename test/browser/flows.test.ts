import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { apiAsBrowser, assertAccessible, eachStore, ingestAt, screenshot, sharedBrowser, useDashboard } from './browser.ts';

/**
 * The workflows editor and the clients pages in Debian's Chromium against a real `alertflow serve`, on both
 * stores: a workflow built in the editor, tried on an alert, enabled, then a matching alert opens its incident;
 * a client created and edited, its page listing its alerts and integrations. axe-core on every page, screenshots.
 */

const browser = sharedBrowser();

eachStore('workflows and clients in a browser', { together: true }, (kind) => {
  const app = useDashboard(browser, kind);
  let ingestUrl: string;
  let integrationId: string;
  const shot = (name: string) => screenshot(app.page, `${kind}-flows-${name}`);

  const asBrowser = (method: string, path: string, body?: unknown) => apiAsBrowser(app.server, app.context, method, path, body);
  const ingest = (payload: unknown) => ingestAt(ingestUrl, payload);
  /** Looks at the page at phone width and in dark mode too, each scanned and photographed. */
  const everyView = async (name: string) => {
    await assertAccessible(app.page, name);
    await shot(name);
    await app.page.setViewportSize({ width: 390, height: 844 });
    await app.page.emulateMedia({ colorScheme: 'dark' });
    const width = await app.page.evaluate('document.documentElement.scrollWidth') as number;
    assert.ok(width <= 390, `${name}: the page is ${width} px wide at 390 px`);
    await assertAccessible(app.page, `${name} (390 px, dark)`);
    await shot(`${name}-390-dark`);
    await app.page.setViewportSize({ width: 1280, height: 800 });
    await app.page.emulateMedia({ colorScheme: 'light' });
  };

  before(async () => {
    const integ = await asBrowser('POST', '/integrations', { name: 'Prometheus' });
    assert.equal(integ.status, 201, integ.raw);
    ingestUrl = integ.body.data.ingestUrl;
    integrationId = integ.body.data.id;
  });

  it('builds a workflow in the editor, tests it against an alert, enables it; a matching alert opens its incident', async () => {
    await ingest({ title: 'Checkout latency', severity: 'high', labels: { env: 'prod', service: 'checkout' }, annotations: { runbook: 'https://runbooks.example/checkout' } });
    await app.page.getByRole('link', { name: 'Workflows', exact: true }).click();
    await app.page.getByText('No workflows yet').waitFor();
    await everyView('workflows-empty');

    await app.page.getByRole('link', { name: 'New workflow' }).click();
    await app.page.getByRole('heading', { name: 'New workflow', exact: true }).waitFor();
    await app.page.getByLabel('Name', { exact: true }).fill('Page checkout');
    await app.page.getByRole('button', { name: 'Add a condition' }).click();
    // The field suggestions come from the recent alert's labels and annotations.
    await eventually('label keys suggested', async () =>
      (await app.page.locator('#condition-fields option[value="labels.service"]').count()) === 1 || undefined);
    assert.equal(await app.page.locator('#condition-fields option[value="annotations.runbook"]').count(), 1);
    await app.page.getByLabel('Field', { exact: true }).fill('labels.service');
    await app.page.getByLabel('Value', { exact: true }).fill('checkout');
    await app.page.getByLabel('Group by').fill('labels.service');
    await app.page.getByLabel('Incident title').fill('{{alert.labels.service}}: {{alert.title}}');
    await app.page.getByLabel('New action').selectOption('add_labels');
    await app.page.getByRole('button', { name: 'Add action' }).click();
    await app.page.getByLabel('Labels', { exact: true }).fill('team=payments');
    await app.page.getByRole('button', { name: 'Move action 2 up' }).click();
    assert.match(await app.page.getByTestId('action').first().locator('legend').textContent() ?? '', /1\. Add labels/);

    // Test against the recent alert, before saving.
    await app.page.getByLabel('Recent alert').selectOption({ label: 'Checkout latency (high, firing)' });
    await app.page.getByRole('button', { name: 'Run test' }).click();
    const result = app.page.getByTestId('test-result');
    await result.getByText('Matches.').waitFor();
    const planned = await result.locator('li').allTextContents();
    assert.equal(planned.length, 2);
    assert.match(planned[0] as string, /add labels team=payments/);
    assert.match(planned[1] as string, /grouped by labels\.service=checkout, titled "checkout: Checkout latency"/);
    // A pasted alert that does not match.
    await app.page.getByLabel('Sample alert (JSON)').fill(JSON.stringify({ title: 'Search slow', severity: 'low', labels: { service: 'search' } }));
    await app.page.getByRole('button', { name: 'Run test' }).click();
    await result.getByText('Does not match').waitFor();
    // A problem the API finds shows beside its field.
    await app.page.getByLabel('Operator').selectOption('matches');
    await app.page.getByLabel('Value', { exact: true }).fill('(');
    await app.page.getByRole('button', { name: 'Run test' }).click();
    await app.page.locator('.leaf-fields .field-errors').first().waitFor();
    await assertAccessible(app.page, 'workflow editor with an error beside a field');
    await app.page.getByLabel('Operator').selectOption('eq');
    await app.page.getByLabel('Value', { exact: true }).fill('checkout');
    await app.page.getByLabel('Sample alert (JSON)').fill(JSON.stringify({ title: 'Checkout latency', severity: 'high', labels: { service: 'checkout' } }));
    await app.page.getByRole('button', { name: 'Run test' }).click();
    await result.getByText('Matches.').waitFor();
    assert.equal(await app.page.locator('.leaf-fields .field-errors').count(), 0, 'a passing test clears the problems it showed');

    // The JSON view shows the body that will be saved.
    await app.page.getByRole('button', { name: 'JSON', exact: true }).click();
    const json = JSON.parse(await app.page.getByLabel('Workflow as JSON').inputValue());
    assert.deepEqual(json.conditions, { all: [{ field: 'labels.service', op: 'eq', value: 'checkout' }] });
    assert.deepEqual(json.actions.map((a: { type: string }) => a.type), ['add_labels', 'create_incident']);
    await app.page.getByRole('button', { name: 'Form', exact: true }).click();
    await everyView('workflow-new');

    await app.page.getByRole('button', { name: 'Save workflow' }).click();
    await app.page.getByRole('heading', { name: 'Page checkout', exact: true }).waitFor();
    const workflowId = new URL(app.page.url()).pathname.split('/').pop() as string;
    assert.match(await app.page.getByTestId('workflow-state').textContent() ?? '', /Disabled/);
    const saved = (await asBrowser('GET', `/workflows/${workflowId}`)).body.data;
    assert.equal(saved.enabled, false);
    assert.deepEqual(saved.actions, [{ type: 'add_labels', labels: { team: 'payments' } }, { type: 'create_incident', groupBy: ['labels.service'], title: '{{alert.labels.service}}: {{alert.title}}' }]);

    // Enabled from the list's switch.
    await app.page.getByRole('link', { name: 'All workflows' }).click();
    const toggle = app.page.getByRole('switch', { name: 'Page checkout: enabled' });
    assert.equal(await toggle.getAttribute('aria-checked'), 'false');
    await toggle.click();
    await eventually('enabled', async () => (await toggle.getAttribute('aria-checked')) === 'true' || undefined);
    await everyView('workflows-list');

    const alertId = await ingest({ title: 'Checkout down', severity: 'critical', labels: { env: 'prod', service: 'checkout' } });
    const incidentId = await eventually('the incident of the alert', async () =>
      (await asBrowser('GET', `/alerts/${alertId}`)).body.data.incidentId ?? undefined) as string;
    await app.page.getByRole('link', { name: 'Page checkout' }).click();
    await app.page.getByRole('heading', { name: 'Recent runs' }).waitFor();
    const run = app.page.getByTestId('run').filter({ hasText: 'Checkout down' });
    await eventually('the run listed', async () => {
      if ((await run.count()) === 1) return true;
      await app.page.getByRole('button', { name: 'Refresh' }).click();
      return undefined;
    });
    const link = run.getByRole('link', { name: 'Incident #1' });
    await link.waitFor();
    assert.equal(await link.getAttribute('href'), `/incidents/${incidentId}`);
    assert.match(await run.textContent() ?? '', /ok\s*Add labels: labels team/);
    assert.match(await run.textContent() ?? '', /opened incident #1/);
    assert.equal((await asBrowser('GET', `/incidents/${incidentId}`)).body.data.title, 'checkout: Checkout down');
    await everyView('workflow-runs');
    assert.deepEqual(app.errors, []);
  });

  it('creates and edits a client; its page lists its open alerts and integrations, linking to the filtered lists', async () => {
    await app.page.getByRole('link', { name: 'Clients', exact: true }).click();
    await app.page.getByText('No clients yet').waitFor();
    await everyView('clients-empty');
    await app.page.getByRole('button', { name: 'New client' }).click();
    await app.page.getByLabel('Name', { exact: true }).fill('Globex Corp');
    assert.equal(await app.page.getByLabel('Slug').inputValue(), 'globex-corp', 'the slug is suggested from the name');
    await app.page.getByLabel('Contact email').fill('not an email');
    await app.page.getByRole('button', { name: 'Create client' }).click();
    await app.page.locator('.field-errors').filter({ hasText: 'Contact email' }).waitFor();
    await app.page.getByLabel('Contact email').fill('ops@globex.example');
    await app.page.getByRole('button', { name: 'Create client' }).click();
    await app.page.getByRole('heading', { name: 'Globex Corp', exact: true }).waitFor();
    const clientId = new URL(app.page.url()).pathname.split('/').pop() as string;
    await app.page.getByText('No open alerts.').waitFor();
    await app.page.getByText('No integration is linked to this client.').waitFor();
    await everyView('client-empty');

    // The integration page edits its name and client.
    await app.page.goto(`${app.base}/integrations/${integrationId}`);
    await app.page.getByRole('button', { name: 'Edit', exact: true }).click();
    await app.page.getByLabel('Name', { exact: true }).fill('Prometheus EU');
    await app.page.getByLabel('Client', { exact: true }).selectOption({ label: 'Globex Corp' });
    await app.page.getByRole('button', { name: 'Save integration' }).click();
    await app.page.getByRole('heading', { name: 'Prometheus EU', exact: true }).waitFor();
    await app.page.getByRole('link', { name: 'Globex Corp' }).waitFor();
    const saved = (await asBrowser('GET', `/integrations/${integrationId}`)).body.data;
    assert.deepEqual([saved.name, saved.clientId], ['Prometheus EU', clientId]);
    await app.page.goBack();
    await ingest({ title: 'Globex disk <b>full</b>', severity: 'high', labels: { client: 'globex-corp' } });
    await app.page.reload();
    await app.page.getByRole('link', { name: 'Globex disk <b>full</b>' }).waitFor();
    await app.page.getByRole('region', { name: /Integrations/ }).getByRole('link', { name: 'Prometheus EU' }).waitFor();
    assert.equal(await app.page.getByRole('region', { name: /Open alerts/ }).getByRole('link', { name: 'See all' }).getAttribute('href'), `/alerts?clientId=${clientId}`);
    await app.page.getByText('No suppression window is scoped to this client.').waitFor();
    // "See all" opens the full list filtered to the client.
    assert.equal((await asBrowser('POST', '/integrations', { name: 'Unrelated' })).status, 201);
    await app.page.getByRole('region', { name: /Integrations/ }).getByRole('link', { name: 'See all' }).click();
    await app.page.getByText('Only the integrations of').waitFor();
    await app.page.getByRole('cell').getByRole('link', { name: 'Prometheus EU' }).waitFor();
    assert.equal(await app.page.getByRole('link', { name: 'Unrelated' }).count(), 0);
    await app.page.getByRole('link', { name: 'Show all' }).click();
    await app.page.getByRole('link', { name: 'Unrelated' }).waitFor();
    await app.page.goBack();
    await app.page.getByRole('link', { name: 'Globex Corp', exact: true }).click();
    await app.page.getByRole('heading', { name: 'Globex Corp', exact: true }).waitFor();

    await app.page.getByRole('button', { name: 'Edit' }).click();
    await app.page.getByLabel('Name', { exact: true }).fill('Globex Corporation');
    await app.page.getByRole('button', { name: 'Save client' }).click();
    await app.page.getByRole('heading', { name: 'Globex Corporation', exact: true }).waitFor();
    await everyView('client');
    await app.page.getByRole('link', { name: 'All clients' }).click();
    await app.page.getByRole('link', { name: 'Globex Corporation' }).waitFor();
    await everyView('clients-list');
    assert.deepEqual(app.errors, []);
  });
});
