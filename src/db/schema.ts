import type { Generated } from 'kysely';

/** The additive measures of the analytics rollups (migration 0019). */
export interface AnalyticsCounts {
  alerts: number;
  occurrences: number;
  quick_resolves: number;
  incidents: number;
  pages: number;
  flaps: number;
}

/** Row types of every table. Timestamps are epoch milliseconds; JSON columns hold text (SQLite) or jsonb (PostgreSQL). */
export interface DB {
  meta: { key: string; value: string };
  orgs: {
    id: string;
    name: string;
    created_at: number;
    /** IANA zone of the organization's days, weeks and months (migration 0019). */
    timezone: Generated<string>;
    /** JSON array of the label keys analytics rolls up. */
    analytics_labels: Generated<string>;
  };
  users: {
    id: string;
    org_id: string;
    email: string;
    name: string;
    role: string;
    password_hash: string | null;
    created_at: number;
    updated_at: number;
    /** IANA zone of the member's working hours; null: the organization's. */
    timezone: Generated<string | null>;
  };
  sessions: {
    id_hash: string;
    org_id: string;
    user_id: string;
    csrf_token: string;
    created_at: number;
    last_seen_at: number;
  };
  password_links: {
    token_hash: string;
    org_id: string;
    user_id: string;
    expires_at: number;
    used_at: number | null;
    created_at: number;
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
    /** How many uses an `api_key.used` event counts (its minute's); 1 for every other event. */
    uses: Generated<number>;
  };
  integrations: {
    id: string;
    org_id: string;
    name: string;
    preset: string;
    enabled: number;
    token: string;
    /** PagerDuty Events API v2 `routing_key` (migration 0019), and its SHA-256 digest, which lookups use. */
    routing_key: string;
    routing_key_digest: string;
    /** Opsgenie Alert API key (`Authorization: GenieKey …`), and its digest. */
    genie_key: string;
    genie_key_digest: string;
    mapping: string | null;
    client_id: string | null;
    accepted_count: number;
    rejected_count: number;
    last_alert_at: number | null;
    last_rejected_at: number | null;
    /** Flap detection (migration 0032): this many changes within the window make an alert flap; unchanged for `flap_stable_seconds`, it stops. */
    flap_threshold?: number;
    flap_window_seconds?: number;
    flap_stable_seconds?: number;
    created_at: number;
    updated_at: number;
  };
  opsgenie_requests: {
    id: string;
    org_id: string;
    integration_id: string;
    action: string;
    success: number;
    status: string;
    alert_id: string | null;
    alias: string | null;
    processed_at: number;
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
    /** JSON array of the addresses the monthly report goes to. */
    report_recipients: Generated<string>;
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
  schedules: {
    id: string;
    org_id: string;
    name: string;
    description: string | null;
    timezone: string;
    layers: string;
    overrides: string;
    /** 1: the incoming on-call person is told when their shift starts. */
    handoff_notices: Generated<number>;
    created_at: number;
    updated_at: number;
  };
  handoff_notices: {
    idempotency_key: string;
    org_id: string;
    schedule_id: string;
    user_id: string;
    starts_at: number;
    ends_at: number | null;
    status: string;
    error: string | null;
    created_at: number;
  };
  workflows: {
    id: string;
    org_id: string;
    name: string;
    description: string | null;
    enabled: number;
    trigger: string;
    conditions: string | null;
    actions: string;
    created_at: number;
    updated_at: number;
  };
  alert_events: { id: Generated<number>; org_id: string; alert_id: string; type: string; created_at: number };
  live_events: { seq: Generated<number>; org_id: string; type: string; entity_id: string; status: string; severity: string; title: string; created_at: number };
  jobs: {
    id: string;
    queue: string;
    data: string;
    state: string;
    attempts: number;
    max_attempts: number;
    run_at: number;
    locked_until: number | null;
    last_error: string | null;
    created_at: number;
    updated_at: number;
    priority: Generated<number>;
    group_id: string | null;
  };
  workflow_runs: {
    id: string;
    org_id: string;
    workflow_id: string;
    alert_id: string;
    event_id: string;
    trigger: string;
    matched: number;
    actions: string;
    created_at: number;
    updated_at: number;
  };
  incident_counters: { org_id: string; last_number: number };
  incidents: {
    id: string;
    org_id: string;
    number: number;
    workflow_id: string | null;
    group_key: string;
    title: string;
    severity: string;
    status: string;
    assignee_id: string | null;
    alert_count: number;
    client_id: string | null;
    acknowledged_at: number | null;
    resolved_at: number | null;
    created_at: number;
    updated_at: number;
    /** While snoozed: when it triggers again (migration 0027). */
    snoozed_until: number | null;
  };
  incident_events: {
    id: string;
    org_id: string;
    incident_id: string;
    type: string;
    actor_type: string;
    actor_id: string | null;
    data: string;
    created_at: number;
  };
  notifications: {
    id: string;
    org_id: string;
    /** Null for a notice about no alert (a handoff, a test page; migration 0019). */
    alert_id: string | null;
    incident_id: string | null;
    /** Null unless `source` is `workflow`. */
    workflow_id: string | null;
    action_index: number | null;
    channel: string;
    target: string;
    status: string;
    attempts: number;
    last_error: string | null;
    response_status: number | null;
    created_at: number;
    updated_at: number;
    sent_at: number | null;
    idempotency_key: string;
    /** workflow, escalation, heartbeat or handoff (migration 0014). */
    source: string;
    escalation_id: string | null;
    step: number | null;
    recipient_id: string | null;
    /** A notice's subject and text (JSON); null for a page, which is built from its alert at send time. */
    payload: string | null;
    /** The provider's id of what was sent (a Twilio SID, a Slack channel and ts, a Telegram chat and message; migration 0025). */
    provider_ref: string | null;
    /** The provider's last reported status (Twilio status callbacks). */
    provider_status: string | null;
    /** The send slot this attempt holds under its channel's pace (one SMS a second per number); null between attempts. */
    paced_at: number | null;
  };
  reply_codes: { address: string; code: string; org_id: string; notification_id: string; incident_id: string; expires_at: number };
  inbound_answers: {
    id: string; org_id: string; notification_id: string; incident_id: string; channel: string; event_key: string;
    action: string; outcome: string; user_id: string | null; via: string; created_at: number;
  };
  send_pace: { key: string; next_at: number };
  /** An organization's own set-up of a channel (its Slack app, its Telegram bot): JSON, secrets in clear (migration 0029). */
  channel_settings: { org_id: string; channel: string; config: string; created_at: number; updated_at: number };
  /** A one-time code a member links a chat account with (its hash). */
  contact_links: { code_hash: string; org_id: string; user_id: string; channel: string; expires_at: number };
  /** Who a linked chat account is: a member of the organization. */
  channel_identities: { org_id: string; channel: string; external_id: string; user_id: string; created_at: number };
  escalation_policies: {
    id: string;
    org_id: string;
    name: string;
    steps: string;
    repeat: number;
    created_at: number;
    updated_at: number;
  };
  escalations: {
    id: string;
    org_id: string;
    incident_id: string;
    policy_id: string;
    /** The alert that started it: escalation pages are logged under it. */
    alert_id: string;
    /** The policy's steps and repeat when it started. */
    policy: string;
    /** After a reassignment: the new assignee, paged in step 1 besides its targets. */
    assignee_id: string | null;
    /** active, stopped or done; a responder request: responding, then stopped. */
    status: string;
    /** policy (the incident's escalation, at most one active) or responder (a page now, beside it); migration 0027. */
    kind: string;
    repeat: number;
    step: number;
    started_at: number;
    stopped_at: number | null;
    stop_reason: string | null;
  };
  escalation_steps: { escalation_id: string; repeat: number; step: number; fired_at: number };
  /** Secret calendar feeds: kind `member` (subject a user) or `schedule` (migration 0029). */
  calendar_feeds: { id: string; org_id: string; kind: string; subject_id: string; token_hash: string; created_at: number; last_used_at: number | null };
  page_link_uses: { token_hash: string; org_id: string; incident_id: string; recipient_id: string | null; action: string; used_at: number };
  alert_counts: { org_id: string; status: string; shard: number; n: number };
  /** Bumped whenever what ingest caches per organization changes (config-versions.ts). */
  config_versions: { org_id: string; version: number };
  heartbeats: {
    id: string;
    org_id: string;
    name: string;
    interval_seconds: number;
    grace_seconds: number;
    severity: string;
    client_id: string | null;
    labels: string;
    paused: number;
    token_hash: string;
    /** new (never pinged), up, down (missed; its alert is open until the next ping). */
    state: string;
    last_ping_at: number | null;
    due_at: number;
    created_at: number;
    updated_at: number;
  };
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
    /**
     * 1: written while its fingerprint flaps (migration 0032); 0 again once the fingerprint is stable. Optional
     * only for rows built before their insert (the column defaults to 0); read rows carry it.
     */
    flapping?: number | undefined;
    created_at: number;
    updated_at: number;
  };
  /** Each (integration, fingerprint)'s recent changes and flapping state, kept by the alert writer (migration 0032). */
  alert_flaps: { org_id: string; integration_id: string; fingerprint: string; changes: string; flapping: number; since: number | null; last_change_at: number };
  analytics_hourly: AnalyticsCounts & { org_id: string; dim: string; hour: number; key: string };
  analytics_daily: AnalyticsCounts & { org_id: string; dim: string; day: number; key: string };
  analytics_noisy_daily: AnalyticsCounts & { org_id: string; day: number; integration_id: string; fingerprint: string; client_id: string; title: string };
  analytics_noisy_monthly: AnalyticsCounts & { org_id: string; month: number; integration_id: string; fingerprint: string; client_id: string; title: string };
  analytics_pages: { org_id: string; day: number; user_id: string; client_id: string; working: number; off_hours: number };
  analytics_incidents: {
    incident_id: string;
    org_id: string;
    opened_at: number;
    severity: string;
    client_id: string;
    integration_id: string;
    labels: string;
    ack_ms: number | null;
    resolve_ms: number | null;
    page_ms: number | null;
  };
  client_report_sends: {
    org_id: string;
    client_id: string;
    period: string;
    recipient: string;
    status: string;
    error: string | null;
    created_at: number;
    updated_at: number;
  };
  contact_methods: {
    id: string;
    org_id: string;
    user_id: string;
    /** A channel of the registry (email, webhook, sms, …). */
    type: string;
    label: string;
    /** The type's target as JSON, secrets in clear (masked only in responses). */
    target: string;
    created_at: number;
    updated_at: number;
    /**
     * When its owner confirmed the code sent to it, for channels that page only confirmed targets (a phone
     * number); null until then. The code itself is kept only as a hash, with its expiry, the wrong guesses at
     * it and the codes sent in the current window (migration 0025).
     */
    verified_at: number | null;
    verify_code_hash: string | null;
    verify_expires_at: number | null;
    verify_attempts: number;
    verify_sends: number;
    verify_window_at: number | null;
  };
  notification_rules: {
    org_id: string;
    user_id: string;
    position: number;
    contact_method_id: string;
    after_minutes: number;
  };
  import_links: {
    org_id: string;
    /** pagerduty, opsgenie, grafana-oncall. */
    system: string;
    /** user, contact_method, notification_rules, schedule, escalation_policy, integration, workflow. */
    kind: string;
    source_id: string;
    target_id: string;
    digest: string;
    created_at: number;
    updated_at: number;
  };
}
