// The loaded voices: one VoicePool per voice, within a memory budget and a
// cap on their number. When another voice must load, the least recently used
// idle pools are retired (see eviction.ts): each leaves the table at once and
// closes when its work is done, and counts against the budget until then.
// A voice whose pools are all busy is never evicted; the request that needs
// room waits for some, bounded by its own signal (the request timeout).

import { EventEmitter } from 'node:events'
import { basename, dirname } from 'node:path'
import type { Logger } from 'pino'
import { releaseFreedMemory } from '../engine/runtime.js'
import type { VoiceConfig } from '../engine/index.js'
import { SynthesisCancelledError } from '../engine/errors.js'
import { voiceBroken } from '../voices/errors.js'
import { overBudget, planRoom, type EvictionReason, type Occupant } from './eviction.js'
import type { InferenceGate } from './inference-gate.js'
import { HeapSweep, MemoryReleaser } from '../engine/memory/index.js'
import { VoicePool, type VoicePoolOptions } from './voice-pool.js'

export interface PoolSource {
  name: string
  modelPath: string
  config: VoiceConfig
  modelBytes: number
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
  memoryBudgetBytes: number
}

/**
 * A voice being loaded counts as its model file × this until it reports its
 * own figure: the weights once, plus ONNX Runtime's pre-packed copies and
 * arenas. (Measured targets: ≤ 1.5 × the model for a medium voice with two
 * workers; the margin keeps concurrent first loads from overshooting.)
 */
export const LOAD_ESTIMATE_FACTOR = 2

/**
 * Why a voice can never load within `budgetBytes`, or undefined. Such a voice
 * is refused at the scan and here, before any eviction: loading it would
 * retire every idle voice and still fail (issue 27, finding 5).
 */
export function overBudgetReason (modelBytes: number, budgetBytes: number): string | undefined {
  const estimate = modelBytes * LOAD_ESTIMATE_FACTOR
  if (estimate <= budgetBytes) return undefined
  return `its estimated memory (${estimate} bytes, ${LOAD_ESTIMATE_FACTOR} × its model's ${modelBytes}) is over the voice memory budget of ${budgetBytes} bytes (TTS_VOICE_MEMORY_BYTES)`
}

export type VoiceState = 'unloaded' | 'loading' | 'loaded' | 'retiring'

interface PoolEntry {
  name: string
  modelPath: string
  promise: Promise<VoicePool>
  /** Set once loaded. */
  pool?: VoicePool
  estimateBytes: number
  /** Requests holding this pool; a retired pool closes when none is left. */
  holds: number
  drained?: () => void
  /** When a request last took or gave back the pool. */
  lastUsed: number
}

/** A request's use of a voice's pool; release it when the request is done. */
export interface PoolLease {
  pool: VoicePool
  release: () => void
}

export interface PoolManagerEvents {
  loaded: [name: string, seconds: number]
  evicted: [name: string, reason: EvictionReason]
}

function entryBytes (entry: PoolEntry): number {
  // A pool reporting nothing has not measured itself: its estimate stands.
  const reported = entry.pool?.memoryBytes ?? 0
  return reported > 0 ? reported : entry.estimateBytes
}

export class PoolManager extends EventEmitter<PoolManagerEvents> {
  private readonly pools = new Map<string, PoolEntry>()
  private readonly retiring = new Set<PoolEntry>()
  private readonly closings = new Set<Promise<void>>()
  /** Each voice's figure when it last loaded: a better estimate for its next load than its file size. */
  private readonly lastKnownBytes = new Map<string, number>()
  /** Wakes requests waiting for room: a release, a load settled, a pool closed. */
  private waiters = new Set<() => void>()
  private closed = false
  private readonly brokenVoices = new Map<string, BrokenVoice>()
  readonly gate: InferenceGate
  private readonly releaser: MemoryReleaser
  readonly heapSweep: HeapSweep

  constructor (private readonly options: PoolManagerOptions, private readonly log: Logger) {
    super()
    this.gate = options.gate
    this.releaser = new MemoryReleaser(this.gate, releaseFreedMemory, error => { log.warn({ err: error }, 'releasing freed memory failed') })
    this.releaser.start()
    this.heapSweep = new HeapSweep(error => { log.warn({ err: error }, 'collecting the main thread\'s garbage failed') })
  }

