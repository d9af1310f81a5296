// The keys in force, and their reload. The file is polled (a stat every
// interval, a read when it changed): inotify misses the symlink swap by which
// Kubernetes updates a mounted Secret, and a poll also sees an edit made
// while the service was busy. A bad edit keeps the previous keys and says
// why in the log, once per distinct reason; the keys themselves never reach
// the log.

import { createHash, timingSafeEqual } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { stat } from 'node:fs/promises'
import type { Logger } from '../shared/logger.js'
import { parseKeysFile, readKeysText, type ApiKey } from './keys-file.js'

const digest = (text: string): Buffer => createHash('sha256').update(text).digest()

interface Entry {
  digest: Buffer
  key: ApiKey
}

export interface KeyStoreEvents {
  /** The keys changed; the names now in force. */
  reloaded: [names: ReadonlySet<string>]
}

export class KeyStore extends EventEmitter<KeyStoreEvents> {
  private entries: Entry[] = []
  private seen = ''
  private lastProblem: string | undefined
  private timer: NodeJS.Timeout | undefined

  constructor (readonly file: string, keys: readonly ApiKey[], private readonly log: Logger) {
    super()
    this.use(keys)
  }

  get names (): ReadonlySet<string> {
    return new Set(this.entries.map(entry => entry.key.name))
  }

  /**
   * The key a client presented, or undefined. Every entry is compared, in
   * constant time, on digests of equal length: neither the position of a
   * match nor a common prefix shows in the time taken.
   */
  find (presented: string): ApiKey | undefined {
    const wanted = digest(presented)
    let found: ApiKey | undefined
    for (const entry of this.entries) if (timingSafeEqual(wanted, entry.digest)) found = entry.key
    return found
  }

  /** Reads the file again if it changed; true when new keys are in force. */
  async reload (): Promise<boolean> {
    let text: string
    let keys: ApiKey[]
    try {
      const info = await stat(this.file)
      const version = `${info.ino}:${info.size}:${info.mtimeMs}`
      if (version === this.seen) return false
      text = readKeysText(this.file)
      keys = parseKeysFile(text, this.file)
      this.seen = version
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error)
      if (reason !== this.lastProblem) this.log.warn({ file: this.file, reason }, 'API keys file not reloaded: keeping the previous keys')
      this.lastProblem = reason
      return false
    }
    this.lastProblem = undefined
    const changed = keys.length !== this.entries.length || keys.some((key, index) => !sameKey(key, this.entries[index]?.key))
    if (!changed) return false
    this.use(keys)
    this.log.info({ file: this.file, keys: keys.length, names: [...this.names] }, 'API keys reloaded')
    this.emit('reloaded', this.names)
    return true
  }

  /** Polls the file every intervalMs until close(). */
  watch (intervalMs: number): void {
    this.close()
    // The first poll records the file's version, so an unchanged file is not reported as a change.
    void this.reload()
    this.timer = setInterval(() => { void this.reload() }, intervalMs)
    this.timer.unref()
  }

  close (): void {
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
  }

  private use (keys: readonly ApiKey[]): void {
    this.entries = keys.map(key => ({ digest: digest(key.key), key }))
  }
}

function sameKey (a: ApiKey, b: ApiKey | undefined): boolean {
  return b !== undefined && JSON.stringify(a) === JSON.stringify(b)
}
