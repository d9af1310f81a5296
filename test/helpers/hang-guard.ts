// How long a test lets a child process (node with tsx, a server, a CLI)
// run before it counts as hung. Only bounds a hang, never how fast the child
// is: tsx alone took over 10 s to start beside a busy CPU, and the fixed
// 10-20 s kill timers then failed tests that were only slow. Under tap's
// 1200 s per file, so the hang is still reported by the test that hung.
export const CHILD_HANG_GUARD_MS = 120_000

/** How long one HTTP exchange with a server under test may take before it
 * counts as hung: only bounds a hang, never how fast an answer is. A first
 * request may wait for several voices' loads beside a busy CPU (over a
 * minute); just under tap's 1200 s per file, so the request that hung is
 * the one reported. */
export const REQUEST_HANG_GUARD_MS = 540_000

/** How long a poll for something the test caused may go on: it only ends a
 * hang. A count of polls is no bound on time here, since each poll may take
 * long on a busy machine; the deadline is what ends it. */
export const POLL_HANG_GUARD_MS = 480_000

/** Polls `check` every `pollMs` until it holds; throws naming `what` only
 * after POLL_HANG_GUARD_MS, so a busy machine makes a test slower, never red. */
export async function eventually (what: string, check: () => boolean | Promise<boolean>, pollMs = 20): Promise<void> {
  const deadline = Date.now() + POLL_HANG_GUARD_MS
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`)
    await new Promise(resolve => setTimeout(resolve, pollMs))
  }
}
