// A full collection of the main thread's JS heap after the set of loaded
// voices changed. The main thread of a service makes few JS objects, so V8
// seldom runs a full collection there by itself, and the garbage a retired
// pool leaves behind (its workers, ports and results) keeps native memory
// alive until one runs (docs/memory.md, "The main thread's heap"). One
// collection after a burst of changes is enough: requests are debounced, and
// the timer never keeps the process alive.

import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** The delay after the last change: evictions come in bursts, and a pool's
 * workers have ended by then. */
export const HEAP_SWEEP_DELAY_MS = 1000

/**
 * V8's `gc`, without starting Node with --expose-gc. V8 reads the flag only
 * when it makes a context, so it is set once per process and left set, and
 * `gc` is taken from a context made afterwards. Setting it and unsetting it
 * round each use would flip a process-wide flag while other threads may be
 * making their contexts. The price of leaving it set: contexts made later
 * (vm contexts, worker threads started later) have a global `gc`, which
 * nothing in Chorus reads; the main thread's own global has none. Node-API
 * has no call for a collection, and a collection through the
 * (asynchronous, incremental) vm.measureMemory would not be done when this
 * returns.
 */
function obtainCollector (): () => void {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc') as () => void
}

let collector: (() => void) | undefined

/** Collects the calling thread's garbage now (a full, synchronous collection). */
export function collectGarbage (): void {
  collector ??= obtainCollector()
  collector()
}

/** Runs `callback` once after `ms` without keeping the process alive;
 * returns what cancels it. */
export type Schedule = (callback: () => void, ms: number) => () => void

const unrefTimeout: Schedule = (callback, ms) => {
  const timer = setTimeout(callback, ms)
  timer.unref()
  return () => { clearTimeout(timer) }
}

export interface HeapSweepOptions {
  delayMs?: number
  collect?: () => void
  /** Timers (tests inject a clock of their own). */
  schedule?: Schedule
}

export class HeapSweep {
  private cancel: (() => void) | undefined
  private sweeps = 0
  private readonly delayMs: number
  private readonly collect: () => void
  private readonly schedule: Schedule

  constructor (private readonly onError: (error: unknown) => void, options: HeapSweepOptions = {}) {
    this.delayMs = options.delayMs ?? HEAP_SWEEP_DELAY_MS
    this.collect = options.collect ?? collectGarbage
    this.schedule = options.schedule ?? unrefTimeout
  }

  /** Collections made so far (for tests). */
  get count (): number {
    return this.sweeps
  }

  /** Collects once `delayMs` has passed without another request. */
  request (): void {
    this.cancel?.()
    this.cancel = this.schedule(() => { this.sweep() }, this.delayMs)
  }

  stop (): void {
    this.cancel?.()
    this.cancel = undefined
  }

  private sweep (): void {
    this.cancel = undefined
    try {
      this.collect()
      this.sweeps++
    } catch (error) {
      this.onError(error)
    }
  }
}
