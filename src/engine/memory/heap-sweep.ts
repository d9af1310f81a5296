// A full collection of the main thread's JS heap after the set of loaded
// voices changed. The main thread of a service holds few JS objects, so V8
// seldom runs a full collection there by itself, and the garbage that
// retired pools leave behind (their workers, ports and results) keeps native
// memory alive meanwhile: after 30 load/unload cycles a service held 24 MB
// more of glibc's heap than a fresh one with the same two voices, 5–6 MB
// when a collection followed each retirement (malloc_stats; README,
// "Sizing"). One collection after a burst of changes is enough: requests
// are debounced, and the timer never keeps the process alive.

import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

/** The delay after the last change: evictions come in bursts, and a pool's
 * workers have ended by then. */
export const HEAP_SWEEP_DELAY_MS = 1000

/**
 * V8's `gc`, without starting Node with --expose-gc: the flag exposes it to
 * contexts made while it is set, so it is set for one context and unset.
 * Node-API has no call for a collection, and V8's own API is not in the
 * headers the addon builds against.
 */
function obtainCollector (): () => void {
  setFlagsFromString('--expose-gc')
  try {
    return runInNewContext('gc') as () => void
  } finally {
    setFlagsFromString('--no-expose-gc')
  }
}

let collector: (() => void) | undefined

/** Collects the calling thread's garbage now (a full, synchronous collection). */
export function collectGarbage (): void {
  collector ??= obtainCollector()
  collector()
}

export class HeapSweep {
  private timer: NodeJS.Timeout | undefined
  private sweeps = 0

  constructor (
    private readonly onError: (error: unknown) => void,
    private readonly delayMs: number = HEAP_SWEEP_DELAY_MS,
    private readonly collect: () => void = collectGarbage
  ) {}

  /** Collections made so far (for tests). */
  get count (): number {
    return this.sweeps
  }

  /** Collects once `delayMs` has passed without another request. */
  request (): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => { this.sweep() }, this.delayMs)
    this.timer.unref()
  }

  stop (): void {
    clearTimeout(this.timer)
    this.timer = undefined
  }

  private sweep (): void {
    this.timer = undefined
    try {
      this.collect()
      this.sweeps++
    } catch (error) {
      this.onError(error)
    }
  }
}
