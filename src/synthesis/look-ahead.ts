// How far synthesis runs ahead of its listener: the one rule for every
// streamed answer, whatever its protocol. A POST /tts?stream=1 answer (and
// the OpenAI endpoint's) starts its sentences this far ahead of the one
// being handed on; a WebSocket context asks for its pieces' speech this far
// ahead of the piece being sent (stream-context.ts). Each item started ahead
// holds at most its share of the response buffers until it is sent, and a
// reader who stops reading stops the work. TTS_SENTENCE_WINDOW sets it.
// What runs first among the items started is the scheduler's: each has its
// own deadline (src/pool/sentence-deadlines.ts, PlaybackQueue).

export class LookAhead {
  constructor (readonly window: number) {
    if (!Number.isSafeInteger(window) || window < 1) throw new RangeError(`LookAhead window must be a positive integer, got ${window}`)
  }

  /** Whether item `index` may start while item `sending` is the one being
   * handed on (the window counts that one too). */
  allows (index: number, sending: number): boolean {
    return index < sending + this.window
  }
}
