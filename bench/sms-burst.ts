/**
 * A burst of SMS pages through Twilio's simulator: `npm run bench:sms-burst` (options `--store sqlite|postgres`,
 * `--numbers 50`, `--incidents 10`, `--senders 10`). On each store, a real server (`serve`, default job settings)
 * pointed at test/support/twilio-sim.ts with a pool of sending numbers; members with confirmed SMS numbers (20 a
 * member at most, each confirmed with the code the simulator received); one payload opens `--incidents` incidents at
 * once, each paging every member, so `numbers × incidents` texts (500 by default) are due at the same moment.
 * Printed: the time from the ingest request until the simulator had every page, texts lost or sent twice (each
 * incident's page to each number must arrive exactly once), and the per-sending-number limit (Twilio's one message
 * a second per long code): the smallest gap the simulator saw between two texts from one sending number, and how
 * many texts the busiest sending number carried (the drain cannot be shorter than that many seconds, less one).
 */
import { parseArgs } from 'node:util';
import { eventually } from '../test/support/eventually.ts';
import { createIntegration, createOrg, runCli, startServer, stopAll, type ServerProcess } from '../test/support/process.ts';
import { createTestStore, type StoreKind } from '../test/support/stores.ts';
import { startTwilioSim, twilioEnv, type SimMessage } from '../test/support/twilio-sim.ts';

const { values } = parseArgs({ options: {
  store: { type: 'string', default: 'both' }, numbers: { type: 'string', default: '50' }, incidents: { type: 'string', default: '10' }, senders: { type: 'string', default: '10' },
} });
const NUMBERS = Number(values.numbers);
const INCIDENTS = Number(values.incidents);
const SENDERS = Number(values.senders);
const PER_MEMBER = 20;
const PASSWORD = 'correct horse battery staple';
const PUBLIC_URL = 'http://alertflow.test';
const stores: StoreKind[] = values.store === 'both' ? ['sqlite', 'postgres'] : [values.store as StoreKind];

const number = (i: number) => `+4915200${String(i).padStart(6, '0')}`;
const senders = Array.from({ length: SENDERS }, (_, i) => `+1500555${String(1000 + i)}`);

/** One member with up to 20 confirmed numbers, each confirmed with the code the simulator received for it. */
async function memberWith(server: ServerProcess, databaseUrl: string, orgId: string, email: string, numbers: string[], codeFor: (n: string) => Promise<string>): Promise<string> {
  const added = await runCli(['user', 'add', '--org', orgId, '--email', email, '--name', email, '--password', PASSWORD, '--json'], { DATABASE_URL: databaseUrl });
  if (added.code !== 0) throw new Error(`user add: ${added.stderr}`);
  const login = await server.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } });
  const headers = { cookie: (login.headers.get('set-cookie') as string).split(';')[0] as string, 'x-csrf-token': login.body.data.csrfToken as string };
  const methods = '/api/v1/users/me/contact-methods';
  // One number at a time: a code is sent at once or not at all ("too many messages to this number just now"),
  // and codes share the sending numbers' one-a-second pace.
  for (const n of numbers) {
    const m = await server.request('POST', methods, { headers, body: { type: 'sms', target: { number: n } } });
    if (m.status !== 201) throw new Error(`contact method: ${m.status} ${m.raw}`);
    const sent = await server.request('POST', `${methods}/${m.body.data.id as string}/send-code`, { headers });
    if (sent.body?.data?.status !== 'sent') throw new Error(`send-code ${n}: ${sent.raw}`);
    const ok = await server.request('POST', `${methods}/${m.body.data.id as string}/verify`, { headers, body: { code: await codeFor(n) } });
    if (ok.body?.data?.verified !== true) throw new Error(`verify ${n}: ${ok.raw}`);
  }
  return (JSON.parse(added.stdout) as { user: { id: string } }).user.id;
}