  /** The voice's pool, loading it (and retiring LRU idle pools) if needed.
   * Waits for room while every pool is busy; `signal` bounds the wait. */
  async acquire (source: PoolSource, signal?: AbortSignal): Promise<PoolLease> {
    const broken = this.brokenVoices.get(source.name)
    if (broken !== undefined && broken.version === source.version) throw voiceBroken(source.name, broken.reason)
    const tooBig = this.pools.has(source.name) ? undefined : overBudgetReason(source.modelBytes, this.options.memoryBudgetBytes)
    if (tooBig !== undefined) throw voiceBroken(source.name, tooBig)
    for (;;) {
      if (signal?.aborted === true) throw new SynthesisCancelledError()
      if (this.closed) throw new SynthesisCancelledError('The service is shutting down')
      const entry = this.pools.get(source.name) ?? this.loadIfRoom(source)
      if (entry !== undefined) return await this.lease(entry, signal)
      await this.nextChange(signal)
    }
  }

  /** Loads the voice only if it fits without evicting anything (preloading).
   * Resolves true once it is loaded (or already was), false if it does not fit. */
  async loadWithoutEvicting (source: PoolSource): Promise<boolean> {
    if (this.closed) return false
    let entry = this.pools.get(source.name)
    if (entry === undefined) {
      if (this.plan(source).kind !== 'fits') return false
      entry = this.startLoad(source)
    }
    const lease = await this.lease(entry)
    lease.release()
    return true
  }

  private occupants (): Occupant[] {
    return [...this.pools.values()].map(entry => ({
      name: entry.name,
      bytes: entryBytes(entry),
      lastUsed: entry.lastUsed,
      idle: entry.pool !== undefined && entry.holds === 0 && entry.pool.activeRequests === 0
    }))
  }

  private estimate (source: PoolSource): number {
    return this.lastKnownBytes.get(source.name) ?? source.modelBytes * LOAD_ESTIMATE_FACTOR
  }

  private plan (source: PoolSource): ReturnType<typeof planRoom> {
    const retiring = { count: this.retiring.size, bytes: [...this.retiring].reduce((sum, entry) => sum + entryBytes(entry), 0) }
    return planRoom(this.occupants(), retiring, this.estimate(source),
      { maxVoices: this.options.maxLoadedVoices, budgetBytes: this.options.memoryBudgetBytes })
  }

  /** Starts the load if there is room now; else retires what must go and returns undefined. */
  private loadIfRoom (source: PoolSource): PoolEntry | undefined {
    const plan = this.plan(source)
    if (plan.kind === 'fits') return this.startLoad(source)
    if (plan.kind === 'evict') for (const victim of plan.victims) this.retire(victim.name, victim.reason)
    return undefined
  }

  private startLoad (source: PoolSource): PoolEntry {
    const entry: PoolEntry = {
      name: source.name,
      modelPath: source.modelPath,
      promise: this.load(source),
      estimateBytes: this.estimate(source),
      holds: 0,
      lastUsed: Date.now()
    }
    entry.promise.then(pool => {
      entry.pool = pool
      this.brokenVoices.delete(source.name)
      // A pool retired while it loaded (its files changed) says nothing about the next load.
      if (pool.memoryBytes > 0 && this.pools.get(source.name) === entry) this.lastKnownBytes.set(source.name, pool.memoryBytes)
      for (const name of overBudget(this.occupants(), this.options.memoryBudgetBytes)) this.retire(name, 'memory')
    }, (error: unknown) => {
      // A voice that failed to load is not kept, and is refused with the
      // reason until its files change (then the next request tries again).
      if (this.pools.get(source.name) === entry) this.pools.delete(source.name)
      const reason = brokenReason(source.modelPath, error)
      this.brokenVoices.set(source.name, { version: source.version, reason })
      this.log.error({ voice: source.name, reason }, 'voice cannot be loaded')
    }).finally(() => this.notify())
    this.pools.set(source.name, entry)
    return entry
  }

  private async lease (entry: PoolEntry, signal?: AbortSignal): Promise<PoolLease> {
    // Held before waiting, so a retirement meanwhile cannot close it under us.
    entry.holds++
    let released = false
    const release = () => {
      if (released) return
      released = true
      entry.holds--
      entry.lastUsed = Date.now()
      if (entry.holds === 0) {
        entry.drained?.()
        this.notify()
      }
    }
    let pool: VoicePool
    try {
      pool = await untilAborted(entry.promise, signal)
    } catch (error) {
      release()
      if (error instanceof SynthesisCancelledError) throw error
      throw voiceBroken(entry.name, brokenReason(entry.modelPath, error))
    }
    entry.lastUsed = Date.now()
    return { pool, release }
  }

