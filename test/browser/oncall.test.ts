import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { before, it } from 'node:test';
import { ROOT, runCli } from '../support/process.ts';
import { apiAsBrowser, assertAccessible, assertFits, eachStore, OWNER, screenshot, sharedBrowser, useDashboard } from './browser.ts';

/**
 * The On call and Suppression windows pages in Debian's Chromium against a real `alertflow serve`, on both
 * stores: a schedule made in the editor (with its preview), today's on-call person, an override picked on
 * the calendar that changes who is on call, and a recurring window with its next occurrences and the open
 * alert its matchers hold. The browser runs in Berlin and the schedule in New York, so the zones differ.
 */

const MEMBER = { email: 'member@example.test', password: 'member password 1234', name: 'Max Member' };
const ZONE = 'America/New_York';
const DAY_MS = 86_400_000;

/** The date `days` from now on the wall calendar of `zone`, `YYYY-MM-DD`. */
const dateIn = (zone: string, days: number): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(Date.now() + days * DAY_MS));

const browser = sharedBrowser();

eachStore('on call and suppression windows in a browser', { together: true }, (kind) => {
  const app = useDashboard(browser, kind, { context: { viewport: { width: 1280, height: 900 }, timezoneId: 'Europe/Berlin', locale: 'en-GB' } });
  let scheduleId: string;
  const shot = (name: string) => screenshot(app.page, `${kind}-${name}`);

  const asBrowser = (method: string, url: string, body?: unknown) => apiAsBrowser(app.server, app.context, method, url, body);

  before(async () => {
    const orgId = (await asBrowser('GET', '/auth/session')).body.data.organization.id as string;
    const added = await runCli(['user', 'add', '--org', orgId, '--email', MEMBER.email, '--name', MEMBER.name, '--role', 'member', '--password', MEMBER.password, '--json'],
      { DATABASE_URL: app.store.url }, { timeoutMs: 60_000 });
    assert.equal(added.code, 0, added.stderr);
  });

  it('creates a schedule in the editor, previewing its shifts, and shows who is on call today', async () => {
    await app.page.getByRole('link', { name: 'On call', exact: true }).click();
    await app.page.getByText('No schedules yet').waitFor();
    await assertAccessible(app.page, 'on call (empty)');
    await app.page.getByRole('link', { name: 'New schedule' }).click();
    await app.page.getByLabel('Name', { exact: true }).fill('Primary');
    await app.page.getByLabel('Time zone').fill(ZONE);
    await app.page.getByLabel('Rotation').selectOption('daily');
    // Two days ago at midnight in New York, owner first: day 0 owner, day 1 member, day 2 (today) owner.
    await app.page.getByLabel('First shift starts').fill(`${dateIn(ZONE, -2)}T00:00`);
    const addSelect = app.page.getByLabel('Add a person to layer 1');
    await addSelect.selectOption({ label: OWNER.name });
    await app.page.getByRole('button', { name: 'Add person' }).click();
    await addSelect.selectOption({ label: MEMBER.name });
    await app.page.getByRole('button', { name: 'Add person' }).click();
    const preview = app.page.getByTestId('schedule-preview');
    await preview.getByText(`On call now: ${OWNER.name}`).waitFor();
    await preview.getByRole('cell', { name: MEMBER.name }).first().waitFor();
    await assertAccessible(app.page, 'schedule editor');
    await shot('schedule-editor');
    assert.equal((await asBrowser('GET', '/schedules')).body.meta.total, 0, 'the preview stored nothing');
    await app.page.getByLabel('Email each person when their shift starts (handoff notice)').check();
    await app.page.getByRole('button', { name: 'Create schedule' }).click();
    await app.page.getByRole('heading', { name: 'Primary', exact: true }).waitFor();
    scheduleId = new URL(app.page.url()).pathname.split('/').pop() as string;
    assert.equal((await asBrowser('GET', `/schedules/${scheduleId}`)).body.data.handoffNotices, true);
    await app.page.getByText('Each person is emailed when their shift starts.').waitFor();
    await app.page.getByTestId('on-call-now').getByText(OWNER.name).waitFor();
    await app.page.locator('.cal-today .shift').first().waitFor();
    assert.match(await app.page.getByTestId('ical-link').getAttribute('href') as string, new RegExp(`/api/v1/schedules/${scheduleId}/calendar\\.ics$`));
    await app.page.locator('.hint', { hasText: `Times in ${ZONE}.` }).waitFor();
    await app.page.getByRole('button', { name: 'Yours (Europe/Berlin)' }).click();
    await app.page.locator('.hint', { hasText: 'Times in Europe/Berlin.' }).waitFor();
    await app.page.getByRole('button', { name: ZONE }).click();
    await assertAccessible(app.page, 'schedule (week)');
    await shot('schedule-week');
  });

  it('an override picked on the calendar changes who is on call, here and in the on-call view', async () => {
    await app.page.locator('.cal-today .cal-date').click();
    const dialog = app.page.getByRole('dialog');
    await dialog.getByRole('heading', { name: 'Add an override' }).waitFor();
    assert.equal(await dialog.getByLabel('Start').inputValue(), `${dateIn(ZONE, 0)}T00:00`);
    await dialog.getByLabel('Person').selectOption({ label: MEMBER.name });
    await assertAccessible(app.page, 'override dialog');
    await shot('override-dialog');
    await dialog.getByRole('button', { name: 'Save override' }).click();
    await app.page.getByTestId('on-call-now').getByText(MEMBER.name).waitFor();
    await app.page.locator('.cal-today .shift-override').first().waitFor();
    // The override in the schedule's zone, named, and on the viewer's (Berlin) clock beside it.
    await app.page.locator('.overrides li', { hasText: new RegExp(`${ZONE} \\(.+ yours\\)`) }).waitFor();
    const stored = (await asBrowser('GET', `/schedules/${scheduleId}`)).body.data;
    assert.equal(stored.overrides.length, 1);
    await app.page.getByRole('button', { name: 'Month' }).click();
    await app.page.locator('.cal-month').waitFor();
    await assertAccessible(app.page, 'schedule (month)');
    await shot('schedule-month');
    await app.page.getByTestId('calendar').screenshot({ path: path.join(ROOT, 'test-results', `${kind}-oncall-calendar.png`) });
    if (kind === 'sqlite') {
      mkdirSync(path.join(ROOT, 'docs/screenshots'), { recursive: true });
      await app.page.screenshot({ path: path.join(ROOT, 'docs/screenshots/oncall-calendar.png') });
    }
    await app.page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(app.page, 'schedule (dark)');
    await shot('schedule-dark');
    await app.page.emulateMedia({ colorScheme: 'light' });
    await app.page.setViewportSize({ width: 390, height: 800 });
    await app.page.locator('.cal-today .shift-override').first().waitFor();
    await assertAccessible(app.page, 'schedule (390 px)');
    await shot('schedule-390');
    await app.page.setViewportSize({ width: 1280, height: 900 });

    await app.page.getByRole('link', { name: 'Edit schedule' }).click();
    assert.equal(await app.page.getByLabel('First shift starts').inputValue(), `${dateIn(ZONE, -2)}T00:00`);
    await app.page.getByTestId('schedule-preview').getByText(`On call now: ${MEMBER.name}`).waitFor();
    await app.page.getByLabel('Layer name').fill('Office hours');
    await app.page.getByRole('button', { name: 'Add restriction' }).click();
    await assertAccessible(app.page, 'schedule editor (edit)');
    await app.page.getByRole('button', { name: 'Save schedule' }).click();
    await app.page.getByText('Office hours').first().waitFor();
    await app.page.getByText(`Only: Mon, Tue, Wed, Thu, Fri 09:00–17:00 (${ZONE})`).waitFor();
    // The same windows on the viewer's clock (Berlin is 5 or 6 hours ahead of New York).
    await app.page.getByText(/This week on your clock \(Europe\/Berlin\): Mon 1[45]:00–2[23]:00, Tue/).waitFor();
    assert.equal((await asBrowser('GET', `/schedules/${scheduleId}`)).body.data.overrides.length, 1, 'editing the layers kept the override');

    await app.page.getByRole('link', { name: 'On call', exact: true }).click();
    const row = app.page.getByTestId('oncall-table').getByRole('row', { name: /Primary/ });
    await row.getByText(MEMBER.name).waitFor();
    await assertAccessible(app.page, 'on call');
    await shot('oncall');
  });

  it('my on-call: my shifts in both zones, who follows, and a calendar feed that works without a header until revoked', async () => {
    await app.page.getByRole('link', { name: 'My on-call', exact: true }).click();
    await app.page.getByRole('heading', { name: 'My on-call', exact: true }).waitFor();
    const next = app.page.locator('.shifts-list li').first();
    await next.waitFor();
    // The viewer is in Berlin, the schedule in New York: both clocks are shown.
    assert.match(await next.innerText(), /^\w{3},? \d+ \w{3},? \d\d:\d\d.+\n.+ in New York \(America\/New_York\)\nPrimary · then (Max Member takes over|nobody is on call)$/);
    await app.page.getByText('No open incident is assigned to you or paged you.').waitFor();

    await app.page.getByRole('button', { name: 'Make a feed address' }).click();
    const first = (await app.page.getByTestId('feed-url').textContent()) as string;
    assert.match(first, /\/api\/calendar\/afcal_[\w-]+\.ics$/);
    const fetched = await fetch(first);
    assert.equal(fetched.status, 200);
    assert.match(fetched.headers.get('content-type') ?? '', /^text\/calendar/);
    assert.match(await fetched.text(), /SUMMARY:On call: Primary/);
    await assertAccessible(app.page, 'my on-call');
    await shot('my-oncall');
    await app.page.setViewportSize({ width: 390, height: 844 });
    await assertFits(app.page, 'my on-call (390 px)');
    await assertAccessible(app.page, 'my on-call (390 px)');
    await shot('my-oncall-390');
    await app.page.emulateMedia({ colorScheme: 'dark' });
    await assertAccessible(app.page, 'my on-call (390 px, dark)');
    await shot('my-oncall-390-dark');
    await app.page.emulateMedia({ colorScheme: 'light' });
    await app.page.setViewportSize({ width: 1280, height: 900 });

    await app.page.getByRole('button', { name: 'Make a new address' }).click();
    await app.page.getByRole('dialog').getByRole('button', { name: 'Make a new address' }).click();
    await app.page.getByTestId('feed-url').filter({ hasNotText: first }).waitFor();
    const second = (await app.page.getByTestId('feed-url').textContent()) as string;
    assert.equal((await fetch(first)).status, 401, 'the old address stopped working');
    assert.equal((await fetch(second)).status, 200);
    await app.page.getByRole('button', { name: 'Revoke' }).click();
    await app.page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await app.page.getByText('No feed address yet.').waitFor();
    assert.equal((await fetch(second)).status, 401);

    // A schedule's feed, from its page.
    await app.page.goto(`${app.base}/oncall/${scheduleId}`);
    await app.page.getByRole('region', { name: 'Calendar feed' }).getByRole('button', { name: 'Make a feed address' }).click();
    const feed = await fetch((await app.page.getByTestId('feed-url').textContent()) as string);
    assert.match(await feed.text(), new RegExp(`SUMMARY:On call: ${MEMBER.name}`));
    assert.deepEqual(app.errors, []);
  });

  it('creates a recurring window, previewing its next occurrences and the open alert it holds', async () => {
    const integ = await asBrowser('POST', '/integrations', { name: 'Prometheus' });
    assert.equal(integ.status, 201, JSON.stringify(integ.body));
    const sent = await fetch(integ.body.data.ingestUrl, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Disk full on db1', severity: 'high', labels: { env: 'prod' } }),
    });
    assert.equal(sent.status, 200, await sent.text());

    await app.page.getByRole('link', { name: 'Suppression', exact: true }).click();
    await app.page.getByText('No suppression windows').waitFor();
    await assertAccessible(app.page, 'suppression (empty)');
    await app.page.getByRole('link', { name: 'New window' }).click();
    await app.page.getByLabel('Name', { exact: true }).fill('Nightly backup');
    await app.page.getByLabel('Repeats').selectOption('daily');
    await app.page.getByRole('button', { name: 'Add matcher' }).click();
    await app.page.getByLabel('Field 1').fill('labels.env');
    await app.page.getByLabel('Value 1').fill('prod');
    const preview = app.page.getByTestId('window-preview');
    // Daily: five occurrences (a one-off window has one).
    await preview.getByTestId('next-occurrences').getByRole('listitem').nth(4).waitFor();
    await preview.getByTestId('held-alerts').getByRole('link', { name: 'Disk full on db1' }).waitFor();
    await app.page.getByLabel('Value 1').fill('staging');
    await preview.getByText('No open alert matches.').waitFor();
    await app.page.getByLabel('Value 1').fill('prod');
    await preview.getByTestId('held-alerts').waitFor();
    await assertAccessible(app.page, 'window editor');
    await shot('window-editor');
    assert.equal((await asBrowser('GET', '/suppression')).body.meta.total, 0, 'the preview stored nothing');
    await app.page.getByRole('button', { name: 'Create window' }).click();
    const row = app.page.getByTestId('windows-table').getByRole('row', { name: /Nightly backup/ });
    await row.waitFor();
    await row.getByText('Every day', { exact: true }).waitFor();
    assert.equal(await row.locator('.occurrences li').count(), 3);
    const stored = (await asBrowser('GET', '/suppression')).body.data[0];
    assert.equal(stored.recurrence, 'FREQ=DAILY');
    assert.deepEqual(stored.matchers, [{ field: 'labels.env', op: 'eq', value: 'prod' }]);
    await assertAccessible(app.page, 'suppression windows');
    await shot('suppression');
    await app.page.setViewportSize({ width: 390, height: 800 });
    // On a phone, a card per window: its dates on a line each, not a word each in a squeezed column.
    const card = app.page.getByRole('list', { name: 'Suppression windows' }).getByRole('listitem').filter({ has: app.page.getByRole('link', { name: 'Nightly backup' }) });
    await card.getByText('Every day', { exact: false }).waitFor();
    assert.equal(await card.locator('.occurrences li').count(), 3);
    await assertAccessible(app.page, 'suppression windows (390 px)');
    await shot('suppression-390');
    await app.page.setViewportSize({ width: 1280, height: 900 });
    await row.getByRole('link', { name: 'Nightly backup' }).click();
    assert.equal(await app.page.getByLabel('Repeats').inputValue(), 'daily');
    assert.equal(await app.page.getByLabel('Value 1').inputValue(), 'prod');
    await app.page.getByTestId('window-preview').getByTestId('held-alerts').waitFor();
    await assertAccessible(app.page, 'window editor (edit)');
    assert.deepEqual(app.errors, []);
  });
});