for (const kind of stores) {
  const t = await createTestStore(kind);
  const sim = await startTwilioSim({ fromNumbers: senders, publicUrl: PUBLIC_URL });
  const server = await startServer({ DATABASE_URL: t.url, BASE_URL: PUBLIC_URL, ...twilioEnv(sim) }, { timeoutMs: 90_000 });
  sim.appUrl = server.url;
  try {
    const org = await createOrg(t.url);
    const call = async (method: string, path: string, body: unknown) => {
      const r = await server.request(method, path, { key: org.apiKey, body });
      if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.raw}`);
      return r.body;
    };
    const codeFor = async (n: string) => {
      const m = await eventually(`the code to ${n}`, () => sim.messages.find((x) => x.to === n), 30_000);
      return /(\d) (\d) (\d) (\d) (\d) (\d)/.exec(m.body)!.slice(1).join('');
    };
    const all = Array.from({ length: NUMBERS }, (_, i) => number(i));
    const members: string[] = [];
    for (let i = 0; i < NUMBERS; i += PER_MEMBER) members.push(await memberWith(server, t.url, org.org.id, `m${i}@acme.test`, all.slice(i, i + PER_MEMBER), codeFor));

    const integ = await createIntegration(server, org.apiKey);
    await call('PATCH', `/api/v1/integrations/${integ.id}`, { mapping: { itemsPath: 'items' } });
    const policy = await call('POST', '/api/v1/escalation-policies', { name: 'Burst', steps: [{ delayMinutes: 5, targets: members.map((id) => ({ type: 'user', id })) }] });
    await call('POST', '/api/v1/workflows', { name: 'Page', trigger: 'alert.created', actions: [{ type: 'create_incident', groupBy: ['labels.n'], escalationPolicyId: policy.data.id }] });

    const isPage = (m: SimMessage) => m.body.startsWith('AlertFlow [HIGH]');
    const items = Array.from({ length: INCIDENTS }, (_, i) => ({ title: `Burst ${i}`, severity: 'high', labels: { n: String(i) } }));
    const started = Date.now();
    const r = await server.request('POST', integ.path, { body: { items } });
    if (r.status !== 200) throw new Error(`ingest: ${r.status} ${r.raw}`);
    const expected = NUMBERS * INCIDENTS;
    await eventually('every page at the simulator', () => (sim.messages.filter(isPage).length >= expected ? true : undefined), 900_000, 200);
    const drained = Math.max(...sim.messages.filter(isPage).map((m) => m.at)) - started;
    // A little longer: anything sent twice would come now.
    await new Promise((resolve) => setTimeout(resolve, 3000));

    const pages = sim.messages.filter(isPage);
    const seen = new Map<string, number>();
    for (const m of pages) {
      const key = `${m.to} ${/Burst \d+/.exec(m.body)?.[0] ?? m.body}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    const twice = [...seen.values()].filter((n) => n > 1).length;
    const lost = expected - seen.size;
    // The pages from each sending number: the gaps between them, and the most within any 10 s.
    let minGap = Infinity;
    let under = 0;
    let busiest = 0;
    let perTen = 0;
    for (const from of senders) {
      const at = sim.messages.filter((m) => m.from === from && isPage(m)).map((m) => m.at).sort((a, b) => a - b);
      busiest = Math.max(busiest, at.length);
      for (let i = 1; i < at.length; i++) {
        const gap = (at[i] as number) - (at[i - 1] as number);
        minGap = Math.min(minGap, gap);
        if (gap < 1000) under++;
      }
      // Jitter of a send after its slot shows as a gap a little under a second; over ten seconds it evens out.
      for (let i = 0, j = 0; i < at.length; i++) {
        while ((at[i] as number) - (at[j] as number) >= 10_000) j++;
        perTen = Math.max(perTen, i - j + 1);
      }
    }
    console.log(`${kind}: ${pages.length} texts of ${expected} (${NUMBERS} numbers × ${INCIDENTS} incidents, ${SENDERS} sending numbers) at the simulator ${drained} ms after the ingest request; ` +
      `lost ${lost}, twice ${twice}; busiest sending number carried ${busiest} (floor ${(busiest - 1)} s); per sending number: smallest gap ${minGap} ms (${under} gaps under 1 s), at most ${perTen} texts in any 10 s; Twilio refusals ${sim.refusals.length}`);
  } finally {
    await stopAll([server]);
    await sim.close();
    await t.drop();
  }
}
