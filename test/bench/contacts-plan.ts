import { startHarness } from '../support/harness.ts';

/**
 * What asking for a member's paging plan costs the escalation engine, once per page: `contacts.planFor` 1,000 times
 * for a member with 5 methods and 5 rules, on each store. Run: `npx node test/bench/contacts-plan.ts`.
 */

const N = 1000;
for (const kind of ['sqlite', 'postgres'] as const) {
  const h = await startHarness(kind);
  const member = await h.c.users.add(h.org.id, { email: 'bench@acme.test', name: 'Bench', role: 'member' });
  const actor = { type: 'user' as const, id: member.id };
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await h.c.contacts.create(h.org.id, actor, member.id, { type: 'email', target: { to: `bench+${i}@acme.test` } })).id);
  await h.c.contacts.replaceRules(h.org.id, actor, member.id, { rules: ids.map((id, i) => ({ contactMethodId: id, afterMinutes: i * 3 })) });
  const took: number[] = [];
  for (let i = 0; i < N; i++) {
    const start = performance.now();
    await h.c.contacts.planFor(h.org.id, member.id);
    took.push(performance.now() - start);
  }
  took.sort((a, b) => a - b);
  const at = (q: number) => (took[Math.floor(q * N)] as number).toFixed(2);
  console.log(`${kind}: planFor ×${N} (5 methods, 5 rules): p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, total ${took.reduce((a, b) => a + b, 0).toFixed(0)} ms`);
  await h.close();
}
