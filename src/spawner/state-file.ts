// Persistence of the reference spawner's bots, so that a restart keeps the
// tree. Every save writes a temporary file beside the target, flushes it and
// renames it over the target: a crash leaves the old state or the new one,
// never half of either. Saves are queued so they land in order.

import { randomBytes } from 'node:crypto'
import { open, readFile, rename, rm } from 'node:fs/promises'
import { isPlainObject } from '../validate.js'
import { LEVELS, type StoredBot } from './store.js'

const FORMAT_VERSION = 1

export class StateFile {
  readonly path: string
  #queue: Promise<void> = Promise.resolve()

  constructor (path: string) {
    this.path = path
  }

  /** The saved bots; none when the file does not exist yet. Throws when it is not ours. */
  async load (): Promise<StoredBot[]> {
    let text: string
    try {
      text = await readFile(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    }
    const state: unknown = JSON.parse(text)
    if (!isPlainObject(state) || state.version !== FORMAT_VERSION || !Array.isArray(state.bots) || !state.bots.every(isStoredBot)) {
      throw new Error(`${this.path} is not a state file written by chorus spawner`)
    }
    return state.bots
  }

  async save (bots: readonly StoredBot[]): Promise<void> {
    const text = JSON.stringify({ version: FORMAT_VERSION, bots }, null, 2) + '\n'
    const write = this.#queue.then(async () => { await this.#writeAtomically(text) })
    // A failed save must not block the ones after it; its caller still sees the error.
    this.#queue = write.catch(() => undefined)
    await write
  }

  async #writeAtomically (text: string): Promise<void> {
    const temporary = `${this.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`
    try {
      const file = await open(temporary, 'w', 0o600)
      try {
        await file.writeFile(text, 'utf8')
        await file.sync()
      } finally {
        await file.close()
      }
      await rename(temporary, this.path)
    } catch (error) {
      await rm(temporary, { force: true })
      throw error
    }
  }
}

function isStoredBot (value: unknown): value is StoredBot {
  if (!isPlainObject(value)) return false
  const strings = ['first', 'last', 'password', 'email', 'uuid', 'model'].every((key) => typeof value[key] === 'string')
  const level = LEVELS.some((candidate) => candidate === value.level)
  const parent = value.parent === null || typeof value.parent === 'string'
  return strings && level && parent && Array.isArray(value.containerStatus)
}
