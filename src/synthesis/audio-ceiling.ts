// The ceiling on one request's audio (TTS_MAX_AUDIO_SECONDS), in samples at
// the voice's rate, and the silence between sentences made in bounded
// pieces, so that neither a long text nor a long sentence_silence can make
// the service hold or send more than the ceiling.

import { silenceLength } from '../engine/index.js'
import { audioTooLong } from './errors.js'
import type { PreparedSynthesis } from './synthesizer.js'

/** The largest piece of silence made at once (a second at 16 kHz). */
const SILENCE_PIECE_SAMPLES = 16_384

export class AudioCeiling {
  private readonly maxSamples: number
  private readonly silenceSeconds: number
  /** Samples counted so far, silences included. */
  samples = 0

  constructor (private readonly maxSeconds: number, private readonly prepared: PreparedSynthesis) {
    this.maxSamples = Math.floor(maxSeconds * prepared.sampleRate)
    this.silenceSeconds = prepared.settings.sentenceSilence
  }

  /** Samples of silence before a sentence's first chunk (none before the first sentence). */
  gapBefore (sentence: number, chunk: number): number {
    return sentence > 0 && chunk === 0 ? silenceLength(this.prepared.sampleRate, this.silenceSeconds) : 0
  }

  /** Refuses, before any work, a text whose pauses alone pass the ceiling. */
  checkSentences (count: number): void {
    const gaps = Math.max(0, count - 1)
    const seconds = gaps * this.silenceSeconds
    if (seconds > this.maxSeconds) {
      throw audioTooLong('sentence_silence', this.maxSeconds, `${this.silenceSeconds} s between each of ${count} sentences (${seconds} s of silence)`, seconds)
    }
  }

  /** Counts `samples` more, or throws once the total would pass the ceiling. */
  add (samples: number): void {
    if (this.samples + samples > this.maxSamples) {
      const seconds = (this.samples + samples) / this.prepared.sampleRate
      throw audioTooLong('text', this.maxSeconds, `text that speaks for more than ${Math.floor(seconds)} s`, seconds)
    }
    this.samples += samples
  }
}

/** `samples` of silence as pieces of at most SILENCE_PIECE_SAMPLES, each made only when asked for. */
export function * silencePieces (samples: number): Generator<Int16Array> {
  for (let left = samples; left > 0; left -= SILENCE_PIECE_SAMPLES) yield new Int16Array(Math.min(left, SILENCE_PIECE_SAMPLES))
}
