// What a server command (`chorus tools`, `chorus spawner`) takes from its
// process, overridable in tests. The environment is always handed in by the
// entry point (src/cli.ts), the one place that reads process.env; the
// streams default to the process's own.

import type { Readable, Writable } from 'node:stream'
import type { Env } from './config-values.js'

export interface CommandIo {
  env: Env
  stdin?: Readable
  stdout?: Writable
  stderr?: Writable
  /** Stops the command like SIGTERM does. */
  signal?: AbortSignal
}
