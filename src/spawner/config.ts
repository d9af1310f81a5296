// Configuration of `chorus spawner`, the reference spawner: one typed
// object from flags and the environment, flags first.

import {
  configError, hostSetting, integerSetting, logLevelSetting, parseFlags, pickSetting, portSetting, tokenSetting,
  type Env, type FlagSpecs, type LogLevel, type Setting
} from '../shared/config-values.js'

export interface SpawnerConfig {
  host: string
  port: number
  token?: string
  /** Where the bots are kept across restarts; in memory only when unset. */
  stateFile?: string
  maxBots: number
  logLevel: LogLevel
  help: boolean
}

export const SPAWNER_DEFAULTS = { host: '127.0.0.1', port: 8993, maxBots: 100 } as const

const SPAWNER_FLAGS = {
  host: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
  'state-file': { type: 'string' },
  'max-bots': { type: 'string' },
  'log-level': { type: 'string' },
  help: { type: 'boolean' }
} satisfies FlagSpecs

/** Throws ConfigError naming the flag or variable at fault. */
export function parseSpawnerConfig (argv: readonly string[], env: Env): SpawnerConfig {
  const flags = parseFlags(argv, SPAWNER_FLAGS, 'spawner')
  const setting = (flag: string, ...variables: string[]): Setting | undefined => pickSetting(flags, flag, env, variables)
  return {
    host: hostSetting(setting('host', 'CHORUS_SPAWNER_HOST'), SPAWNER_DEFAULTS.host),
    port: portSetting(setting('port', 'CHORUS_SPAWNER_PORT'), SPAWNER_DEFAULTS.port, true),
    // SPAWNER_TOKEN too: in a stack the spawner and its clients share one secret.
    token: tokenSetting(setting('token', 'CHORUS_SPAWNER_TOKEN', 'SPAWNER_TOKEN')),
    stateFile: stateFileSetting(setting('state-file', 'CHORUS_SPAWNER_STATE_FILE')),
    maxBots: integerSetting(setting('max-bots', 'CHORUS_SPAWNER_MAX_BOTS'), 1, 1_000_000, SPAWNER_DEFAULTS.maxBots),
    logLevel: logLevelSetting(setting('log-level', 'CHORUS_LOG_LEVEL')),
    help: flags.help === true
  }
}

function stateFileSetting (setting: Setting | undefined): string | undefined {
  if (setting === undefined) return undefined
  if (setting.value === '' || setting.value.includes('\0')) throw configError('a file path', setting)
  return setting.value
}
