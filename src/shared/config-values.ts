// Reading settings from flags and environment variables, shared by every
// command (`chorus serve`, `say`, `voices`, `tools`, `spawner`, `bench`). A setting's value comes from its flag
// when given, else from the first of its variables that is set and not blank.
// One trimming rule for every setting: surrounding whitespace is dropped
// before the value is checked, so a variable that is blank after trimming
// counts as unset. Every error names the flag or variable the bad value came
// from, in the one message format (expectedMessage).

import { isIP } from 'node:net'
import { availableParallelism } from 'node:os'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { ConfigError } from '../errors.js'
import { expectedMessage } from '../validate.js'

export type Env = Readonly<Record<string, string | undefined>>
export type FlagSpecs = NonNullable<ParseArgsConfig['options']>
export type FlagValues = Record<string, string | boolean | undefined>

/** A raw setting and the name (flag or variable) it was read from. */
export interface Setting {
  value: string
  name: string
}

/**
 * Parses flags strictly: an unknown flag, a positional argument, a value
 * missing from a string flag or given to a boolean one is a ConfigError that
 * names it. Node's strict mode throws messages we would have to pick apart,
 * so the tokens are checked here instead.
 */
export function parseFlags (argv: readonly string[], specs: FlagSpecs, command: string): FlagValues {
  return parseCommandLine(argv, specs, command, false).values
}

/** parseFlags for a command that also takes arguments (`chorus bench compare a b`). */
export function parseCommandLine (argv: readonly string[], specs: FlagSpecs, command: string, positionals: boolean): { values: FlagValues, positionals: string[] } {
  const parsed = parseArgs({ args: [...argv], options: specs, strict: false, allowPositionals: true, tokens: true })
  for (const token of parsed.tokens) {
    if (token.kind === 'positional') {
      if (positionals) continue
      throw new ConfigError(`Unexpected argument ${JSON.stringify(token.value)} for chorus ${command}`)
    }
    if (token.kind !== 'option') continue
    const spec = specs[token.name]
    if (spec === undefined) throw new ConfigError(`Unknown flag ${token.rawName} for chorus ${command}`)
    if (spec.type === 'string') {
      if (token.value === undefined) throw new ConfigError(`Expected a value for ${token.rawName} but received none`)
      if (!token.inlineValue && token.value.startsWith('--')) {
        throw new ConfigError(`Expected a value for ${token.rawName} but received the flag ${token.value}`)
      }
    } else if (token.value !== undefined) {
      throw new ConfigError(`Unexpected value ${JSON.stringify(token.value)} for ${token.rawName}, which takes none`)
    }
  }
  return { values: parsed.values, positionals: parsed.positionals }
}

export function pickSetting (flags: FlagValues, flag: string, env: Env, variables: readonly string[]): Setting | undefined {
  const fromFlag = flags[flag]
  if (typeof fromFlag === 'string') return { value: fromFlag.trim(), name: `--${flag}` }
  for (const variable of variables) {
    const value = env[variable]?.trim()
    if (value !== undefined && value !== '') return { value, name: variable }
  }
  return undefined
}

/** A setting with no flag: secrets stay out of argv, where `ps` shows them. */
export function envSetting (env: Env, ...variables: string[]): Setting | undefined {
  return pickSetting({}, '', env, variables)
}

/** The machine's cores: the default of the settings that scale with it. */
export const CORES = availableParallelism()

export function configError (what: string, setting: Setting): ConfigError {
  return new ConfigError(expectedMessage(what, setting.name, setting.value))
}

/** A decimal integer within [min, max]; "8e3", "0x1f" or "-0" are refused. */
export function integerSetting<F extends number | null> (setting: Setting | undefined, min: number, max: number, fallback: F): number | F {
  if (setting === undefined) return fallback
  const value = setting.value
  const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN
  if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
    throw configError(`an integer from ${min} to ${max}`, setting)
  }
  return parsed
}

/** A decimal number within [min, max], like "0.5" or "12"; "1e3", ".5" or "-1" are refused. */
export function numberSetting<F extends number | null> (setting: Setting | undefined, min: number, max: number, fallback: F): number | F {
  if (setting === undefined) return fallback
  const parsed = /^\d+(?:\.\d+)?$/.test(setting.value) ? Number(setting.value) : Number.NaN
  if (!(parsed >= min && parsed <= max)) throw configError(`a number from ${min} to ${max}`, setting)
  return parsed
}

/** Any text (a path, a file name); unset gives the fallback. */
export function stringSetting<F extends string | undefined> (setting: Setting | undefined, fallback: F): string | F {
  return setting === undefined ? fallback : setting.value
}

/** One of a fixed set of words, like "0" or "1". */
export function choiceSetting<T extends string> (setting: Setting | undefined, allowed: readonly T[], fallback: T): T {
  if (setting === undefined) return fallback
  const value = allowed.find(candidate => candidate === setting.value)
  if (value === undefined) throw configError(`one of ${allowed.join(', ')}`, setting)
  return value
}

export function portSetting (setting: Setting | undefined, fallback: number, allowZero = false): number {
  return integerSetting(setting, allowZero ? 0 : 1, 65535, fallback)
}

// A host name: dot-separated labels of letters, digits, '-' and '_' (Docker
// service names), each at most 63 characters. No scheme, path, user info or spaces.
const LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?'
const HOST_NAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`)

/** The host as listen() takes it (an IPv6 literal without brackets), or undefined if it is none. */
function parseHost (value: string): string | undefined {
  const bare = value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value
  if (bare.includes(':')) return isIP(bare) === 6 ? bare : undefined
  // Digits and dots only can only be an IPv4 address: 999.1.1.1 is not a
  // name to look up (listen() would fail on it with a stack, not a message).
  if (/^[0-9.]+$/.test(bare)) return isIP(bare) === 4 ? bare : undefined
  return bare.length <= 253 && HOST_NAME.test(bare) ? bare : undefined
}

export function hostSetting (setting: Setting | undefined, fallback: string): string {
  if (setting === undefined) return fallback
  const host = parseHost(setting.value)
  if (host === undefined) throw configError('a host name or IP address', setting)
  return host
}

/** Brackets an IPv6 literal so it can stand in a URL. */
export function urlHost (host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}

/** A token that is blank (a flag given as "") counts as unset. */
export function tokenSetting (setting: Setting | undefined): string | undefined {
  const token = setting?.value
  if (token === undefined || token === '') return undefined
  if (!/^[\x21-\x7e]+$/.test(token)) {
    // Never echo a secret, not even in a configuration error.
    throw new ConfigError(`Expected printable ASCII without spaces for ${setting!.name} but received a value that is not`)
  }
  return token
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = typeof LOG_LEVELS[number]

export function logLevelSetting (setting: Setting | undefined): LogLevel {
  if (setting === undefined) return 'info'
  const level = LOG_LEVELS.find((candidate) => candidate === setting.value)
  if (level === undefined) throw configError(`one of ${LOG_LEVELS.join(', ')}`, setting)
  return level
}

/** Browser origins, comma-separated, each exactly as a browser sends it
 * (`scheme://host[:port]`, no path): the Origin header is compared verbatim. */
export function originsSetting (setting: Setting | undefined): string[] {
  if (setting === undefined) return []
  return setting.value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '').map((origin) => {
    let parsed: URL | undefined
    try {
      parsed = new URL(origin)
    } catch {
      parsed = undefined
    }
    if (parsed === undefined || parsed.origin !== origin) {
      throw configError('a comma-separated list of origins like http://localhost:3000', { name: setting.name, value: origin })
    }
    return origin
  })
}
