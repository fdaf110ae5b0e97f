/**
 * The size of one page of 100 alerts at the ingest limits (docs/senders.md, "Ingest"): with plain text, and with
 * characters JSON must escape (6 bytes each), the worst case. `npx node bench/page-size.ts`
 */
import { startHarness, type Harness } from '../test/support/harness.ts';

async function pageOf100(h: Harness, ch: string): Promise<number> {
  const org = await h.newOrg();
  const integ = await h.integration(org);
  const text = (n: number) => ch.repeat(n);
  // Entries sized so that each map stays just under its 16 KiB-as-JSON bound.
  const map = () => {
    const out: Record<string, string> = {};
    for (let i = 0; JSON.stringify(out).length < 15_000; i++) out[`k${i}`] = text(Math.floor(3000 / JSON.stringify(ch).length));
    return out;
  };
  for (let i = 0; i < 100; i++) {
    await h.ingestAlert(integ.path, {
      title: `${i}${text(1023 - String(i).length)}`, severity: 'low', source: text(1024), description: text(15_000),
      fingerprint: `${i}${'f'.repeat(500)}`, labels: map(), annotations: map(),
    });
  }
  return Buffer.byteLength((await h.req('GET', '/api/v1/alerts?limit=100', { key: org.key })).raw);
}

const h = await startHarness('sqlite');
try {
  for (const [what, ch] of [['plain text', 'x'], ['characters JSON escapes', '\u0001']] as const) {
    console.log(`page of 100 alerts at the limits, ${what}: ${((await pageOf100(h, ch)) / 1e6).toFixed(2)} MB`);
  }
} finally {
  await h.close();
}
