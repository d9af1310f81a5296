// The built-in voice's timing, from espeak-ng's own events while it speaks a
// clause: each phoneme event starts an entry that lasts until the next (the
// first entry, `^`, covers the samples before the first phoneme; the last
// ends with the clause's samples), so the entries tile the clause exactly.
// A word starts at the phoneme its event precedes and ends before the next
// word, less the pauses before it. Pure.

import { writtenWords, type EspeakWord } from '../../engine/index.js'
import type { BuiltinClause } from '../../voices/builtin.js'
import type { SpokenText } from '../../text/normalize/index.js'
import type { TimedPiece } from '../timing.js'
import { originalWords, type PieceWord } from './words.js'

const BOS = '^'
const PAUSE = '_'
/** Stress marks: espeak-ng writes them into a phoneme's name; they are no sound. */
const STRESS = /[ˈˌ]/gu

function entryName (name: string): string {
  const sound = name.replace(STRESS, '')
  return sound === '' || sound.startsWith(PAUSE) ? PAUSE : sound
}

/** The piece for one clause (its span is in the spoken text; `text` is the request's). */
export function builtinPiece ({ clause, speech }: BuiltinClause, spoken: SpokenText, text: string): Required<TimedPiece> {
  const names = [BOS]
  const starts = [0]
  speech.phonemes.names.forEach((name, i) => {
    names.push(entryName(name))
    starts.push(Math.min(Math.max(speech.phonemes.samples[i], starts[starts.length - 1]), speech.samples.length))
  })
  starts.push(speech.samples.length)
  const samples = Uint32Array.from(names, (_, i) => starts[i + 1] - starts[i])
  const espeak: EspeakWord[] = []
  for (let w = 0; w + 2 < speech.words.length; w += 3) {
    // The first entry that starts at or after the word's event.
    let entry = 1
    while (entry < names.length && starts[entry] < speech.words[w]) entry++
    espeak.push({ sentence: 0, phonemeStart: entry, phonemeEnd: entry, sourceStart: speech.words[w + 1], sourceLength: speech.words[w + 2] })
  }
  espeak.forEach((word, i) => {
    let end = espeak[i + 1]?.phonemeStart ?? names.length
    while (end > word.phonemeStart && names[end - 1] === PAUSE) end--
    word.phonemeEnd = Math.max(word.phonemeStart, end)
  })
  const inClause = writtenWords(clause.text, espeak).map(w => ({ ...w, textStart: w.textStart + clause.start, textEnd: w.textEnd + clause.start }))
  const words: Array<PieceWord & { word: string }> = originalWords(inClause, spoken).map(w => ({
    textStart: w.textStart, textEnd: w.textEnd, entryStart: w.phonemeStart, entryEnd: w.phonemeEnd, word: text.slice(w.textStart, w.textEnd)
  }))
  return { phonemes: Uint32Array.from(names, n => n.codePointAt(0) as number), samples, names, words }
}
