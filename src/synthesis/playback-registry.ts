// Which streamed requests one listener hears one after another. A bot that
// speaks a language model's reply sends each sentence as its own request as
// soon as the sentence is written; naming the previous one's request id in
// `after` puts them in one playback queue, so the scheduler knows the second
// sentence is needed only when the first has played (schedule-clock.ts).
// Ids are the clients' own (X-Request-Id) and are looked up per tenant, so
// one API key cannot join another's queues. Bounded: the oldest entries go
// first past `maxEntries`, and an entry older than `ttlMs` is forgotten (its
// audio has long been heard).

import { PlaybackQueue } from '../pool/schedule-clock.js'

interface Entry {
  queue: PlaybackQueue
  at: number
}

export class PlaybackRegistry {
  // A Map keeps insertion order: the first entries are the oldest.
  private readonly entries = new Map<string, Entry>()

  constructor (
    private readonly maxEntries = 4096,
    private readonly ttlMs = 10 * 60_000,
    private readonly now: () => number = () => performance.now()
  ) {}

  get size (): number {
    return this.entries.size
  }

  /**
   * The queue request `id` plays in: the queue of the request it names in
   * `after` when that one is known, else a queue of its own. Registered
   * under `id`, so a later request can name it in turn.
   */
  queueFor (tenant: string, id: string | undefined, after: string | undefined): PlaybackQueue {
    const now = this.now()
    this.forgetOld(now)
    const found = after === undefined ? undefined : this.entries.get(key(tenant, after))
    const queue = found?.queue ?? new PlaybackQueue()
    if (id !== undefined) {
      const own = key(tenant, id)
      this.entries.delete(own)
      this.entries.set(own, { queue, at: now })
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string)
    }
    return queue
  }

  private forgetOld (now: number): void {
    for (const [name, entry] of this.entries) {
      if (now - entry.at < this.ttlMs) return
      this.entries.delete(name)
    }
  }
}

function key (tenant: string, id: string): string {
  return `${tenant}\u0000${id}`
}
