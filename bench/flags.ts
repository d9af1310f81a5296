// Reading the harness's flags, once for every bench command (`chorus bench …`
// and `npm run soak`): each reader takes one flag with the shared kit's
// trimming rule and fails with a ConfigError (exit code 2) in the project's
// one message format:
//   Expected <what> for <flag> but received <value> (<type>)
// The flag tables the commands have in common are here too, so each command's
// table spreads them and lists only its own flags.

import { ConfigError } from '../src/errors.js'
import {
  choiceSetting, configError, integerSetting, numberSetting, pickSetting, type FlagSpecs, type FlagValues, type Setting
} from '../src/shared/config-values.js'
import { expectedMessage } from '../src/validate.js'

/** Every command that writes results: where they go, the progress line, and --help. */
export const OUTPUT_FLAGS: FlagSpecs = {
  out: { type: 'string' },
  progress: { type: 'boolean' },
  help: { type: 'boolean' }
}

/** A command that measures a voice of a folder, seeded, with --quick for a smoke run. */
export const VOICE_FLAGS: FlagSpecs = {
  voices: { type: 'string' },
  voice: { type: 'string' },
  seed: { type: 'string' },
  quick: { type: 'boolean' },
  ...OUTPUT_FLAGS
}

export function fail (what: string, flag: string, value: unknown): never {
  throw new ConfigError(expectedMessage(what, flag, value))
}

/** A flag's value, trimmed by the shared kit's one rule; undefined when not given. */
export function flag (values: FlagValues, name: string): Setting | undefined {
  return pickSetting(values, name, {}, [])
}

/** A flag's trimmed text as given, an empty one included. */
export function raw (values: FlagValues, name: string): string | undefined {
  return flag(values, name)?.value
}

/** A flag's text, which must not be empty; null when not given. */
export function nonEmpty (values: FlagValues, name: string): string | null {
  const setting = flag(values, name)
  if (setting === undefined) return null
  if (setting.value === '') throw configError('a non-empty value', setting)
  return setting.value
}

export function number<F extends number | null> (values: FlagValues, name: string, min: number, max: number, fallback: F): number | F {
  return numberSetting(flag(values, name), min, max, fallback)
}

export function integer<F extends number | null> (values: FlagValues, name: string, min: number, max: number, fallback: F): number | F {
  return integerSetting(flag(values, name), min, max, fallback)
}

export function oneOf<T extends string> (values: FlagValues, name: string, allowed: readonly T[], fallback: T): T {
  return choiceSetting(flag(values, name), allowed, fallback)
}

/** "20-50" or "30": a range of positive numbers. */
export function range (values: FlagValues, name: string, min: number, max: number, fallback: { min: number, max: number }): { min: number, max: number } {
  const value = raw(values, name)
  if (value === undefined) return fallback
  const match = /^(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?$/.exec(value)
  const low = Number(match?.[1])
  const high = match?.[2] === undefined ? low : Number(match[2])
  if (match === null || !(low >= min && high <= max && low <= high)) fail(`a number or a range like 20-50 within ${min}-${max}`, `--${name}`, value)
  return { min: low, max: high }
}

/** A comma-separated subset of `choices`, in the order given; all of them by default. */
export function subset<T extends string> (values: FlagValues, name: string, what: string, choices: readonly T[], defaults: readonly T[] = choices): T[] {
  const value = raw(values, name)
  if (value === undefined) return [...defaults]
  const parts = value.split(',').map(part => part.trim())
  if (!parts.every(part => (choices as readonly string[]).includes(part))) fail(`${what} among ${choices.join(', ')}`, `--${name}`, value)
  return [...new Set(parts)] as T[]
}
