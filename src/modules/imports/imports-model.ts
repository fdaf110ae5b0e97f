import type { Layer } from '../schedules/rotation-fns.ts';
import type { Condition } from '../workflows/workflows-schemas.ts';

/**
 * What a source system holds, in AlertFlow's terms but still naming the source's own ids: each vendor's
 * mapping (sources/*.ts) produces this, and one planner (imports-service.ts) resolves the ids, checks and
 * writes it. People are named by their source id until the planner matches them by email.
 */

export const IMPORT_KINDS = ['user', 'contact_method', 'notification_rules', 'schedule', 'escalation_policy', 'integration', 'workflow'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

/** Something not carried over (whole, or a part of an object that is), and why. */
export interface Skip {
  kind: string;
  sourceId: string;
  name: string;
  reason: string;
}

export interface SourceContact {
  sourceId: string;
  /** A contact type of AlertFlow (contacts-schemas.ts). */
  type: string;
  label: string;
  target: Record<string, string>;
}

export interface SourceUser {
  sourceId: string;
  email: string;
  name: string;
  contacts: SourceContact[];
  /** The person's paging order, or null when the source has none to carry over. */
  rules: Array<{ contactSourceId: string; afterMinutes: number }> | null;
}

/** A layer as the rotation functions take it, but naming people by their source ids. */
export type SourceLayer = Layer;

export interface SourceSchedule {
  sourceId: string;
  name: string;
  description: string | null;
  timezone: string;
  /** Lowest precedence first, as AlertFlow orders them. */
  layers: SourceLayer[];
  overrides: Array<{ user: string; startsAt: number; endsAt: number }>;
}

export type SourceTarget = { type: 'user'; sourceId: string } | { type: 'schedule'; sourceId: string };

export interface SourcePolicy {
  sourceId: string;
  name: string;
  steps: Array<{ delayMinutes: number; targets: SourceTarget[] }>;
  repeat: number;
}

export interface SourceIntegration {
  sourceId: string;
  name: string;
  preset: string;
  enabled: boolean;
}

/**
 * Where the source sent the alerts of some integrations: a workflow that opens an incident and starts the
 * policy for alerts of those integrations meeting `conditions`.
 */
export interface SourceRoute {
  sourceId: string;
  name: string;
  description: string;
  integrations: string[];
  conditions: Condition | null;
  policy: string;
}

export interface SourceModel {
  users: SourceUser[];
  schedules: SourceSchedule[];
  policies: SourcePolicy[];
  integrations: SourceIntegration[];
  routes: SourceRoute[];
  skips: Skip[];
}

export const emptyModel = (): SourceModel => ({ users: [], schedules: [], policies: [], integrations: [], routes: [], skips: [] });

/** One object of the plan (or of the result, with `id`). */
export interface PlanItem {
  kind: ImportKind;
  sourceId: string;
  name: string;
  /** The AlertFlow id: known for updates and unchanged objects, and for creations once applied. */
  id?: string;
  /** What the person needs to finish the move: an integration's credentials, a new member's set-password link. */
  credentials?: Record<string, string>;
}

export interface ImportResult {
  system: string;
  applied: boolean;
  create: PlanItem[];
  update: PlanItem[];
  unchanged: PlanItem[];
  skip: Skip[];
}
