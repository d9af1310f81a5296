// Admission of streams by what they demand: each listener hearing a stream
// needs one second of audio per second, and the inference slots make
// `capacity` seconds of audio per second (cost-meter.ts). A new listener
// beyond TTS_STREAM_ADMISSION × capacity is refused at once with 503 and a
// Retry-After, before any work: said early, the client can go elsewhere or
// wait, where admitted it would have made every stream run dry together.
// A stream that joins a listener already hearing its queue (the next
// sentence named in `after`, a WebSocket context's next piece) is never
// refused: refusing it would cut a reply in the middle.

import { streamsOverloaded } from './errors.js'

export interface StreamDemandSettings {
  /** TTS_STREAM_ADMISSION: listeners admitted per audio second per second the slots make; 0 admits all. */
  ratio: number
  /** Audio seconds per second the slots make now; undefined before it was measured (everyone is admitted). */
  capacity: () => number | undefined
  retryAfterSeconds: number
}

export class StreamDemand {
  /** Open streams per listener. */
  private readonly listeners = new Map<object, number>()

  constructor (private readonly settings: StreamDemandSettings) {}

  /** Listeners with a stream open now. */
  get size (): number {
    return this.listeners.size
  }

  /** Admits a stream for `listener` (its playback queue, or a token of its
   * own) or throws the 503; call the returned function once the stream is
   * done. `heard`: its listener is still hearing an earlier answer. */
  admit (listener: object, heard = false): () => void {
    const open = this.listeners.get(listener)
    if (open === undefined && !heard) this.check()
    this.listeners.set(listener, (open ?? 0) + 1)
    let released = false
    return () => {
      if (released) return
      released = true
      const left = (this.listeners.get(listener) ?? 1) - 1
      if (left > 0) this.listeners.set(listener, left)
      else this.listeners.delete(listener)
    }
  }

  private check (): void {
    const { ratio } = this.settings
    if (ratio <= 0) return
    const capacity = this.settings.capacity()
    if (capacity === undefined) return
    const allowed = Math.max(1, Math.floor(capacity * ratio))
    if (this.listeners.size + 1 > allowed) throw streamsOverloaded(this.settings.retryAfterSeconds, this.listeners.size, capacity)
  }
}
