// Where a bench command reads its environment and writes its output:
// the process's own when run as `chorus bench`, replaceable in tests. The
// environment is handed in by the entry point (src/cli.ts), the one place
// that reads process.env.

import type { Writable } from 'node:stream'
import type { Env } from '../src/shared/config-values.js'

export interface BenchIo {
  env: Env
  stdout: Writable
  stderr: Writable
  /** Whether stderr is a terminal: the progress line is then on and rewritten in place. */
  stderrIsTTY: boolean
}

/** The process's own output streams, with the environment the entry point read. */
export function processIo (env: Env): BenchIo {
  return { env, stdout: process.stdout, stderr: process.stderr, stderrIsTTY: process.stderr.isTTY === true }
}

/** A progress line on stderr, when progress is shown. */
export function note (io: BenchIo, enabled: boolean, message: string): void {
  if (enabled) io.stderr.write(`${message}\n`)
}
