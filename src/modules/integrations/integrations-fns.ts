/** Characters of an ingest token left visible to callers without `integrations:write`, to tell tokens apart. */
export const VISIBLE_TOKEN_CHARS = 4;

/** An ingest token as a reader sees it: enough to recognize it, never enough to ingest with it. */
export const maskToken = (token: string): string => `…${token.slice(-VISIBLE_TOKEN_CHARS)}`;
