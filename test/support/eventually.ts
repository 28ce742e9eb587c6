// Waiting for work a background process does (projectors, workers, job engines, the sandbox receiving).

/** Not there yet: what a check answers until its condition holds. */
type NotYet = undefined | null | false;

/**
 * Polls `check` until it answers something other than undefined, null or false, and returns that answer.
 * Fails with `what` after `timeoutMs` instead of hanging; the default is generous, because on a loaded
 * machine background work may take a while and a slow condition is not what a test is about.
 */
export async function eventually<T>(what: string, check: () => T | NotYet | Promise<T | NotYet>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
