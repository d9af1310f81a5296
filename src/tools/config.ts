// The tool server's configuration: one typed object, parsed once at start-up
// from flags and the environment. Flags override variables. This is the only
// place the tool server reads the environment.

import { ConfigError } from '../errors.js'
import { expectedMessage } from '../validate.js'
import {
  choiceSetting, configError, envSetting, originsSetting, hostSetting, integerSetting, logLevelSetting, parseFlags, pickSetting, portSetting, tokenSetting,
  type Env, type FlagSpecs, type FlagValues, type LogLevel, type Setting
} from '../shared/config-values.js'
import { unmetNameRule, type BotName } from '../shared/bot-names.js'

export interface SpawnerClientConfig {
  host: string
  port: number
  /** Sent as `Authorization: Bearer <token>`; never logged. */
  token?: string
  /** Per request, from sending it to the last byte of the body. */
  timeoutMs: number
  /** Retries for GET only; POST, PATCH and DELETE are never retried. */
  retries: number
  /** Most bytes of one answer's body that are read; the rest is never received. */
  maxBodyBytes: number
}

export interface ToolsHttpConfig {
  host: string
  port: number
  path: string
  /** When set, every /mcp request needs `Authorization: Bearer <token>`. */
  token?: string
  /** Browser origins allowed to call /mcp; requests from any other origin get 403. */
  allowedOrigins: string[]
  /** Sessions kept; a newcomer may only replace one that is not active. */
  maxSessions: number
  /** New sessions (initialize calls) one remote address may open per minute. */
  sessionsPerMinute: number
}

/** Bounds on the work one message, batch or session can cause, on both transports. */
export interface ToolsLimits {
  /** Most messages one JSON-RPC batch may hold. */
  maxBatch: number
  /** Spawner calls one session may have in flight. */
  callsPerSession: number
  /** Spawner calls the whole server may have in flight. */
  spawnerCalls: number
  /** Bytes of tool results the server holds until their answers are written (answer-budget.ts). */
  maxAnswerBytes: number
}

/** Which tools the ownership rule guards: `actions` (start, stop, restart;
 * the original contract) or `strict` (delete, and create under a parent, too). */
export type OwnershipMode = 'actions' | 'strict'
const OWNERSHIP_MODES: readonly OwnershipMode[] = ['actions', 'strict']

export interface ToolsConfig {
  transport: 'http' | 'stdio'
  http: ToolsHttpConfig
  spawner: SpawnerClientConfig
  limits: ToolsLimits
  /** The active bot, on whose behalf the tools act; undefined when not configured. */
  identity?: BotName
  ownership: OwnershipMode
  logLevel: LogLevel
  help: boolean
}

export const TOOLS_DEFAULTS = {
  host: '0.0.0.0',
  port: 8999,
  path: '/mcp',
  spawnerHost: 'opensim-ai-spawner',
  spawnerPort: 8993,
  spawnerTimeoutMs: 10_000,
  spawnerRetries: 2,
  // A bot list of thousands of bots is a few hundred kilobytes.
  spawnerMaxBodyBytes: 4 * 1024 * 1024,
  maxSessions: 1000,
  sessionsPerMinute: 60,
  maxBatch: 32,
  callsPerSession: 4,
  spawnerCalls: 16,
  // Four answers of the largest body read whole, for every session together.
  maxAnswerBytes: 16 * 1024 * 1024
} as const

const TOOLS_FLAGS = {
  stdio: { type: 'boolean' },
  host: { type: 'string' },
  port: { type: 'string' },
  path: { type: 'string' },
  'spawner-host': { type: 'string' },
  'spawner-port': { type: 'string' },
  'max-answer-bytes': { type: 'string' },
  'spawner-token': { type: 'string' },
  'spawner-timeout-ms': { type: 'string' },
  'spawner-retries': { type: 'string' },
  'spawner-max-body-bytes': { type: 'string' },
  'first-name': { type: 'string' },
  'last-name': { type: 'string' },
  'log-level': { type: 'string' },
  'max-sessions': { type: 'string' },
  'sessions-per-minute': { type: 'string' },
  'max-batch': { type: 'string' },
  'calls-per-session': { type: 'string' },
  'spawner-calls': { type: 'string' },
  ownership: { type: 'string' },
  help: { type: 'boolean' }
} satisfies FlagSpecs

