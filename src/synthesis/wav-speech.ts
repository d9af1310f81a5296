// Speech as WAV, the service's native format: a whole file with exact sizes
// (its samples kept in a spool until the last is made), or a stream whose
// header announces an unknown length, followed by each sentence's PCM (with
// the silence before it, in bounded pieces) as soon as it and every earlier
// sentence are ready. A cached file streams with the same framing.

import { pcmBytes, UNKNOWN_LENGTH, WAV_HEADER_BYTES, wavHeader } from '../engine/index.js'
import type { AnswerSpool } from './answer-spool.js'
import { silencePieces, type AudioCeiling } from './audio-ceiling.js'
import type { CachedAudio } from './phrase-cache.js'
import { timingChunk, type TimedPiece, type TimingChunk, type TimingKind } from './timing.js'
import type { PreparedSynthesis, RunOptions, Synthesizer } from './synthesizer.js'
import type { Share } from '../pool/share.js'
import type { AnswerClock } from '../pool/schedule-clock.js'

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
  /** Set when the request asked for timing: where its chunks go. */
  timing?: TimingOutput
  /** Whose share of the inference slots the run counts in. */
  tenant?: Share
  /** The answer's playback clock, made on arrival (Synthesizer.clockFor). */
  clock?: AnswerClock
}

export interface TimingOutput {
  kinds: ReadonlySet<TimingKind>
  /** Awaited like `write`: the reader's backpressure. */
  push: (chunk: TimingChunk) => Promise<void>
}

/** The run's checks and counts, for every producer; for a producer that
 * streams, also the timing of each piece at the place its audio will take
 * (the samples counted so far, and the silence before a sentence). */
export function runHooks (run: SpeechRun, streamed = false): RunOptions {
  const { timing, ceiling } = run
  const hooks: RunOptions = { onSentences: count => ceiling.checkSentences(count), onStart: run.onStart, tenant: run.tenant, ...(run.clock === undefined ? {} : { clock: run.clock }) }
  if (timing === undefined) return hooks
  const words = timing.kinds.has('word')
  if (!streamed) return { ...hooks, words }
  return {
    ...hooks,
    words,
    onTiming: async (piece, sentence, index) => {
      const start = ceiling.samples + (index === 0 ? ceiling.gapBefore(sentence, 0) : 0)
      await timing.push(timingChunk(piece, start, run.prepared.sampleRate, timing.kinds))
    }
  }
}

/** Unstreamed: the pieces' timing kept until the sentences' lengths place them. */
function collectTiming (run: SpeechRun): { hooks: RunOptions, flush: (lengths: number[], gap: number) => Promise<void> } {
  const pieces: Array<{ piece: TimedPiece, sentence: number }> = []
  const hooks = runHooks(run)
  if (run.timing === undefined) return { hooks, flush: async () => {} }
  const { kinds, push } = run.timing
  return {
    hooks: { ...hooks, onTiming: (piece, sentence) => { pieces.push({ piece, sentence }) } },
    flush: async (lengths, gap) => {
      const starts: number[] = []
      lengths.reduce((at, length, i) => { starts.push(at + (i > 0 ? gap : 0)); return starts[i] + length }, 0)
      // Pieces of a sentence follow each other: each starts where the one before ended.
      let last = -1
      let at = 0
      for (const { piece, sentence } of pieces) {
        if (sentence !== last) at = starts[sentence]
        last = sentence
        await push(timingChunk(piece, at, run.prepared.sampleRate, kinds))
        at += piece.samples.reduce((sum, n) => sum + n, 0)
      }
    }
  }
}

/** A cached WAV file framed as a fresh stream would be: open-ended header, then the samples. */
export function streamedWav (hit: CachedAudio): Buffer[] {
  return [wavHeader(UNKNOWN_LENGTH, hit.sampleRate), hit.bytes.subarray(WAV_HEADER_BYTES)]
}

/**
 * A whole WAV file's samples, into `spool`: each sentence (normalised as
 * Piper does) as soon as it and every earlier one are made, with the
 * silence before it counted, not made. Nothing can be sent before the last
 * sentence (the header holds the length), so the spool, not the reader,
 * takes them: its memory is bounded, the rest goes to disk. The header is
 * wavHeader(spool.length, rate).
 */
export async function wholeWav (run: SpeechRun, spool: AnswerSpool): Promise<void> {
  const { prepared, ceiling } = run
  const timing = collectTiming(run)
  const gap = ceiling.gapBefore(1, 0)
  const lengths: number[] = []
  await run.synthesizer.run(prepared, run.text, run.signal, {
    ...timing.hooks,
    onSentence: async (pcm, sentence) => {
      const silence = sentence > 0 ? gap : 0
      ceiling.add(silence + pcm.length)
      spool.zeros(silence * 2)
      await spool.write(pcmBytes(pcm))
      lengths.push(pcm.length)
    }
  })
  await timing.flush(lengths, gap)
}

/** Streams a synthesis as WAV: the header as soon as the text is known to
 * fit the ceiling (before any inference), then PCM in order as it is made. */
export async function streamWav (run: SpeechRun): Promise<void> {
  const { ceiling, write } = run
  let header: Promise<void> | undefined
  const writeHeader = async (): Promise<void> => await (header ??= write(wavHeader(UNKNOWN_LENGTH, run.prepared.sampleRate)))
  await run.synthesizer.run(run.prepared, run.text, run.signal, {
    ...runHooks(run, true),
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
