import assert from 'node:assert/strict';
import pino from 'pino';
import { importsRepo } from '../../src/modules/imports/imports-repo.ts';
import { importsService, type ImportsService } from '../../src/modules/imports/imports-service.ts';
import type { ImportResult } from '../../src/modules/imports/imports-model.ts';
import { IMPORT_SOURCES } from '../../src/modules/imports/sources/registry.ts';
import { after, before } from 'node:test';
import { startHarness, type Harness } from './harness.ts';
import type { StoreKind } from './stores.ts';
import { startFixture, type Fixture, type FixtureHandler } from './vendor-fixture.ts';

/** The import service on a harness's container, waiting on 429s by recording the pause instead of sleeping. */
export function importServiceFor(h: Harness, waits: number[] = []): ImportsService {
  const c = h.c;
  return importsService({
    store: c.store, repo: importsRepo(), users: c.users, contacts: c.contacts, schedules: c.schedules, escalations: c.escalations,
    integrations: c.integrations, workflows: c.workflows, orgExists: (id) => c.orgs.exists(id), clock: c.clock, log: pino({ level: 'silent' }),
    sleep: async (ms) => { waits.push(ms); }, sources: IMPORT_SOURCES,
  });
}

export const has = (r: ImportResult, list: 'create' | 'update' | 'unchanged', kind: string, sourceId: string): boolean =>
  r[list].some((i) => i.kind === kind && i.sourceId === sourceId);

/** Asserts the result skips that source object for a reason matching `reason`. */
export function skipped(r: ImportResult, kind: string, sourceId: string, reason: RegExp): void {
  assert.ok(r.skip.some((s) => s.kind === kind && s.sourceId === sourceId && reason.test(s.reason)), `no ${kind} ${sourceId} skip matching ${reason}: ${JSON.stringify(r.skip, null, 1)}`);
}

/** The AlertFlow id the result gives a created object. */
export const createdId = (r: ImportResult, kind: string, sourceId: string): string => {
  const id = r.create.find((i) => i.kind === kind && i.sourceId === sourceId)?.id;
  assert.ok(id, `${kind} ${sourceId} was not created: ${JSON.stringify(r.create)}`);
  return id;
};

/** What an import test works with; filled in by the `before` hook `importBed` registers. */
export interface ImportBed {
  h: Harness;
  fx: Fixture;
  imports: ImportsService;
  /** The pauses asked for by 429s. */
  waits: number[];
  /** Members already in AlertFlow, matched by email: alice@example.com and bob@example.com. */
  people: { alice: string; bob: string };
}

/** In a `describe`: a harness on `kind`, the vendor stand-in, and two members; closed after. */
export function importBed(kind: StoreKind, handler: () => FixtureHandler): ImportBed {
  const bed = { waits: [] as number[], people: { alice: '', bob: '' } } as ImportBed;
  before(async () => {
    bed.h = await startHarness(kind);
    bed.fx = await startFixture(handler());
    bed.imports = importServiceFor(bed.h, bed.waits);
    bed.people.alice = (await bed.h.c.users.add(bed.h.org.id, { email: 'alice@example.com', name: 'Alice', role: 'member' })).id;
    bed.people.bob = (await bed.h.c.users.add(bed.h.org.id, { email: 'bob@example.com', name: 'Bob', role: 'member' })).id;
  });
  after(async () => {
    await bed.fx?.close();
    await bed.h?.close();
  });
  return bed;
}
