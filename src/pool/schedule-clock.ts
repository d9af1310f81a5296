// One answer's playback clock: when its listener will need audio it has not
// been sent yet. The schedule (schedule.ts) reads it each time it picks, so
// a deadline moves as audio goes out, with no task re-queued.
//
// A stream: before its first audio, due at its arrival (a new answer's first
// audio goes ahead of every stream with audio still buffered). Then due when
// the listener runs out: playback starts `jitterMs` after the first audio was
// handed to the response (a player's jitter buffer; "sent" is the moment the
// audio is handed on, since the socket's own pace is the reader's) and runs
// at real time through the audio sent so far.
// A whole answer: as if a listener had started at its arrival, so it is due
// at arrival plus the audio made for it so far (see schedule.ts).

import type { Due } from './schedule.js'

export class AnswerClock implements Due {
  readonly arrival: number
  private firstSent: number | undefined
  private samples = 0

  constructor (
    private readonly now: () => number,
    readonly streamed: boolean,
    private readonly sampleRate: number,
    private readonly jitterMs: number
  ) {
    this.arrival = now()
  }

  /** Audio handed on (a stream) or made (a whole answer), in order. */
  advance (samples: number): void {
    if (samples <= 0) return
    this.firstSent ??= this.now()
    this.samples += samples
  }

  /** Seconds of audio handed on so far. */
  get audioSeconds (): number {
    return this.samples / this.sampleRate
  }

  deadline (): number {
    const audioMs = this.audioSeconds * 1000
    if (!this.streamed) return this.arrival + audioMs
    if (this.firstSent === undefined) return this.arrival
    return this.firstSent + this.jitterMs + audioMs
  }
}
