// A counting semaphore: at most `permits` holders at once, the rest wait in
// arrival order. A waiter whose signal aborts leaves the queue at once, so a
// cancelled call never takes a permit it no longer needs.

export type Release = () => void

export class Semaphore {
  readonly permits: number
  #held = 0
  #waiting: Array<{ grant: (release: Release) => void }> = []

  constructor (permits: number) {
    this.permits = permits
  }

  get held (): number {
    return this.#held
  }

  get waiting (): number {
    return this.#waiting.length
  }

  /** Resolves with the function that gives the permit back; rejects with the signal's reason on abort. */
  async acquire (signal?: AbortSignal): Promise<Release> {
    signal?.throwIfAborted()
    if (this.#held < this.permits) return this.#grant()
    return await new Promise<Release>((resolve, reject) => {
      const waiter = {
        grant: (release: Release) => {
          signal?.removeEventListener('abort', onAbort)
          resolve(release)
        }
      }
      const onAbort = (): void => {
        this.#waiting.splice(this.#waiting.indexOf(waiter), 1)
        reject(signal?.reason)
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      this.#waiting.push(waiter)
    })
  }

  #grant (): Release {
    this.#held++
    let released = false
    return () => {
      if (released) return
      released = true
      this.#held--
      const next = this.#waiting.shift()
      if (next !== undefined) next.grant(this.#grant())
    }
  }
}
