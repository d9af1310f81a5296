// Gives ONNX Runtime's arena memory back to the system when inference
// pauses (docs/memory.md, "ONNX Runtime's arena"). The process-wide arena
// keeps every block it ever grew by, and sentences of every length make it
// grow a little more each time. Shrinking it after every run would cost the
// next run its page faults, so it is shrunk once no inference has run for
// idleMs, and under sustained load every busyMs (freeing only what no run in
// flight holds). Under sustained load the runs in flight hold pieces of most
// of the arena's regions, so few are ever wholly free: every drainedMs the
// gate holds new inferences back until the running ones end (at most
// drainTimeoutMs), and the whole arena goes back while none runs.

/** What the releaser needs of the pool's inference gate. */
export interface ReleaseGate {
  /** Inferences let through since the gate was made. */
  readonly granted: number
  readonly running: number
  /** Holds new inferences back until the running ones end; false if they
   * had not within `timeoutMs`. */
  drain: (timeoutMs: number) => Promise<boolean>
  resume: () => void
}

export interface MemoryReleaseTiming {
  /** Release once the gate has been idle this long after some inference. */
  idleMs: number
  /** Under load, release at most this often. */
  busyMs: number
  /** Under load, release with the gate drained at most this often. */
  drainedMs: number
  /** How long new inferences may be held back for a drained release. */
  drainTimeoutMs: number
  /** How often the gate is looked at. */
  pollMs: number
}

// Every release costs the runs after it their page faults: the arena's
// freed regions are unmapped, and a sentence that starts from a shrunk arena
// refaults all its activations, which slowed every request after a short
// pause (docs/memory.md has the figures). So the arena goes back after half
// a minute without inference, and under load once a minute (with the gate
// drained every five): RSS still returns, and the faults are paid rarely. A
// drain holds new inferences back for about half an inference (the running
// ones finish one by one), so it comes far less often than a release.
export const MEMORY_RELEASE_TIMING: MemoryReleaseTiming = { idleMs: 30_000, busyMs: 60_000, drainedMs: 300_000, drainTimeoutMs: 2000, pollMs: 250 }

export class MemoryReleaser {
  private seenGrants: number
  private lastActivity: number
  private lastRelease: number
  /** The last release made while no inference ran. */
  private lastWholeRelease: number
  /** Inferences ran since the last release. */
  private dirty = false
  private releasing = false
  private timer: NodeJS.Timeout | undefined
  private releases = 0
  private wholeReleases = 0

  constructor (
    private readonly gate: ReleaseGate,
    private readonly release: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
    private readonly timing: MemoryReleaseTiming = MEMORY_RELEASE_TIMING,
    private readonly now: () => number = () => performance.now()
  ) {
    this.seenGrants = gate.granted
    this.lastActivity = this.now()
    this.lastRelease = this.lastActivity
    this.lastWholeRelease = this.lastActivity
  }

  /** Releases so far (for tests and metrics). */
  get count (): number {
    return this.releases
  }

  /** Releases made while no inference ran (idle, or with the gate drained). */
  get wholeCount (): number {
    return this.wholeReleases
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
    let draining = false
    try {
      let whole = idle
      if (!idle && now - this.lastWholeRelease >= this.timing.drainedMs) {
        draining = true
        whole = await this.gate.drain(this.timing.drainTimeoutMs)
        if (!whole) {
          // Still busy after drainTimeoutMs: release what is free, as on other busy ticks.
          this.gate.resume()
          draining = false
        }
      }
      await this.release()
      this.releases++
      if (whole) {
        this.wholeReleases++
        this.lastWholeRelease = now
      }
    } catch (error) {
      this.onError(error)
    } finally {
      if (draining) this.gate.resume()
      this.releasing = false
    }
  }
}