  private async load (source: PoolSource): Promise<VoicePool> {
    const started = performance.now()
    const pool = new VoicePool(source.name, source.modelPath, source.config, this.options, this.log)
    await pool.start()
    const seconds = (performance.now() - started) / 1000
    this.log.info({ voice: source.name, workers: this.options.workers, ms: Math.round(seconds * 1000), memoryBytes: pool.memoryBytes }, 'voice loaded')
    this.emit('loaded', source.name, seconds)
    return pool
  }

  private async nextChange (signal?: AbortSignal): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        this.waiters.delete(wake)
        reject(new SynthesisCancelledError())
      }
      const wake = () => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.waiters.add(wake)
    })
  }

  private notify (): void {
    const waiters = this.waiters
    this.waiters = new Set()
    for (const wake of waiters) wake()
  }

  /** Takes a voice's pool out of service; requests already running finish. */
  retire (name: string, reason: EvictionReason): void {
    const entry = this.pools.get(name)
    if (entry === undefined) return
    this.pools.delete(name)
    // New files may weigh something else: the next load starts from the file size again.
    if (reason === 'changed' || reason === 'removed') this.lastKnownBytes.delete(name)
    this.retiring.add(entry)
    this.emit('evicted', name, reason)
    this.log.info({ voice: name, reason }, 'voice unloading')
    const drained = entry.holds === 0 ? Promise.resolve() : new Promise<void>(resolve => { entry.drained = resolve })
    const closing = entry.promise.then(async pool => {
      await drained
      await pool.close()
      this.log.info({ voice: name, memoryBytes: entryBytes(entry) }, 'voice unloaded')
    }, () => {}).catch((error: unknown) => {
      // Nobody awaits a retirement but shutdown: a failure must not escape unhandled.
      this.log.error({ err: error, voice: name }, 'closing the voice\'s workers failed')
    }).finally(() => {
      this.retiring.delete(entry)
      this.closings.delete(closing)
      // The workers are gone: hand their freed heap back to the system, and
      // collect what their pool left in this thread.
      releaseFreedMemory().catch((error: unknown) => { this.log.warn({ err: error }, 'releasing freed memory failed') })
      if (!this.closed) this.heapSweep.request()
      this.notify()
    })
    this.closings.add(closing)
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

  get loadedCount (): number {
    return this.pools.size
  }

  state (name: string): VoiceState {
    const entry = this.pools.get(name)
    if (entry !== undefined) return entry.pool === undefined ? 'loading' : 'loaded'
    for (const retiring of this.retiring) if (retiring.name === name) return 'retiring'
    return 'unloaded'
  }

  /** Bytes per voice, loaded, loading (estimated) and retiring alike. */
  memoryByVoice (): Map<string, number> {
    const result = new Map<string, number>()
    for (const entry of [...this.pools.values(), ...this.retiring]) result.set(entry.name, (result.get(entry.name) ?? 0) + entryBytes(entry))
    return result
  }

  /** What counts against the budget now. */
  get usedBytes (): number {
    let sum = 0
    for (const bytes of this.memoryByVoice().values()) sum += bytes
    return sum
  }

  get budgetBytes (): number {
    return this.options.memoryBudgetBytes
  }

  async close (): Promise<void> {
    this.releaser.stop()
    this.heapSweep.stop()
    this.closed = true
    for (const name of [...this.pools.keys()]) this.retire(name, 'shutdown')
    await Promise.all(this.closings)
  }
}

/** The promise, or SynthesisCancelledError as soon as `signal` aborts. */
async function untilAborted<T> (promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return await promise
  if (signal.aborted) throw new SynthesisCancelledError()
  let onAbort: (() => void) | undefined
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(new SynthesisCancelledError())
    signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([promise, aborted])
  } finally {
    signal.removeEventListener('abort', onAbort as () => void)
  }
}

/** The load failure's message, without the server's folders. */
function brokenReason (modelPath: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.split(dirname(modelPath) + '/').join('').replace(/^Cannot load model [^:]*: /, '') || basename(modelPath)
}
