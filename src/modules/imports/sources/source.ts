import type { SourceModel } from '../imports-model.ts';
import type { VendorHttp } from '../vendor-http.ts';

/** One system `alertflow import` reads: how to authenticate, and how its API maps to AlertFlow's objects. */
export interface ImportSource {
  /** The CLI's name for it, and the `system` its links are stored under. */
  system: string;
  /** Its name in messages. */
  vendor: string;
  /** The headers that carry the token. */
  headers(token: string): Record<string, string>;
  /** What the token must be allowed to read, for the message when the vendor refuses it. */
  needs: string;
  /** The fields of a new integration its senders need, shown once after apply: the URL and key of the API they speak. */
  senderFields: ReadonlyArray<'ingestUrl' | 'pagerdutyUrl' | 'routingKey' | 'opsgenieApiUrl' | 'genieKey'>;
  /** Everything to import, read at `now` (past overrides and ended layers are left out). */
  read(http: VendorHttp, now: number): Promise<SourceModel>;
}

/** A JSON object from a vendor, read defensively: any field may be missing. */
export type Json = Record<string, unknown>;

export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
export const arr = (v: unknown): Json[] => (Array.isArray(v) ? v.filter((x): x is Json => x !== null && typeof x === 'object') : []);
export const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
export const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
