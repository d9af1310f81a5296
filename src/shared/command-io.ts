// What a server command (`chorus tools`, `chorus spawner`) takes from its
// process, overridable in tests. The environment is always handed in by the
// entry point (src/cli.ts), the one place that reads process.env; the
// streams default to the process's own.

import type { Readable, Writable } from 'node:stream'
import { ConfigError } from '../errors.js'
import type { Env } from './config-values.js'

export interface CommandIo {
  env: Env
  stdin?: Readable
  stdout?: Writable
  stderr?: Writable
  /** Stops the command like SIGTERM does. */
  signal?: AbortSignal
}

/**
 * A server command's configuration from its flags and environment, or the
 * exit code when there is nothing to serve: 2 after a ConfigError (written
 * to stderr as `chorus NAME: message`), 0 after `--help` wrote the usage.
 */
export function commandConfig<T extends { help: boolean }> (name: string, usage: string, parse: () => T, io: CommandIo): T | number {
  let config: T
  try {
    config = parse()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    const stderr = io.stderr ?? process.stderr
    stderr.write(`chorus ${name}: ${error.message}\n`)
    return 2
  }
  if (!config.help) return config
  const stdout = io.stdout ?? process.stdout
  stdout.write(usage)
  return 0
}