/** Throws ConfigError naming the flag or variable at fault. */
export function parseToolsConfig (argv: readonly string[], env: Env): ToolsConfig {
  const flags = parseFlags(argv, TOOLS_FLAGS, 'tools')
  const setting = (flag: string, ...variables: string[]): Setting | undefined => pickSetting(flags, flag, env, variables)
  return {
    transport: flags.stdio === true ? 'stdio' : 'http',
    http: {
      host: hostSetting(setting('host', 'CHORUS_TOOLS_HOST'), TOOLS_DEFAULTS.host),
      port: portSetting(setting('port', 'CHORUS_TOOLS_PORT'), TOOLS_DEFAULTS.port, true),
      path: pathSetting(setting('path', 'CHORUS_TOOLS_PATH')),
      token: tokenSetting(envSetting(env, 'CHORUS_TOOLS_TOKEN')),
      allowedOrigins: originsSetting(envSetting(env, 'CHORUS_TOOLS_ALLOWED_ORIGINS')),
      maxSessions: integerSetting(setting('max-sessions', 'CHORUS_TOOLS_MAX_SESSIONS'), 1, 1_000_000, TOOLS_DEFAULTS.maxSessions),
      sessionsPerMinute: integerSetting(setting('sessions-per-minute', 'CHORUS_TOOLS_SESSIONS_PER_MINUTE'), 1, 1_000_000, TOOLS_DEFAULTS.sessionsPerMinute)
    },
    spawner: {
      host: hostSetting(setting('spawner-host', 'SPAWNER_HOST'), TOOLS_DEFAULTS.spawnerHost),
      port: portSetting(setting('spawner-port', 'SPAWNER_PORT'), TOOLS_DEFAULTS.spawnerPort),
      token: tokenSetting(setting('spawner-token', 'SPAWNER_TOKEN')),
      timeoutMs: integerSetting(setting('spawner-timeout-ms', 'SPAWNER_TIMEOUT_MS'), 1, 600_000, TOOLS_DEFAULTS.spawnerTimeoutMs),
      retries: integerSetting(setting('spawner-retries', 'SPAWNER_RETRIES'), 0, 10, TOOLS_DEFAULTS.spawnerRetries),
      maxBodyBytes: integerSetting(setting('spawner-max-body-bytes', 'SPAWNER_MAX_BODY_BYTES'), 1024, 1024 * 1024 * 1024, TOOLS_DEFAULTS.spawnerMaxBodyBytes)
    },
    limits: {
      maxBatch: integerSetting(setting('max-batch', 'CHORUS_TOOLS_MAX_BATCH'), 1, 10_000, TOOLS_DEFAULTS.maxBatch),
      callsPerSession: integerSetting(setting('calls-per-session', 'CHORUS_TOOLS_CALLS_PER_SESSION'), 1, 1000, TOOLS_DEFAULTS.callsPerSession),
      spawnerCalls: integerSetting(setting('spawner-calls', 'CHORUS_TOOLS_SPAWNER_CALLS'), 1, 10_000, TOOLS_DEFAULTS.spawnerCalls),
      maxAnswerBytes: integerSetting(setting('max-answer-bytes', 'CHORUS_TOOLS_MAX_ANSWER_BYTES'), 64 * 1024, Number.MAX_SAFE_INTEGER, TOOLS_DEFAULTS.maxAnswerBytes)
    },
    identity: parseIdentity(flags, env),
    ownership: choiceSetting(setting('ownership', 'CHORUS_TOOLS_OWNERSHIP'), OWNERSHIP_MODES, 'actions'),
    logLevel: logLevelSetting(setting('log-level', 'CHORUS_LOG_LEVEL')),
    help: flags.help === true
  }
}

function pathSetting (setting: Setting | undefined): string {
  if (setting === undefined) return TOOLS_DEFAULTS.path
  if (!/^\/[A-Za-z0-9._~\-/]*$/.test(setting.value) || ['/healthz', '/metrics'].includes(setting.value)) {
    throw configError('a URL path starting with "/" (not /healthz or /metrics)', setting)
  }
  return setting.value
}

/** Both parts of the active bot's name, or neither. */
function parseIdentity (flags: FlagValues, env: Env): BotName | undefined {
  const first = pickSetting(flags, 'first-name', env, ['OPENSIM_BOT_FIRST', 'BOT_FIRSTNAME'])
  const last = pickSetting(flags, 'last-name', env, ['OPENSIM_BOT_LAST', 'BOT_LASTNAME'])
  if (first === undefined && last === undefined) return undefined
  if (first === undefined) {
    throw new ConfigError(expectedMessage('the bot first name (it is needed with the last name)', '--first-name, OPENSIM_BOT_FIRST or BOT_FIRSTNAME', undefined))
  }
  if (last === undefined) {
    throw new ConfigError(expectedMessage('the bot last name (it is needed with the first name)', '--last-name, OPENSIM_BOT_LAST or BOT_LASTNAME', undefined))
  }
  return { first: namePart(first), last: namePart(last) }
}

function namePart (setting: Setting): string {
  const rule = unmetNameRule(setting.value)
  if (rule !== undefined) throw configError(rule, setting)
  return setting.value
}
