// The hand-over between one response's synthesis (the producer) and its
// reader: a queue bounded in bytes. The producer awaits `push`, so when the
// reader stops taking chunks, synthesis stops at the next chunk rather than
// piling audio up in memory. Bytes count against the response's own budget
// and the process-wide one until the reader takes them.

import type { ByteBudget } from './byte-budget.js'

export class ChunkQueue<T> {
  private readonly items: Array<{ item: T, bytes: number }> = []
  private ended = false
  private failure: { error: unknown } | undefined
  private wake: (() => void) | undefined
  /** Chunks the producer has pushed, and the reader has taken. */
  pushed = 0
  taken = 0

  constructor (private readonly budgets: readonly ByteBudget[], private readonly signal: AbortSignal) {}

  /** Waits while a budget is full, then queues the chunk. */
  async push (item: T, bytes: number): Promise<void> {
    for (const [i, budget] of this.budgets.entries()) {
      try {
        await budget.take(bytes, this.signal)
      } catch (error) {
        for (const taken of this.budgets.slice(0, i)) taken.give(bytes)
        throw error
      }
    }
    this.items.push({ item, bytes })
    this.pushed++
    this.notify()
  }

  end (): void {
    this.ended = true
    this.notify()
  }

  fail (error: unknown): void {
    this.failure ??= { error }
    this.notify()
  }

  /** Resolves once a chunk is queued or the producer is done, without taking anything. */
  async ready (): Promise<void> {
    while (this.items.length === 0 && !this.ended && this.failure === undefined) {
      await new Promise<void>(resolve => { this.wake = resolve })
    }
    if (this.failure !== undefined && this.items.length === 0) throw this.failure.error
  }

  /** Takes the next chunk; undefined once the producer has ended. A failure
   * surfaces after the chunks queued before it. */
  async next (): Promise<T | undefined> {
    await this.ready()
    const first = this.items.shift()
    if (first === undefined) return undefined
    this.taken++
    for (const budget of this.budgets) budget.give(first.bytes)
    return first.item
  }

  /** Gives back what was never read (the reader left). */
  drop (): void {
    for (const { bytes } of this.items.splice(0)) for (const budget of this.budgets) budget.give(bytes)
  }

  private notify (): void {
    const wake = this.wake
    this.wake = undefined
    wake?.()
  }
}
