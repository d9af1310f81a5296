// Character alignment as ElevenLabs sends it ({chars, charStartTimesMs,
// charDurationsMs}), built from the speech service's word timing: a word's
// span is spread evenly over its characters, and the characters between two
// words (spaces, punctuation) over the pause between them. Pure.

import type { WordTiming } from '../synthesis/timing.js'

export interface Alignment {
  chars: string[]
  charStartTimesMs: number[]
  charDurationsMs: number[]
}

/** What an audio message carries under sync_alignment when no character starts in it. */
export const EMPTY_ALIGNMENT: Readonly<Alignment> = Object.freeze({ chars: [], charStartTimesMs: [], charDurationsMs: [] })

/** Characters (code points) of text[from, to) spread over [startSample, endSample). */
function spread (out: Alignment, text: string, from: number, to: number, startSample: number, endSample: number, toMs: (sample: number) => number): void {
  const chars = [...text.slice(from, to)]
  if (chars.length === 0) return
  const span = Math.max(0, endSample - startSample)
  chars.forEach((char, i) => {
    const start = toMs(startSample + span * i / chars.length)
    const end = toMs(startSample + span * (i + 1) / chars.length)
    out.chars.push(char)
    out.charStartTimesMs.push(start)
    out.charDurationsMs.push(end - start)
  })
}

/**
 * The alignment of text[from, to) given the words timed in it. Times are
 * whole milliseconds from `originSample` (the sample their timeline starts
 * at: a context's first, negative for a later piece) at `sampleRate`; starts and durations are rounded so that each
 * character ends where the next starts. Characters before the first word
 * start at the first word; after the last, they take no time.
 */
export function buildAlignment (text: string, words: readonly WordTiming[], sampleRate: number, from = 0, to = text.length, originSample = 0): Alignment {
  const out: Alignment = { chars: [], charStartTimesMs: [], charDurationsMs: [] }
  const toMs = (sample: number): number => Math.max(0, Math.round((sample - originSample) * 1000 / sampleRate))
  const inside = words.filter(w => w.textStart >= from && w.textEnd <= to && w.textEnd > w.textStart).sort((a, b) => a.textStart - b.textStart)
  let position = from
  let sample = inside[0]?.startSample ?? originSample
  for (const word of inside) {
    if (word.textStart < position) continue
    spread(out, text, position, word.textStart, sample, word.startSample, toMs)
    spread(out, text, word.textStart, word.textEnd, word.startSample, word.endSample, toMs)
    position = word.textEnd
    sample = word.endSample
  }
  spread(out, text, position, to, sample, sample, toMs)
  return out
}

/** Where the text a timing chunk covers ends: after its last word and the
 * punctuation and spaces that follow it, up to the next word. */
export function coveredEnd (text: string, words: readonly WordTiming[]): number {
  const last = words.reduce((end, w) => Math.max(end, w.textEnd), 0)
  const next = /[\p{L}\p{N}]/u.exec(text.slice(last))
  return next === null ? text.length : last + next.index
}

/** `alignment` with a space before its first character, taking no time: the
 * space between two pieces, which the cutter trims from both, so that a
 * client joining the alignments into words does not join the last word of
 * one piece to the first of the next. */
export function afterSpace (alignment: Alignment): Alignment {
  const start = alignment.charStartTimesMs[0] ?? 0
  return {
    chars: [' ', ...alignment.chars],
    charStartTimesMs: [start, ...alignment.charStartTimesMs],
    charDurationsMs: [0, ...alignment.charDurationsMs]
  }
}
