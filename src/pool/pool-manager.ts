// The loaded voices: one VoicePool per voice, at most `maxLoadedVoices` of
// them. When another voice must load, the least recently used pool is
// retired: it leaves the table at once and closes when its work is done.

import { basename, dirname } from 'node:path'
import type { Logger } from 'pino'
import type { VoiceConfig } from '../engine/index.js'
import { VoiceBrokenError } from '../errors.js'
import { VoicePool, type VoicePoolOptions } from './voice-pool.js'

export interface PoolSource {
  name: string
  modelPath: string
  config: VoiceConfig
  /** Changes when the voice's files change: a broken voice is retried then. */
  version: string
}

/** A voice whose files would not load, and why. */
export interface BrokenVoice {
  version: string
  reason: string
}

export interface PoolManagerOptions extends VoicePoolOptions {
  maxLoadedVoices: number
}

interface PoolEntry {
  promise: Promise<VoicePool>
  /** Set once loaded. */
  pool?: VoicePool
  /** Requests holding this pool; a retired pool closes when none is left. */
  holds: number
  drained?: () => void
}

/** A request's use of a voice's pool; release it when the request is done. */
export interface PoolLease {
  pool: VoicePool
  release: () => void
}

export class PoolManager {
  private readonly pools = new Map<string, PoolEntry>()
  private readonly retiring = new Set<Promise<void>>()
  private readonly brokenVoices = new Map<string, BrokenVoice>()

  constructor (private readonly options: PoolManagerOptions, private readonly log: Logger) {}

  /** The voice's pool, loading it (and retiring the LRU pool) if needed. */
  async acquire (source: PoolSource): Promise<PoolLease> {
    const broken = this.brokenVoices.get(source.name)
    if (broken !== undefined && broken.version === source.version) throw new VoiceBrokenError(source.name, broken.reason)
    let entry = this.pools.get(source.name)
    if (entry === undefined) {
      await this.makeRoom()
      // Another request may have started the same voice while we waited.
      entry = this.pools.get(source.name)
    }
    if (entry === undefined) {
      const created: PoolEntry = { promise: this.load(source), holds: 0 }
      created.promise.then(pool => {
        created.pool = pool
        this.brokenVoices.delete(source.name)
      }, (error: unknown) => {
        // A voice that failed to load is not kept, and is refused with the
        // reason until its files change (then the next request tries again).
        if (this.pools.get(source.name) === created) this.pools.delete(source.name)
        const reason = brokenReason(source.modelPath, error)
        this.brokenVoices.set(source.name, { version: source.version, reason })
        this.log.error({ voice: source.name, reason }, 'voice cannot be loaded')
      })
      this.pools.set(source.name, created)
      entry = created
    }
    // Held before waiting, so a retirement meanwhile cannot close it under us.
    const held = entry
    held.holds++
    let released = false
    const release = () => {
      if (released) return
      released = true
      held.holds--
      if (held.holds === 0) held.drained?.()
    }
    try {
      const pool = await held.promise
      pool.lastUsed = Date.now()
      return { pool, release }
    } catch (error) {
      release()
      throw new VoiceBrokenError(source.name, brokenReason(source.modelPath, error))
    }
  }

  private async load (source: PoolSource): Promise<VoicePool> {
    const started = performance.now()
    const pool = new VoicePool(source.name, source.modelPath, source.config, this.options, this.log)
    await pool.start()
    this.log.info({ voice: source.name, workers: this.options.workers, ms: Math.round(performance.now() - started), memoryBytes: pool.memoryBytes }, 'voice loaded')
    return pool
  }

  private async makeRoom (): Promise<void> {
    while (this.pools.size >= this.options.maxLoadedVoices) {
      // A pool still loading counts as just used: it is about to serve.
      const ages = [...this.pools.entries()].map(([name, entry]) => ({ name, lastUsed: entry.pool?.lastUsed ?? Date.now() }))
      const oldest = ages.sort((a, b) => a.lastUsed - b.lastUsed)[0]
      this.retire(oldest.name, 'least recently used')
    }
  }

  /** Takes a voice's pool out of service; requests already running finish. */
  retire (name: string, reason: string): void {
    const entry = this.pools.get(name)
    if (entry === undefined) return
    this.pools.delete(name)
    const drained = entry.holds === 0 ? Promise.resolve() : new Promise<void>(resolve => { entry.drained = resolve })
    const closing = entry.promise.then(async p => {
      this.log.info({ voice: name, reason }, 'voice unloading')
      await drained
      await p.close()
    }, () => {}).finally(() => this.retiring.delete(closing))
    this.retiring.add(closing)
  }

  /** Voices whose files failed to load, with the reason. */
  broken (): Map<string, BrokenVoice> {
    return new Map(this.brokenVoices)
  }

  /** The voices whose pools have finished loading. */
  loaded (): Map<string, VoicePool> {
    const result = new Map<string, VoicePool>()
    for (const [name, entry] of this.pools) if (entry.pool !== undefined) result.set(name, entry.pool)
    return result
  }

  isLoaded (name: string): boolean {
    return this.pools.has(name)
  }

  get loadedCount (): number {
    return this.pools.size
  }

  async close (): Promise<void> {
    for (const name of [...this.pools.keys()]) this.retire(name, 'shutdown')
    await Promise.all(this.retiring)
  }
}

/** The load failure's message, without the server's folders. */
function brokenReason (modelPath: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.split(dirname(modelPath) + '/').join('').replace(/^Cannot load model [^:]*: /, '') || basename(modelPath)
}
