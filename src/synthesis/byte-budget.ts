// A count of bytes held, with a bound: a producer waits before adding more
// once the bound is reached, and goes on when a consumer takes bytes out.
// One chunk may pass the bound (a chunk is never split to fit), so what is
// held stays under bound + the largest chunk. The service has one budget for
// every response together, and each response one of its own.

export class ByteBudget {
  private held = 0
  private readonly waiting: Array<() => void> = []
  /** The largest chunk counted in so far: what is held stays under limit + this. */
  largest = 0

  constructor (readonly limit: number) {}

  get bytes (): number {
    return this.held
  }

  /** Resolves once there is room (at once when there is), then counts `bytes` in. */
  async take (bytes: number, signal: AbortSignal): Promise<void> {
    while (this.held >= this.limit) {
      signal.throwIfAborted()
      await new Promise<void>(resolve => {
        const wake = (): void => {
          signal.removeEventListener('abort', wake)
          resolve()
        }
        this.waiting.push(wake)
        signal.addEventListener('abort', wake, { once: true })
      })
    }
    signal.throwIfAborted()
    this.held += bytes
    this.largest = Math.max(this.largest, bytes)
  }

  /** Counts `bytes` in when they fit under the bound (strictly: no chunk
   * passes it), and says whether they did; never waits. */
  tryTake (bytes: number): boolean {
    if (this.held + bytes > this.limit) return false
    this.held += bytes
    this.largest = Math.max(this.largest, bytes)
    return true
  }

  give (bytes: number): void {
    this.held -= bytes
    // Every waiter checks again: the room may be enough for several.
    for (const wake of this.waiting.splice(0)) wake()
  }
}
