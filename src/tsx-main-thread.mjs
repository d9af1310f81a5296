// Node's `--import` for runs from the TypeScript sources (tap's node-arg, the
// child processes tests and the harness start): tsx in the main thread only.
// Worker threads inherit the process's `--import` flags, and tsx in every
// thread costs a compiler start per thread; worker entries load their bundle
// or register tsx themselves (dev-workers.mjs), so they need none of it.
// A compiled entry (`npm test` runs the tests tsc built into dist/) needs no
// compiler: tsx's hooks on every module it loads cost ~0.5 s of CPU a process.
// tap's `before` step runs with coverage on, and fails a run whose coverage
// is incomplete: test support is left out.
/* c8 ignore start */
import { isMainThread } from 'node:worker_threads'

const compiled = /[\\/]dist[\\/].+\.js$/.test(process.argv[1] ?? '')
if (isMainThread && !compiled) await import('tsx')
/* c8 ignore stop */
