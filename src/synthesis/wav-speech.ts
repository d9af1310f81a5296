// Speech as WAV, the service's native format: a whole file with exact sizes,
// or a stream whose header announces an unknown length, followed by each
// sentence's PCM (with the silence before it, in bounded pieces) as soon as
// it and every earlier sentence are ready. A cached file streams with the
// same framing.

import { encodeWavSentences, pcmBytes, UNKNOWN_LENGTH, WAV_HEADER_BYTES, wavHeader } from '../engine/index.js'
import { silencePieces, type AudioCeiling } from './audio-ceiling.js'
import type { CachedAudio } from './phrase-cache.js'
import type { PreparedSynthesis, RunOptions, Synthesizer } from './synthesizer.js'
import type { Tenant } from './tenant.js'

/** Where a producer hands its bytes; awaiting it is the reader's backpressure. */
export type ByteSink = (bytes: Uint8Array) => Promise<void>

/** One synthesis as its producer sees it. */
export interface SpeechRun {
  synthesizer: Synthesizer
  prepared: PreparedSynthesis
  text: string
  signal: AbortSignal
  ceiling: AudioCeiling
  /** Told each sentence's index as its work is queued. */
  onStart: (sentence: number) => void
  write: ByteSink
  /** Whose share of the inference slots the run counts in. */
  tenant?: Tenant
}

/** The run's checks and counts, for every producer. */
export function runHooks (run: SpeechRun): RunOptions {
  return { onSentences: count => run.ceiling.checkSentences(count), onStart: run.onStart, tenant: run.tenant }
}

/** A cached WAV file framed as a fresh stream would be: open-ended header, then the samples. */
export function streamedWav (hit: CachedAudio): Buffer[] {
  return [wavHeader(UNKNOWN_LENGTH, hit.sampleRate), hit.bytes.subarray(WAV_HEADER_BYTES)]
}

/** A whole WAV file: every sentence is made (and normalised as Piper does) before the file exists. */
export async function wholeWav (run: SpeechRun): Promise<Buffer> {
  const { prepared, ceiling } = run
  const sentences = await run.synthesizer.run(prepared, run.text, run.signal, runHooks(run))
  const gap = ceiling.gapBefore(1, 0)
  ceiling.add(sentences.reduce((sum, pcm) => sum + pcm.length, 0) + gap * Math.max(0, sentences.length - 1))
  return encodeWavSentences(sentences, gap, prepared.sampleRate)
}

/** Streams a synthesis as WAV: the header as soon as the text is known to
 * fit the ceiling (before any inference), then PCM in order as it is made. */
export async function streamWav (run: SpeechRun): Promise<void> {
  const { ceiling, write } = run
  let header: Promise<void> | undefined
  const writeHeader = async (): Promise<void> => await (header ??= write(wavHeader(UNKNOWN_LENGTH, run.prepared.sampleRate)))
  await run.synthesizer.run(run.prepared, run.text, run.signal, {
    ...runHooks(run),
    onSentences: count => {
      ceiling.checkSentences(count)
      // A failure surfaces at the first chunk, which awaits it.
      writeHeader().catch(() => {})
    },
    onChunk: async (pcm, sentence, chunk) => {
      await writeHeader()
      for (const silence of silencePieces(ceiling.gapBefore(sentence, chunk))) {
        ceiling.add(silence.length)
        await write(pcmBytes(silence))
      }
      ceiling.add(pcm.length)
      await write(pcmBytes(pcm))
    }
  })
  await writeHeader()
}
