// A process-wide limit on sentence inferences running at once, across every
// voice. Each voice's pool has its own workers, so without it 8 busy voices
// with 2 workers each would run 16 inferences on 2 cores: every one slower,
// each holding its activations, none finishing sooner. Slots are granted by
// the schedule (schedule.ts: by playback deadline and fair shares between
// tenants, or first come first served), in arrival order among tasks without
// a ticket; a waiter whose request is aborted leaves the queue at once.

import { SynthesisCancelledError } from '../engine/errors.js'
import { CostMeter } from './cost-meter.js'
import { Schedule, startsInMs, type ScheduleCounts, type SchedulerMode, type Ticket } from './schedule.js'

interface Waiter {
  grant: () => void
  signal: AbortSignal | undefined
  onAbort: () => void
}

/** Give it back when the inference is done; calling it twice is harmless. */
export type GateRelease = () => void

export class InferenceGate {
  private runningCount = 0
  private peakCount = 0
  private grantedCount = 0
  private readonly waiters: Schedule<Waiter>
  /** Set while a drain holds new grants back. */
  private drained: { done: () => void } | undefined
  private paused = false
  private grantsScheduled = false
  /** Wakes the queue when a held background task's time comes (startsInMs). */
  private wake: NodeJS.Timeout | undefined
  private heldMs = 0
  private waitedMs = 0
  /** What audio costs on the slots, told by every voice's pool (stream admission reads it). */
  readonly cost = new CostMeter()

  constructor (readonly limit: number, readonly mode: SchedulerMode = 'deadline', readonly now: () => number = () => performance.now()) {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`InferenceGate limit must be a positive integer, got ${limit}`)
    this.waiters = new Schedule(mode)
  }

  /** Inferences holding a slot now. */
  get running (): number {
    return this.runningCount
  }

  /** Inferences waiting for a slot. */
  get waiting (): number {
    return this.waiters.size
  }

  /** Grants per tenant and per kind of answer (the schedule's counters). */
  get counts (): ScheduleCounts {
    return this.waiters.counts
  }

  /** Slots granted since the gate was made: tells an observer that inferences ran between two looks. */
  get granted (): number {
    return this.grantedCount
  }

  /** Seconds slots have been held, summed over slots, for the released
   * ones: against the native tasks' own time it shows what a slot costs
   * around its inference (the hand-off to a worker and back). */
  get heldSeconds (): number {
    return this.heldMs / 1000
  }

  /** Seconds granted inferences waited for their slot (from `queuedSince`
   * when the caller queued them before, for their worker), summed. */
  get waitedSeconds (): number {
    return this.waitedMs / 1000
  }

  /** The most slots ever held at once: what tests and operators check the limit against. */
  get peak (): number {
    return this.peakCount
  }

  /** Resolves with a slot; rejects with SynthesisCancelledError if `signal`
   * aborts first. Waiters are granted in the schedule's order; those without
   * a ticket after every waiter with one. */
  async acquire (signal?: AbortSignal, ticket?: Ticket, queuedSince?: number): Promise<GateRelease> {
    if (signal?.aborted === true) throw new SynthesisCancelledError()
    const since = queuedSince ?? this.now()
    if (!this.paused && this.runningCount < this.limit && this.waiters.size === 0 && startsInMs(ticket, this.runningCount, this.limit, this.mode) === 0) {
      // A slot taken without waiting counts in the shares as one granted in turn.
      if (ticket !== undefined) this.waiters.charge(ticket)
      this.waitedMs += this.now() - since
      return this.take(ticket)
    }
    return await new Promise<GateRelease>((resolve, reject) => {
      const waiter: Waiter = {
        signal,
        grant: () => {
          this.waitedMs += this.now() - since
          resolve(this.take(ticket))
        },
        onAbort: () => {
          this.waiters.remove(waiter)
          reject(new SynthesisCancelledError())
        }
      }
      signal?.addEventListener('abort', waiter.onAbort, { once: true })
      this.waiters.add(waiter, ticket)
      // A slot held free for work due soon: this may be that work.
      if (!this.paused && this.runningCount < this.limit) this.grantFree()
    })
  }

  /**
   * Holds every new grant back until resume(); resolves true once no slot is
   * held, or false after `timeoutMs` with inferences still running (the
   * caller then resumes without what it needed a quiet moment for). Waiters
   * keep their places.
   */
  async drain (timeoutMs: number): Promise<boolean> {
    this.paused = true
    if (this.runningCount === 0) return true
    return await new Promise<boolean>(resolve => {
      const timer = setTimeout(() => {
        this.drained = undefined
        resolve(false)
      }, timeoutMs)
      this.drained = {
        done: () => {
          clearTimeout(timer)
          this.drained = undefined
          resolve(true)
        }
      }
    })
  }

  /** Ends a drain: waiters get the free slots, in order. */
  resume (): void {
    if (!this.paused) return
    this.paused = false
    this.drained = undefined
    this.grantFree()
  }

  /** A slot; the time it is held counts as its request's service (served-time.ts). */
  private take (ticket?: Ticket): GateRelease {
    this.runningCount++
    this.grantedCount++
    this.peakCount = Math.max(this.peakCount, this.runningCount)
    const since = this.now()
    let released = false
    return () => {
      if (released) return
      released = true
      const held = this.now() - since
      this.heldMs += held
      ticket?.served?.add(held)
      this.runningCount--
      if (!this.paused) this.scheduleGrants()
      else if (this.runningCount === 0) this.drained?.done()
    }
  }

  /**
   * Grants free slots on the next turn of the event loop, not at once: the
   * request whose inference just ended queues its next work (the sentence's
   * decoder chunks, its next sentence) in the same turn, and it is older than
   * the waiters it would otherwise lose the slot to. Granted at once, each
   * such handoff went to a younger request for a whole inference, and the
   * longest replies of a many-voice mix finished last (its p99 1.47-1.54x one
   * voice's in three runs of bench:fleet, 1.36-1.39x in two since).
   */
  private scheduleGrants (): void {
    if (this.grantsScheduled || this.waiters.size === 0) return
    this.grantsScheduled = true
    setImmediate(() => {
      this.grantsScheduled = false
      this.grantFree()
    })
  }

  /** Grants free slots in the schedule's order; a background task that may
   * not take the last free slot holds the queue until its time comes. */
  private grantFree (): void {
    while (!this.paused && this.runningCount < this.limit && this.waiters.size > 0) {
      const wait = startsInMs(this.waiters.peek(), this.runningCount, this.limit, this.mode)
      if (wait > 0) {
        this.wakeIn(wait)
        return
      }
      this.next()
    }
  }

  private wakeIn (ms: number): void {
    clearTimeout(this.wake)
    this.wake = setTimeout(() => {
      this.wake = undefined
      this.grantFree()
    }, ms)
    // Never what keeps the process alive: a waiter's own request does.
    this.wake.unref()
  }

  private next (): void {
    const waiter = this.waiters.take()
    if (waiter === undefined) return
    waiter.signal?.removeEventListener('abort', waiter.onAbort)
    waiter.grant()
  }
}
