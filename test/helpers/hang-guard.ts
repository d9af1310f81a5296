// How long a test lets a child process (node with tsx, a server, a CLI)
// run before it counts as hung. Only bounds a hang, never how fast the child
// is: tsx alone took over 10 s to start beside a busy CPU, and the fixed
// 10-20 s kill timers then failed tests that were only slow. Under tap's
// 600 s per file, so the hang is still reported by the test that hung.
export const CHILD_HANG_GUARD_MS = 120_000
