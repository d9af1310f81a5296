// Quotas per key: requests and audio seconds in a sliding minute, speech
// responses open at once. A refusal says which quota and when to retry,
// computed from what is held: when enough of the minute's use ages out, or
// when the oldest open stream reaches the request timeout (the latest it can
// end). Memory is fixed per key (60 one-second buckets a window); a reload
// drops the state of keys that are gone. The clock is injected.

import type { ApiKey } from './keys-file.js'
import { quotaExceeded } from './errors.js'

/** Milliseconds, monotonic. */
export type Clock = () => number

const BUCKETS = 60
const BUCKET_MS = 1000

/** Use in the last 60 s, in one-second buckets. */
export class MinuteWindow {
  private readonly amounts = new Float64Array(BUCKETS)
  /** The second each bucket holds, so a stale one reads as empty. */
  private readonly seconds = new Float64Array(BUCKETS).fill(-Infinity)

  add (now: number, amount: number): void {
    const second = Math.floor(now / BUCKET_MS)
    const slot = second % BUCKETS
    if (this.seconds[slot] !== second) {
      this.seconds[slot] = second
      this.amounts[slot] = 0
    }
    this.amounts[slot] += amount
  }

  total (now: number): number {
    return this.live(now).reduce((sum, [, amount]) => sum + amount, 0)
  }

  /** Whole seconds until the total falls below `limit` (0: it is below now). */
  secondsUntilBelow (now: number, limit: number): number {
    const live = this.live(now).sort((a, b) => a[0] - b[0])
    let total = live.reduce((sum, [, amount]) => sum + amount, 0)
    for (const [second, amount] of live) {
      if (total < limit) break
      total -= amount
      // This bucket leaves the window when its second is 60 s old.
      const leaves = (second + BUCKETS) * BUCKET_MS
      if (total < limit) return Math.max(1, Math.ceil((leaves - now) / 1000))
    }
    return 0
  }

  private live (now: number): Array<[second: number, amount: number]> {
    const current = Math.floor(now / BUCKET_MS)
    const live: Array<[number, number]> = []
    for (let slot = 0; slot < BUCKETS; slot++) {
      const second = this.seconds[slot]!
      if (second > current - BUCKETS && second <= current) live.push([second, this.amounts[slot]!])
    }
    return live
  }
}

class KeyUse {
  readonly requests = new MinuteWindow()
  readonly audio = new MinuteWindow()
  /** Start times of the open speech responses. */
  readonly streams = new Set<{ started: number }>()
}

export class Quotas {
  private readonly use = new Map<string, KeyUse>()

  /**
   * @param streamLimitMs how long a speech response can last at most
   * (TTS_TIMEOUT_SECONDS): a concurrency refusal's Retry-After is when the
   * oldest open one must have ended.
   */
  constructor (private readonly clock: Clock, private readonly streamLimitMs: number) {}

  /** Counts a request, or refuses it (429) when the key's minute is full. */
  admitRequest (key: ApiKey): void {
    const limit = key.quotas.requestsPerMinute
    const use = this.of(key.name)
    const now = this.clock()
    if (limit !== undefined && use.requests.total(now) >= limit) {
      throw quotaExceeded(key.name, 'requests_per_minute', limit, use.requests.secondsUntilBelow(now, limit))
    }
    use.requests.add(now, 1)
  }

  /**
   * Admits a speech response against the audio and concurrency quotas;
   * the release must be called when it ends. Audio is charged when known
   * (chargeAudio), so a response may take its key past the audio quota: the
   * next one waits until the minute's audio falls below it again.
   */
  admitStream (key: ApiKey): () => void {
    const use = this.of(key.name)
    const now = this.clock()
    const { audioSecondsPerMinute: audio, concurrentStreams: streams } = key.quotas
    if (audio !== undefined && use.audio.total(now) >= audio) {
      throw quotaExceeded(key.name, 'audio_seconds_per_minute', audio, use.audio.secondsUntilBelow(now, audio))
    }
    if (streams !== undefined && use.streams.size >= streams) {
      const oldest = Math.min(...[...use.streams].map(stream => stream.started))
      throw quotaExceeded(key.name, 'concurrent_streams', streams, Math.max(1, Math.ceil((oldest + this.streamLimitMs - now) / 1000)))
    }
    const stream = { started: now }
    use.streams.add(stream)
    return () => { use.streams.delete(stream) }
  }

  chargeAudio (name: string, seconds: number): void {
    this.use.get(name)?.audio.add(this.clock(), seconds)
  }

  /** Audio seconds charged to a key in the sliding minute. */
  audioSeconds (name: string): number {
    return this.use.get(name)?.audio.total(this.clock()) ?? 0
  }

  /** Open speech responses of a key. */
  openStreams (name: string): number {
    return this.use.get(name)?.streams.size ?? 0
  }

  /** After a reload: the use of keys no longer in the file goes. */
  retain (names: ReadonlySet<string>): void {
    for (const name of this.use.keys()) if (!names.has(name)) this.use.delete(name)
  }

  private of (name: string): KeyUse {
    let use = this.use.get(name)
    if (use === undefined) {
      use = new KeyUse()
      this.use.set(name, use)
    }
    return use
  }
}
