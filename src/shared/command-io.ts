// What a server command (`chorus tools`, `chorus spawner`) takes from its
// process, overridable in tests; defaults are the process's own.

import type { Readable, Writable } from 'node:stream'
import type { Env } from './config-values.js'

export interface CommandIo {
  env?: Env
  stdin?: Readable
  stdout?: Writable
  stderr?: Writable
  /** Stops the command like SIGTERM does. */
  signal?: AbortSignal
}
