// Where a bench command reads its environment and writes its output;
// the process's own by default, replaceable in tests.

import type { Writable } from 'node:stream'
import type { Env } from '../service/env.js'

export interface BenchIo {
  env: Env
  stdout: Writable
  stderr: Writable
  /** Whether stderr is a terminal: the progress line is then on and rewritten in place. */
  stderrIsTTY: boolean
}

export function processIo (): BenchIo {
  return { env: process.env, stdout: process.stdout, stderr: process.stderr, stderrIsTTY: process.stderr.isTTY === true }
}
