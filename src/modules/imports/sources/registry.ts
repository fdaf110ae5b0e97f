import { grafanaOncall } from './grafana-oncall.ts';
import { opsgenie } from './opsgenie.ts';
import { pagerduty } from './pagerduty.ts';
import type { ImportSource } from './source.ts';

/** The systems `alertflow import` reads: adding one is a file beside these and a line here. */
export const IMPORT_SOURCES: readonly ImportSource[] = [pagerduty, opsgenie, grafanaOncall];
