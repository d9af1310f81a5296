// Gives ONNX Runtime's arena memory back to the system when inference pauses.
// The process-wide arena keeps every block it ever grew by, and sentences of
// every length make it grow by a little more each time: left alone, a
// service's RSS ratchets up for hours. Shrinking it after every run would
// cost the next run its page faults (measured: 25 % more CPU per second of
// audio), so it is shrunk once no inference has run for idleMs, and under
// sustained load every busyMs (freeing only what no run in flight holds).

import type { InferenceGate } from './inference-gate.js'

export interface MemoryReleaseTiming {
  /** Release once the gate has been idle this long after some inference. */
  idleMs: number
  /** Under load, release at most this often. */
  busyMs: number
  /** How often the gate is looked at. */
  pollMs: number
}

export const MEMORY_RELEASE_TIMING: MemoryReleaseTiming = { idleMs: 1000, busyMs: 5000, pollMs: 250 }

export class MemoryReleaser {
  private seenGrants: number
  private lastActivity: number
  private lastRelease: number
  /** Inferences ran since the last release. */
  private dirty = false
  private releasing = false
  private timer: NodeJS.Timeout | undefined
  private releases = 0

  constructor (
    private readonly gate: InferenceGate,
    private readonly release: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
    private readonly timing: MemoryReleaseTiming = MEMORY_RELEASE_TIMING,
    private readonly now: () => number = () => performance.now()
  ) {
    this.seenGrants = gate.granted
    this.lastActivity = this.now()
    this.lastRelease = this.lastActivity
  }

  /** Releases so far (for tests and metrics). */
  get count (): number {
    return this.releases
  }

  start (): void {
    if (this.timer !== undefined) return
    this.timer = setInterval(() => { void this.tick() }, this.timing.pollMs)
    // Never what keeps the process alive.
    this.timer.unref()
  }

  stop (): void {
    clearInterval(this.timer)
    this.timer = undefined
  }

  /** One look at the gate; resolves when a release it started is done. */
  async tick (): Promise<void> {
    const now = this.now()
    const grants = this.gate.granted
    // A run in flight will free its blocks into the arena when it ends.
    if (grants !== this.seenGrants || this.gate.running > 0) {
      this.seenGrants = grants
      this.dirty = true
      this.lastActivity = now
    }
    if (!this.dirty || this.releasing) return
    const idle = this.gate.running === 0 && now - this.lastActivity >= this.timing.idleMs
    const due = now - this.lastRelease >= this.timing.busyMs
    if (!idle && !due) return
    this.dirty = false
    this.releasing = true
    this.lastRelease = now
    try {
      await this.release()
      this.releases++
    } catch (error) {
      this.onError(error)
    } finally {
      this.releasing = false
    }
  }
}
