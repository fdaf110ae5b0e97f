import type { paths } from './schema';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Ok<Op> = Op extends { responses: { 200: infer R } } ? Json<R> : Op extends { responses: { 201: infer R } } ? Json<R> : never;

export type Alert = Ok<paths['/alerts/{id}']['get']>['data'];
export type AlertListItem = Ok<paths['/alerts']['get']>['data'][number];
export type AlertQuery = NonNullable<paths['/alerts']['get']['parameters']['query']>;
export type Notification = Ok<paths['/alerts/{id}/notifications']['get']>['data'][number];
export type Severity = Alert['severity'];
export type AlertStatus = Alert['status'];
export type Integration = Ok<paths['/integrations/{id}']['get']>['data'];
export type Mapping = NonNullable<Integration['mapping']>;
export type Preset = Ok<paths['/integrations/presets']['get']>['data'][number];
export type PresetName = Integration['preset'];
export type Preview = Ok<paths['/integrations/{id}/preview']['post']>['data'];
export type Rejection = Ok<paths['/integrations/{id}/rejections']['get']>['data'][number];
export type ApiKey = Ok<paths['/api-keys']['get']>['data'][number];
export type NewApiKey = Ok<paths['/api-keys']['post']>['data'];
export type Scope = ApiKey['scopes'][number];
export type AuditEntry = Ok<paths['/audit-log']['get']>['data'][number];
export type AuditQuery = NonNullable<paths['/audit-log']['get']['parameters']['query']>;
export type ListMeta = Ok<paths['/alerts']['get']>['meta'];
type Body<Op> = Op extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
export type CreateIntegrationBody = Body<paths['/integrations']['post']>;
export type PatchIntegrationBody = Body<paths['/integrations/{id}']['patch']>;
