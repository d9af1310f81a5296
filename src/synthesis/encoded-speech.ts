// Synthesis whose sentences are encoded into a compressed format as they are
// made: each chunk of a sentence (with the silence before the sentence) goes
// to an encoder worker, and its encoded bytes are handed on in order while
// later sentences are still being synthesised.

import type { EncoderPool } from '../audio/encoder-pool.js'
import type { AudioFormat } from '../audio/formats.js'
import { silenceLength } from '../engine/index.js'
import type { PreparedSynthesis, Synthesizer } from './synthesizer.js'

export interface EncodedSpeech {
  /** Every chunk, in order (kept only when `keep` was asked for: the cache). */
  chunks: Uint8Array[]
  /** Samples synthesised, at the voice's rate, silences included. */
  samples: number
}

export interface EncodeSpeechOptions {
  format: AudioFormat
  signal: AbortSignal
  /** Receives each non-empty chunk as soon as it is encoded. */
  onBytes: (bytes: Uint8Array) => void
  keep: boolean
}

export async function encodeSpeech (synthesizer: Synthesizer, encoders: EncoderPool, prepared: PreparedSynthesis, text: string, options: EncodeSpeechOptions): Promise<EncodedSpeech> {
  // The encoder starts while the first sentence is synthesised, not before:
  // its set-up waits in the encoder worker's queue behind other streams'
  // chunks, and that wait would otherwise delay the first byte.
  const opening = encoders.open(options.format, prepared.sampleRate)
  // A failed open surfaces through the chain below; until a chunk is chained
  // it must not count as unhandled.
  opening.catch(() => {})
  const silence = silenceLength(prepared.sampleRate, prepared.settings.sentenceSilence)
  const chunks: Uint8Array[] = []
  const deliver = (bytes: Uint8Array) => {
    if (bytes.length === 0) return
    if (options.keep) chunks.push(bytes)
    options.onBytes(bytes)
  }
  let samples = 0
  // Pushes are chained after the open so that bytes leave in sentence order.
  let chain: Promise<unknown> = opening
  try {
    await synthesizer.run(prepared, text, options.signal, (pcm, sentence, chunk) => {
      // Silence goes before a sentence's first chunk, from the second sentence on.
      const gap = sentence > 0 && chunk === 0 ? silence : 0
      const block = new Int16Array(gap + pcm.length)
      block.set(pcm, gap)
      samples += block.length
      chain = chain.then(async () => deliver(await (await opening).push(block)))
    })
    await chain
    deliver(await (await opening).finish())
  } catch (error) {
    opening.then(session => session.close(), () => {})
    // A push that failed after synthesis stopped would be unhandled otherwise.
    chain.catch(() => {})
    throw error
  }
  return { chunks, samples }
}
