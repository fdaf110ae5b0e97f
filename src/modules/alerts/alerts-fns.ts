export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const STATUSES = ['firing', 'resolved', 'acknowledged', 'suppressed'] as const;
export type AlertStatus = (typeof STATUSES)[number];
/** An alert is open while in one of these; at most one open alert per organization and fingerprint. */
export const OPEN_STATUSES = ['firing', 'acknowledged', 'suppressed'] as const;
