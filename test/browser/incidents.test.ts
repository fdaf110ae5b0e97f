import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { eventually } from '../support/eventually.ts';
import { apiAsBrowser, assertAccessible, assertFits, eachStore, escalatingEnv, ingestAt, OWNER, screenshot, sharedBrowser, useDashboard } from './browser.ts';

/**
 * Working incidents and alerts in Debian's Chromium against a real `alertflow serve`, on both stores, at 1280 and
 * 390 px, light and dark, axe on every page: an escalating incident acknowledged from its card, its timeline
 * in words; notes, severity and reassignment from its page; the alerts list as cards with folded filters and
 * its page in the address.
 */

const MEMBER = { email: 'max@example.test', name: 'Max Member' };
// A policy "minute" lasts half a second here (ESCALATION_MINUTE_MS exists for tests).
const MINUTE_MS = 500;

const browser = sharedBrowser();
const env = escalatingEnv(MINUTE_MS);

eachStore('incidents and alerts, worked in a browser', { together: true }, (kind) => {
  const app = useDashboard(browser, kind, { env });
  const shot = (name: string) => screenshot(app.page, `${kind}-incidents-${name}`);
  const asBrowser = async (method: string, path: string, body?: unknown) => {
    const r = await apiAsBrowser(app.server, app.context, method, path, body);
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.raw}`);
    return r.body;
  };
  let ingestUrl: string;
  let batchUrl: string;
  let memberId: string;
  let ownerId: string;

  /** The page at 1280 px light, 390 px light and 390 px dark: axe on each, each photographed, none wider than the screen. */
  async function everyView(page: Page, name: string): Promise<void> {
    await assertAccessible(page, name);
    await screenshot(page, `${kind}-incidents-${name}`);
    for (const scheme of ['light', 'dark'] as const) {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.emulateMedia({ colorScheme: scheme });
      await assertFits(page, name);
      await assertAccessible(page, `${name} (390 px, ${scheme})`);
      await screenshot(page, `${kind}-incidents-${name}-390${scheme === 'dark' ? '-dark' : ''}`);
    }
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 1280, height: 800 });
    await assertAccessible(page, `${name} (dark)`);
    await screenshot(page, `${kind}-incidents-${name}-dark`);
    await page.emulateMedia({ colorScheme: 'light' });
  }

  before(async () => {
    const session = (await asBrowser('GET', '/auth/session')).data;
    ownerId = session.user.id;
    memberId = (await asBrowser('POST', '/users', { ...MEMBER, role: 'member' })).data.id;
    const policy = (await asBrowser('POST', '/escalation-policies', {
      name: 'Databases', steps: [
        { delayMinutes: 5, targets: [{ type: 'user', id: ownerId }] },
        { delayMinutes: 10, targets: [{ type: 'user', id: memberId }] },
      ],
    })).data;
    // A slow policy for the web team: nothing pages on its own during the test but what is asked for.
    const slow = (await asBrowser('POST', '/escalation-policies', {
      name: 'Web', steps: [
        { delayMinutes: 600, targets: [{ type: 'user', id: ownerId }] },
        { delayMinutes: 600, targets: [{ type: 'user', id: memberId }] },
      ],
    })).data;
    await asBrowser('POST', '/workflows', {
      name: 'Page the web team', trigger: 'alert.created', enabled: true,
      conditions: { field: 'labels.team', op: 'eq', value: 'web' },
      actions: [{ type: 'create_incident', groupBy: ['labels.service'], title: '{{alert.title}}', escalationPolicyId: slow.id }],
    });
    await asBrowser('POST', '/workflows', {
      name: 'Page the database team', trigger: 'alert.created', enabled: true,
      conditions: { field: 'labels.team', op: 'eq', value: 'db' },
      actions: [{ type: 'create_incident', groupBy: ['labels.service'], title: '{{alert.title}}', escalationPolicyId: policy.id }],
    });
    ingestUrl = (await asBrowser('POST', '/integrations', { name: 'Checks' })).data.ingestUrl;
    batchUrl = (await asBrowser('POST', '/integrations', { name: 'Prometheus', preset: 'alertmanager' })).data.ingestUrl;
  });

  it('an escalating incident is acknowledged from its card at 390 px; its timeline says who was paged, how, and why it stopped', async () => {
    const alertId = await ingestAt(ingestUrl, { title: 'Primary database refuses connections', severity: 'critical', source: 'db-1', labels: { team: 'db', service: 'orders-db' } });
    const incidentId = await eventually('the incident', async () => (await asBrowser('GET', `/alerts/${alertId}`)).data.incidentId ?? undefined) as string;
    // Step 1 pages the owner at once, step 2 the member 5 policy minutes later.
    await eventually('step 2 paged', async () => ((await asBrowser('GET', `/incidents/${incidentId}`)).data.timeline
      .some((e: { type: string; data: { step?: number } }) => e.type === 'escalation_step' && e.data.step === 2) ? true : undefined), 30_000);

    await app.page.goto(`${app.base}/incidents`);
    const row = app.page.getByRole('row', { name: /Primary database refuses connections/ });
    await row.getByRole('button', { name: 'Acknowledge #1' }).waitFor();
    await assertAccessible(app.page, 'incidents list');
    await shot('list');

    await app.page.setViewportSize({ width: 390, height: 844 });
    const card = app.page.getByRole('listitem').filter({ hasText: 'Primary database refuses connections' });
    await card.getByRole('button', { name: 'Acknowledge #1' }).waitFor();
    assert.equal(await app.page.getByRole('search', { name: 'Filter incidents' }).isVisible(), false, 'the filters are folded on a phone');
    const box = await card.getByRole('button', { name: 'Acknowledge #1' }).boundingBox();
    assert.ok(box && box.width >= 120 && box.height >= 44, `the card's action is a thumb-sized target: ${JSON.stringify(box)}`);
    await assertAccessible(app.page, 'incidents list (390 px)');
    await shot('list-390');
    await card.getByRole('button', { name: 'Acknowledge #1' }).click();
    await card.getByRole('button', { name: 'Resolve #1' }).waitFor();
    await app.page.setViewportSize({ width: 1280, height: 800 });

    await app.page.getByRole('link', { name: /Primary database refuses connections/ }).click();
    await app.page.getByRole('heading', { name: '#1 Primary database refuses connections' }).waitFor();
    const timeline = app.page.locator('.timeline');
    await timeline.getByText('Escalation started: policy “Databases”').waitFor();
    await timeline.getByText(`Escalation step 1 paged ${OWNER.name} (email ${OWNER.email}). Next step in 5 minutes unless acknowledged.`).waitFor();
    await timeline.getByText(`Escalation step 2 paged ${MEMBER.name} (email ${MEMBER.email}). That was the last step.`).waitFor();
    await timeline.getByText(`Paged ${MEMBER.name} by email at ${MEMBER.email} (escalation step 2)`).waitFor();
    await timeline.getByText('Status changed from triggered to acknowledged').waitFor();
    assert.equal(await timeline.locator('li').filter({ hasText: /^\s*\S+.*by system\s*$/ }).count(), 0, 'no entry says only "by system"');
    await everyView(app.page, 'incident');
  });

  it('notes, severity and reassignment from the incident page, each in the timeline in words', async () => {
    const timeline = app.page.locator('.timeline');
    const note = 'Failed over to db-2.\n<b>Replica lag</b> 3 s, watching it.';
    await app.page.getByLabel('Add a note').fill(note);
    await app.page.getByRole('button', { name: 'Add note' }).click();
    await timeline.locator('.note').filter({ hasText: 'Failed over to db-2.' }).waitFor();
    assert.equal(await timeline.locator('.note').last().innerText(), note, 'the note keeps its line break and shows markup as text');
    assert.equal(await timeline.locator('b').count(), 0);

    await app.page.getByLabel('Severity', { exact: true }).selectOption('high');
    await app.page.getByRole('button', { name: 'Change severity' }).click();
    await timeline.getByText('Severity changed from critical to high').waitFor();

    await app.page.getByLabel('Assignee', { exact: true }).selectOption({ label: `${MEMBER.name} (${MEMBER.email})` });
    await app.page.getByRole('button', { name: 'Reassign' }).click();
    await timeline.getByText(`Assigned to ${MEMBER.name}`).waitFor();
    await app.page.getByText(`Assignee: ${MEMBER.name}`).waitFor();
    await app.page.getByRole('button', { name: 'Assign to me' }).click();
    await timeline.getByText(`Assigned to ${OWNER.name}`).waitFor();

    // "Only mine" in the list finds it; the filter is kept in the address.
    await app.page.goto(`${app.base}/incidents`);
    await app.page.getByLabel('Only mine (assigned to me or paged me)').check();
    await app.page.getByRole('button', { name: 'Apply filters' }).click();
    await app.page.waitForURL(/mine=true/);
    await app.page.getByRole('link', { name: /Primary database refuses connections/ }).waitFor();
    await app.page.getByText('1 incident', { exact: true }).waitFor();
    await everyView(app.page, 'list-mine');
  });

  it('escalate now from the card, a responder and a snooze from the page: each pages as asked and says so', async () => {
    const alertId = await ingestAt(ingestUrl, { title: 'Checkout returns 502', severity: 'critical', labels: { team: 'web', service: 'checkout' } });
    const incidentId = await eventually('the incident', async () => (await asBrowser('GET', `/alerts/${alertId}`)).data.incidentId ?? undefined) as string;
    const timeline = async () => (await asBrowser('GET', `/incidents/${incidentId}`)).data.timeline as Array<{ type: string; data: Record<string, unknown> }>;
    await eventually('step 1', async () => ((await timeline()).some((e) => e.type === 'escalation_step') ? true : undefined));

    await app.page.setViewportSize({ width: 390, height: 844 });
    await app.page.goto(`${app.base}/incidents`);
    const card = app.page.getByRole('listitem').filter({ hasText: 'Checkout returns 502' });
    await card.getByRole('button', { name: /^Acknowledge #/ }).waitFor();
    await card.getByText('More', { exact: true }).click();
    await assertAccessible(app.page, 'incident card, more actions (390 px)');
    await screenshot(app.page, `${kind}-incidents-card-more-390`);
    await card.getByRole('button', { name: 'Escalate now' }).click();
    const step2 = await eventually('step 2 at once', async () => (await timeline()).find((e) => e.type === 'escalation_step' && e.data.step === 2));
    assert.deepEqual((step2.data.paged as Array<{ userId: string }>).map((x) => x.userId), [memberId]);
    await app.page.setViewportSize({ width: 1280, height: 800 });

    await app.page.getByRole('link', { name: /Checkout returns 502/ }).click();
    const page = app.page.locator('.timeline');
    await page.getByText(`Escalated now: step 2 of “Web” pages at once`).waitFor();
    await app.page.getByLabel('Add a responder').selectOption({ label: `${MEMBER.name} (${MEMBER.email})` });
    await app.page.getByRole('button', { name: 'Page now' }).click();
    await page.getByText(`Asked ${MEMBER.name} to respond: paging them now`).waitFor();
    await page.getByText(`Responder request paged ${MEMBER.name} (email ${MEMBER.email})`).waitFor();

    await app.page.getByLabel('Snooze for').selectOption({ label: '15 minutes' });
    await app.page.getByRole('button', { name: 'Snooze', exact: true }).click();
    await app.page.getByText(/^Snoozed until /).waitFor();
    await page.getByText(/^Snoozed for 15 minutes, until .+: it is triggered and pages again then, unless answered$/).waitFor();
    await everyView(app.page, 'incident-snoozed');
    // 15 policy minutes later (7.5 s here) it is triggered again and its escalation starts again.
    await page.getByText('Status changed from acknowledged to triggered: the snooze ended').waitFor({ timeout: 30_000 });
    await page.getByText('Escalation started again from step 1 of “Web”: the incident was triggered again').waitFor();
    assert.equal(await app.page.getByText(/^Snoozed until /).count(), 0);
    assert.deepEqual(app.errors, []);
  });

  it('alerts at 390 px: cards with clamped titles and a thumb-sized action, filters folded, the page kept in the address', async () => {
    const long = `Disk usage above 95 % on ${'a-very-long-volume-name-'.repeat(40)}end`;
    // 60 alerts in one Alertmanager batch: more than one page of 50.
    await ingestAt(batchUrl, { alerts: Array.from({ length: 60 }, (_, i) => ({
      status: 'firing', labels: { alertname: `Probe${i}`, severity: 'warning', instance: `web-${i}` }, annotations: { summary: `Probe ${i} failing on web-${i}` },
    })) });
    await ingestAt(ingestUrl, { title: long, severity: 'high', source: 'node-exporter' });
    await app.page.setViewportSize({ width: 390, height: 844 });
    try {
      await app.page.goto(`${app.base}/alerts`);
      const cards = app.page.getByRole('list', { name: 'Alerts' }).getByRole('listitem');
      await cards.first().waitFor();
      assert.equal(await app.page.getByRole('search', { name: 'Filter alerts' }).isVisible(), false, 'filters folded');
      const card = cards.filter({ hasText: 'Disk usage above 95 %' });
      const title = card.getByRole('link');
      const clamp = await title.evaluate((el) => [el.scrollHeight > el.clientHeight, el.getBoundingClientRect().height]) as [boolean, number];
      assert.ok(clamp[0] && clamp[1] < 100, `the long title is clamped: ${JSON.stringify(clamp)}`);
      const ack = card.getByRole('button', { name: /^Acknowledge Disk usage/ });
      const box = await ack.boundingBox();
      assert.ok(box && box.width >= 120 && box.height >= 44, `thumb-sized action: ${JSON.stringify(box)}`);
      await everyView(app.page, 'alerts');
      await app.page.setViewportSize({ width: 390, height: 844 });

      // Filters unfold, apply, fold again; the count of applied filters is on the button.
      await app.page.getByRole('button', { name: 'Filters' }).click();
      await app.page.getByLabel('Severity').selectOption('medium');
      await assertAccessible(app.page, 'alert filters unfolded (390 px)');
      await screenshot(app.page, `${kind}-incidents-alerts-filters-390`);
      await app.page.getByRole('button', { name: 'Apply filters' }).click();
      await app.page.getByRole('button', { name: 'Filters (1)' }).waitFor();
      assert.equal(await app.page.getByRole('search', { name: 'Filter alerts' }).isVisible(), false);
      await app.page.getByText('60 alerts', { exact: true }).waitFor();

      // Next page: in the address, scrolled to the top, and kept by a reload.
      await app.page.mouse.wheel(0, 5000);
      await app.page.getByRole('button', { name: 'Next page' }).click();
      await app.page.waitForURL(/cursor=/);
      await eventually('the second page: the last 10', async () => ((await cards.count()) === 10 ? true : undefined), 10_000);
      await eventually('scrolled to the top', async () => ((await app.page.evaluate('window.scrollY')) === 0 ? true : undefined), 5000);
      const second = await cards.first().innerText();
      await app.page.reload();
      await cards.first().waitFor();
      assert.equal(await cards.first().innerText(), second, 'a reload shows the same page');
      assert.equal(await cards.count(), 10);
      await app.page.getByRole('button', { name: 'Previous page' }).click();
      await eventually('the first page', async () => (!app.page.url().includes('cursor=') && (await cards.count()) === 50 ? true : undefined), 10_000);
    } finally {
      await app.page.setViewportSize({ width: 1280, height: 800 });
    }
    assert.deepEqual(app.errors, []);
  });
});

