// A bound on how often one key (a remote address) may do something, in
// fixed windows: `limit` events per window, then refusals until the window
// ends. Expired windows are swept at most once per window, so the map holds
// only the keys seen within the last two windows.

export class WindowLimiter {
  readonly limit: number
  readonly windowMs: number
  #windows = new Map<string, { start: number, count: number }>()
  #lastSweep: number
  #now: () => number

  constructor (limit: number, windowMs: number, now: () => number = Date.now) {
    this.limit = limit
    this.windowMs = windowMs
    this.#now = now
    this.#lastSweep = now()
  }

  /** Counts one event for `key`: 0 when allowed, else the seconds until its window ends (at least 1). */
  take (key: string): number {
    const now = this.#now()
    this.#sweep(now)
    let window = this.#windows.get(key)
    if (window === undefined || now - window.start >= this.windowMs) {
      window = { start: now, count: 0 }
      this.#windows.set(key, window)
    }
    if (window.count >= this.limit) return Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000))
    window.count++
    return 0
  }

  #sweep (now: number): void {
    if (now - this.#lastSweep < this.windowMs) return
    this.#lastSweep = now
    for (const [key, window] of this.#windows) {
      if (now - window.start >= this.windowMs) this.#windows.delete(key)
    }
  }
}
