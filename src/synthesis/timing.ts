// Word, phoneme and viseme timing: the shapes every protocol sends, and how
// a piece's phoneme spans (sentence-pipeline.ts, from the model's own
// durations) become events at their place in the answer. Samples count from
// the answer's first PCM sample at the voice's rate; a piece's phonemes tile
// its samples exactly, so the events are exact by construction
// (docs/timing.md).

import type { PieceTiming } from './sentence-pipeline.js'
import { visemeOf, type Viseme } from './timing/visemes.js'
import type { PieceWord } from './timing/words.js'

export type { Viseme } from './timing/visemes.js'
export { VISEMES, visemeOf } from './timing/visemes.js'

export interface WordTiming { word: string, textStart: number, textEnd: number, startSample: number, endSample: number }
export interface PhonemeTiming { phoneme: string, startSample: number, endSample: number }
export interface VisemeTiming { viseme: Viseme, startSample: number, endSample: number }
export type TimingKind = 'word' | 'phoneme' | 'viseme'
export const TIMING_KINDS: readonly TimingKind[] = ['word', 'phoneme', 'viseme']
export interface TimingChunk {
  kind: 'timing'
  sampleRate: number
  /** The samples of the answer the piece covers, [start, end). */
  startSample: number
  endSample: number
  words: WordTiming[]
  phonemes: PhonemeTiming[]
  visemes: VisemeTiming[]
}

/** A piece's phoneme spans and, when words were asked for, its words (their
 * text as written, and their entries in `phonemes`). `names`, when given,
 * is each entry's phoneme in full (the built-in voice's are whole IPA
 * names, not single symbols). */
export interface TimedPiece extends PieceTiming {
  words?: ReadonlyArray<PieceWord & { word: string }>
  names?: readonly string[]
}

/** A rough size of a chunk's JSON, for the byte budgets of the queue that holds it. */
export function timingBytes (chunk: TimingChunk): number {
  return 64 + 48 * (chunk.words.length + chunk.phonemes.length + chunk.visemes.length)
}

/** Each phoneme that covers samples, at `start` in the answer: BOS (`^`),
 * EOS (`$`), spaces and punctuation included, so the spans tile the piece. */
export function phonemeEvents (piece: TimedPiece, start: number): PhonemeTiming[] {
  const events: PhonemeTiming[] = []
  let at = start
  piece.phonemes.forEach((codepoint, i) => {
    const samples = piece.samples[i]
    if (samples === 0) return
    events.push({ phoneme: piece.names?.[i] ?? String.fromCodePoint(codepoint), startSample: at, endSample: at + samples })
    at += samples
  })
  return events
}

/** Visemes from phoneme events: a modifier or unknown symbol lengthens the
 * viseme before it (at a piece's start, `sil`), and neighbours with the same
 * viseme are one event. Tiles what the phonemes tile. */
export function visemeEvents (phonemes: readonly PhonemeTiming[]): VisemeTiming[] {
  const events: VisemeTiming[] = []
  for (const p of phonemes) {
    const last = events.at(-1)
    const viseme = visemeOf(p.phoneme.codePointAt(0) as number) ?? last?.viseme ?? 'sil'
    if (last !== undefined && last.viseme === viseme) last.endSample = p.endSample
    else events.push({ viseme, startSample: p.startSample, endSample: p.endSample })
  }
  return events
}

/** Each word over the samples of its phonemes, at `start` in the answer:
 * the spaces and punctuation between words are in none. */
export function wordEvents (piece: TimedPiece, start: number): WordTiming[] {
  const words = piece.words ?? []
  if (words.length === 0) return []
  const at = new Array<number>(piece.samples.length + 1)
  at[0] = start
  piece.samples.forEach((samples, i) => { at[i + 1] = at[i] + samples })
  return words.map(w => ({ word: w.word, textStart: w.textStart, textEnd: w.textEnd, startSample: at[w.entryStart], endSample: at[w.entryEnd] }))
}

/** The chunk for one piece at `start`, with the kinds asked for (others empty). */
export function timingChunk (piece: TimedPiece, start: number, sampleRate: number, kinds: ReadonlySet<TimingKind>): TimingChunk {
  const phonemes = phonemeEvents(piece, start)
  return {
    kind: 'timing',
    sampleRate,
    startSample: start,
    endSample: start + piece.samples.reduce((sum, n) => sum + n, 0),
    words: kinds.has('word') ? wordEvents(piece, start) : [],
    phonemes: kinds.has('phoneme') ? phonemes : [],
    visemes: kinds.has('viseme') ? visemeEvents(phonemes) : []
  }
}
