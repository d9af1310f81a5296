// Typed readers for environment variables. Each names the variable in its
// error, in the one message format; the caller turns errors into exit code 2.

import { availableParallelism } from 'node:os'
import { ConfigError } from '../errors.js'
import type { Env } from '../shared/config-values.js'
import { expectedMessage } from '../validate.js'

// The commands still import Env from here; it is the shared kit's type.
export type { Env }

export class EnvReader {
  constructor (private readonly env: Env) {}

  has (name: string): boolean {
    return this.env[name] !== undefined && this.env[name] !== ''
  }

  string (name: string, fallback: string): string {
    return this.has(name) ? (this.env[name] as string) : fallback
  }

  optionalString (name: string): string | undefined {
    return this.has(name) ? this.env[name] : undefined
  }

  integer (name: string, fallback: number, min: number, max: number): number {
    if (!this.has(name)) return fallback
    const raw = (this.env[name] as string).trim()
    const value = /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new ConfigError(expectedMessage(`an integer from ${min} to ${max}`, name, this.env[name]))
    }
    return value
  }

  number (name: string, fallback: number, min: number, max: number): number {
    if (!this.has(name)) return fallback
    const raw = (this.env[name] as string).trim()
    const value = raw === '' ? Number.NaN : Number(raw)
    if (!Number.isFinite(value) || value < min || value > max) {
      throw new ConfigError(expectedMessage(`a number from ${min} to ${max}`, name, this.env[name]))
    }
    return value
  }

  oneOf<T extends string> (name: string, fallback: T, allowed: readonly T[]): T {
    if (!this.has(name)) return fallback
    const value = this.env[name] as T
    if (!allowed.includes(value)) {
      throw new ConfigError(expectedMessage(`one of ${allowed.join(', ')}`, name, value))
    }
    return value
  }
}

export const CORES = availableParallelism()
