// Speech as WAV, the service's native format: a whole file with exact sizes,
// or a stream whose header announces an unknown length, followed by each
// sentence's PCM (with the silence before it) as soon as it and every
// earlier sentence are ready. A cached file streams with the same framing.

import { encodeWavSentences, pcmBytes, silenceLength, UNKNOWN_LENGTH, WAV_HEADER_BYTES, wavHeader } from '../engine/index.js'
import type { CachedAudio } from './phrase-cache.js'
import type { PreparedSynthesis, Synthesizer } from './synthesizer.js'

/** A whole WAV file of a request's sentences, with its silences between them. */
export function wavOfSentences (prepared: PreparedSynthesis, sentences: readonly Int16Array[]): Buffer {
  return encodeWavSentences(sentences, silenceLength(prepared.sampleRate, prepared.settings.sentenceSilence), prepared.sampleRate)
}

/** Samples in a whole WAV file of 16-bit mono PCM. */
export function wavSamples (wav: Buffer): number {
  return (wav.length - WAV_HEADER_BYTES) / 2
}

/** A cached WAV file framed as a fresh stream would be: open-ended header, then the samples. */
export function streamedWav (hit: CachedAudio): Buffer[] {
  return [wavHeader(UNKNOWN_LENGTH, hit.sampleRate), hit.bytes.subarray(WAV_HEADER_BYTES)]
}

/**
 * Streams a synthesis as WAV: the header at once, then PCM in order as it is
 * made. Resolves with the samples written (silences included) once the last
 * sentence is out; rejects as the synthesis does.
 */
export async function streamWav (synthesizer: Synthesizer, prepared: PreparedSynthesis, text: string, signal: AbortSignal, write: (bytes: Buffer) => void): Promise<number> {
  const silence = silenceLength(prepared.sampleRate, prepared.settings.sentenceSilence)
  write(wavHeader(UNKNOWN_LENGTH, prepared.sampleRate))
  let samples = 0
  await synthesizer.run(prepared, text, signal, (pcm, sentence, chunk) => {
    // Silence goes before a sentence's first chunk, from the second sentence on.
    const gap = sentence > 0 && chunk === 0 ? silence : 0
    if (gap > 0) write(Buffer.alloc(gap * 2))
    write(pcmBytes(pcm))
    samples += pcm.length + gap
  })
  return samples
}
