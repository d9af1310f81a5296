// Node's `--import` for runs from the TypeScript sources (tap's node-arg, the
// child processes tests and the harness start): tsx in the main thread only.
// Worker threads inherit the process's `--import` flags, and tsx in every
// thread costs a compiler start per thread; worker entries load their bundle
// or register tsx themselves (dev-workers.mjs), so they need none of it.
import { isMainThread } from 'node:worker_threads'

if (isMainThread) await import('tsx')
