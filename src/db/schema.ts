/** Row types of every table. Timestamps are epoch milliseconds; JSON columns hold text (SQLite) or jsonb (PostgreSQL). */
export interface DB {
  meta: { key: string; value: string };
  orgs: { id: string; name: string; created_at: number };
  users: {
    id: string;
    org_id: string;
    email: string;
    name: string;
    role: string;
    password_hash: string | null;
    created_at: number;
    updated_at: number;
  };
  api_keys: {
    id: string;
    org_id: string;
    name: string;
    prefix: string;
    key_hash: string;
    scopes: string;
    expires_at: number | null;
    revoked_at: number | null;
    last_used_at: number | null;
    created_at: number;
    updated_at: number;
  };
  audit_events: {
    id: string;
    org_id: string;
    action: string;
    actor_type: string;
    actor_id: string | null;
    target_type: string | null;
    target_id: string | null;
    ip: string | null;
    metadata: string;
    created_at: number;
  };
  integrations: {
    id: string;
    org_id: string;
    name: string;
    preset: string;
    enabled: number;
    token: string;
    mapping: string | null;
    client_id: string | null;
    accepted_count: number;
    rejected_count: number;
    last_alert_at: number | null;
    last_rejected_at: number | null;
    created_at: number;
    updated_at: number;
  };
  integration_rejections: {
    id: string;
    org_id: string;
    integration_id: string;
    status: number;
    code: string;
    error: string;
    details: string | null;
    payload: string | null;
    created_at: number;
  };
  clients: {
    id: string;
    org_id: string;
    name: string;
    slug: string;
    contact_email: string | null;
    notes: string | null;
    created_at: number;
    updated_at: number;
  };
  suppression_windows: {
    id: string;
    org_id: string;
    name: string;
    description: string | null;
    starts_at: number;
    ends_at: number;
    matchers: string;
    recurrence: string | null;
    timezone: string;
    client_id: string | null;
    created_at: number;
    updated_at: number;
  };
  alert_counts: { org_id: string; status: string; shard: number; n: number };
  alerts: {
    id: string;
    org_id: string;
    integration_id: string | null;
    client_id: string | null;
    incident_id: string | null;
    fingerprint: string;
    title: string;
    severity: string;
    status: string;
    source: string | null;
    description: string | null;
    labels: string;
    annotations: string;
    payload: string;
    occurrences: number;
    last_seen_at: number;
    acknowledged_at: number | null;
    acknowledged_by_type: string | null;
    acknowledged_by_id: string | null;
    resolved_at: number | null;
    resolved_by_type: string | null;
    resolved_by_id: string | null;
    suppression_id: string | null;
    created_at: number;
    updated_at: number;
  };
}
