// Speech as WAV, the service's native format: a whole file with exact sizes,
// or a stream whose header announces an unknown length, followed by each
// sentence's PCM (with the silence before it, in bounded pieces) as soon as
// it and every earlier sentence are ready. A cached file streams with the
// same framing.

import { encodeWavSentences, pcmBytes, UNKNOWN_LENGTH, WAV_HEADER_BYTES, wavHeader } from '../engine/index.js'
import { silencePieces, type AudioCeiling } from './audio-ceiling.js'
import type { CachedAudio } from './phrase-cache.js'
import type { PreparedSynthesis, Synthesizer } from './synthesizer.js'

/** Where a producer hands its bytes; awaiting it is the reader's backpressure. */
export type ByteSink = (bytes: Uint8Array) => Promise<void>

/** A cached WAV file framed as a fresh stream would be: open-ended header, then the samples. */
export function streamedWav (hit: CachedAudio): Buffer[] {
  return [wavHeader(UNKNOWN_LENGTH, hit.sampleRate), hit.bytes.subarray(WAV_HEADER_BYTES)]
}

/** A whole WAV file: every sentence is made (and normalised as Piper does) before the file exists. */
export async function wholeWav (synthesizer: Synthesizer, prepared: PreparedSynthesis, text: string, signal: AbortSignal, ceiling: AudioCeiling): Promise<Buffer> {
  const sentences = await synthesizer.run(prepared, text, signal, { onSentences: count => ceiling.checkSentences(count) })
  const gap = ceiling.gapBefore(1, 0)
  ceiling.add(sentences.reduce((sum, pcm) => sum + pcm.length, 0) + gap * Math.max(0, sentences.length - 1))
  return encodeWavSentences(sentences, gap, prepared.sampleRate)
}

/** Streams a synthesis as WAV: the header at once, then PCM in order as it is made. */
export async function streamWav (synthesizer: Synthesizer, prepared: PreparedSynthesis, text: string, signal: AbortSignal, ceiling: AudioCeiling, write: ByteSink): Promise<void> {
  await write(wavHeader(UNKNOWN_LENGTH, prepared.sampleRate))
  await synthesizer.run(prepared, text, signal, {
    onSentences: count => ceiling.checkSentences(count),
    onChunk: async (pcm, sentence, chunk) => {
      for (const silence of silencePieces(ceiling.gapBefore(sentence, chunk))) {
        ceiling.add(silence.length)
        await write(pcmBytes(silence))
      }
      ceiling.add(pcm.length)
      await write(pcmBytes(pcm))
    }
  })
}
