/** Exponential backoff shared by everything that retries (dispatch deliveries, the Agent Lightning client). */

/** Delay before retry number `attempt` (1 = the first retry): baseMs x 2^(attempt-1), at most capMs. */
export function backoffDelayMs(attempt: number, opts: { baseMs: number; capMs?: number }): number {
  return Math.min(opts.capMs ?? Number.POSITIVE_INFINITY, opts.baseMs * 2 ** Math.max(0, attempt - 1));
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, ms));
}
