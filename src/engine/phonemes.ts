// Text to per-sentence phoneme codepoints, as Piper does it: espeak-ng
// phonemes (or the text itself for phoneme_type "text"), NFD-decomposed,
// with the voice's phoneme_map applied.

import { PhonemizeError } from './errors.js'
import { toTypedError, type NativeBinding, type NativePhonemizedText } from './native.js'
import type { VoiceConfig } from './voice-config.js'
import { writtenWords, type EspeakWord } from './written-words.js'

/** A written word of a sentence: its phonemes' indices in the sentence's
 * codepoints and its range of the phonemized text (UTF-16 code units). */
export interface SentenceWord {
  phonemeStart: number
  phonemeEnd: number
  textStart: number
  textEnd: number
}

export interface PhonemizedSentence {
  phonemes: Uint32Array
  words: SentenceWord[]
}

/** A phoneme string as the voice takes it: NFD code points, its phoneme_map applied. */
export function toCodepoints (phonemes: string, phonemeMap: Record<string, string[]>): Uint32Array {
  const out: number[] = []
  for (const phoneme of phonemes.normalize('NFD')) {
    const mapped = phonemeMap[phoneme]
    if (mapped === undefined) out.push(phoneme.codePointAt(0) as number)
    else for (const p of mapped) out.push(p.codePointAt(0) as number)
  }
  return Uint32Array.from(out)
}

/** For each code point of `phonemes`, the index in toCodepoints' result
 * where its codepoints begin, and the count of them last. NFD and the map
 * are applied per character; whole-string NFD only reorders combining marks
 * within a run, so the counts before any other character are the same. */
function codepointOffsets (phonemes: string, phonemeMap: Record<string, string[]>): Uint32Array {
  const offsets: number[] = []
  let at = 0
  for (const char of phonemes) {
    offsets.push(at)
    for (const part of char.normalize('NFD')) at += phonemeMap[part]?.length ?? 1
  }
  offsets.push(at)
  return Uint32Array.from(offsets)
}

function rethrown (error: unknown, config: VoiceConfig): Error {
  const typed = toTypedError(error)
  if (typed instanceof PhonemizeError) return typed
  return new PhonemizeError(`Cannot phonemize with espeak voice ${config.espeakVoice}: ${(error as Error).message}`, { cause: error })
}

/** The IPA phoneme strings of each sentence (punctuation included). */
function phonemizeText (binding: NativeBinding, text: string, config: VoiceConfig): string[] {
  if (config.phonemeType === 'text') {
    // Piper's "text" voices take the characters themselves; the whole text
    // is one sentence.
    const trimmed = text.trim()
    return trimmed.length > 0 ? [trimmed] : []
  }
  try {
    return binding.phonemize(text, config.espeakVoice)
  } catch (error) {
    throw rethrown(error, config)
  }
}

/** phonemizeText on the libuv thread pool: the calling thread never waits
 * for the espeak mutex. */
async function phonemizeTextAsync (binding: NativeBinding, text: string, config: VoiceConfig): Promise<string[]> {
  if (config.phonemeType === 'text') return phonemizeText(binding, text, config)
  try {
    return await binding.phonemizeAsync(text, config.espeakVoice)
  } catch (error) {
    throw rethrown(error, config)
  }
}

/** A "text" voice's one sentence: its words are the runs of non-space characters. */
function textVoiceSentence (text: string, config: VoiceConfig): PhonemizedSentence[] {
  const trimmed = text.trim()
  if (trimmed.length === 0) return []
  const lead = text.length - text.trimStart().length
  const at = codepointOffsets(trimmed, config.phonemeMap)
  const words: SentenceWord[] = []
  let word: SentenceWord | undefined
  let unit = 0
  let codePoint = 0
  const close = (): void => {
    if (word === undefined) return
    words.push({ ...word, phonemeEnd: at[codePoint], textEnd: lead + unit })
    word = undefined
  }
  for (const char of trimmed) {
    if (/\s/u.test(char)) close()
    else word ??= { phonemeStart: at[codePoint], phonemeEnd: 0, textStart: lead + unit, textEnd: 0 }
    unit += char.length
    codePoint++
  }
  close()
  return [{ phonemes: toCodepoints(trimmed, config.phonemeMap), words }]
}

function withWords (text: string, phonemized: NativePhonemizedText, config: VoiceConfig): PhonemizedSentence[] {
  const espeak: EspeakWord[] = []
  const phonemes = phonemized.sentences.map((sentence, i) => {
    const at = codepointOffsets(sentence, config.phonemeMap)
    const packed = phonemized.words[i]
    for (let w = 0; w + 3 < packed.length; w += 4) {
      espeak.push({ sentence: i, phonemeStart: at[packed[w]], phonemeEnd: at[packed[w + 1]], sourceStart: packed[w + 2], sourceLength: packed[w + 3] })
    }
    return toCodepoints(sentence, config.phonemeMap)
  })
  const result: PhonemizedSentence[] = phonemes.map(p => ({ phonemes: p, words: [] }))
  for (const { sentence, phonemeStart, phonemeEnd, textStart, textEnd } of writtenWords(text, espeak)) {
    result[sentence].words.push({ phonemeStart, phonemeEnd, textStart, textEnd })
  }
  placeUnplaced(text, result, config)
  return result
}

const SEPARATOR_PHONEMES = ' ,.?!:;'

/** Speech sounds with no word position from espeak-ng (it reports none for
 * some clauses that start with punctuation, as ",-a" or "a:'-a"): in a
 * sentence with words they join the word before them (the first word, when
 * they come before it), whose text reaches to the next word already; a
 * sentence with none gets one word of all its phonemes over the written
 * text between its neighbours' words, without spaces and punctuation at
 * its edges. */
function placeUnplaced (text: string, sentences: PhonemizedSentence[], config: VoiceConfig): void {
  const separators = new Set(toCodepoints(SEPARATOR_PHONEMES, config.phonemeMap))
  sentences.forEach((sentence, i) => {
    const { words, phonemes } = sentence
    if (words.length > 0) {
      // Words are in order and never overlap: the only one that can hold
      // phoneme k is the last to start at or before it.
      let at = -1
      phonemes.forEach((p, k) => {
        while (at + 1 < words.length && words[at + 1].phonemeStart <= k) at++
        if (separators.has(p) || (at >= 0 && k < words[at].phonemeEnd)) return
        if (at < 0) words[0].phonemeStart = k
        else words[at].phonemeEnd = k + 1
      })
      return
    }
    if (phonemes.every(p => separators.has(p))) return
    const previous = sentences.slice(0, i).flatMap(s => s.words).at(-1)
    const to = sentences.slice(i + 1).flatMap(s => s.words)[0]?.textStart ?? text.length
    // The word before may have reached over this sentence's text (its range
    // runs to the next word it knows of): it gives back what follows its cut.
    const range = writtenRange(text, previous?.textEnd ?? 0, to) ?? (previous === undefined ? undefined : splitOff(text, previous, to))
    const speech = [...sentence.phonemes.keys()].filter(k => !separators.has(sentence.phonemes[k]))
    if (range !== undefined) sentence.words.push({ phonemeStart: speech[0], phonemeEnd: (speech.at(-1) as number) + 1, ...range })
  })
}

/** Cuts `word` after its last sentence end (else its last space, else
 * before its last code point), and returns the written range after the cut
 * up to `to`; undefined when the word is too short to give any. */
function splitOff (text: string, word: { textStart: number, textEnd: number }, to: number): { textStart: number, textEnd: number } | undefined {
  const inside = text.slice(word.textStart, word.textEnd)
  let cut = -1
  for (let k = inside.length - 2; k >= 0 && cut < 0; k--) {
    if (/[.?!]/u.test(inside[k]) && /[\p{L}\p{N}]/u.test(inside.slice(k + 1))) cut = k + 1
  }
  if (cut < 0) cut = inside.search(/\s\S*$/u)
  if (cut <= 0) cut = inside.length - ([...inside].at(-1)?.length ?? inside.length)
  if (cut <= 0) return undefined
  const rest = writtenRange(text, word.textStart + cut, Math.max(to, word.textEnd))
  const kept = writtenRange(text, word.textStart, word.textStart + cut)
  if (rest === undefined || kept === undefined) return undefined
  word.textEnd = kept.textEnd
  return rest
}

/** [from, to) less its leading and trailing spaces and punctuation (all of it when that is all it holds). */
function writtenRange (text: string, from: number, to: number): { textStart: number, textEnd: number } | undefined {
  const content = /[\p{L}\p{N}\p{S}]/u
  let start = from
  let end = to
  while (start < end && !content.test(text[start])) start++
  while (end > start && !content.test(text[end - 1])) end--
  if (start < end) return { textStart: start, textEnd: end }
  start = from
  end = to
  while (start < end && /\s/u.test(text[start])) start++
  while (end > start && /\s/u.test(text[end - 1])) end--
  return start < end ? { textStart: start, textEnd: end } : undefined
}

/** Each sentence's phoneme codepoints (exactly sentencePhonemesAsync's) and
 * its written words, mapped from espeak-ng's word positions (written-words.ts). */
export async function sentencePhonemesWithWordsAsync (binding: NativeBinding, text: string, config: VoiceConfig): Promise<PhonemizedSentence[]> {
  if (config.phonemeType === 'text') return textVoiceSentence(text, config)
  let phonemized: NativePhonemizedText
  try {
    phonemized = await binding.phonemizeAsync(text, config.espeakVoice, true)
  } catch (error) {
    throw rethrown(error, config)
  }
  return withWords(text, phonemized, config)
}

/** sentencePhonemesWithWordsAsync on the calling thread (tests, tools). */
export function sentencePhonemesWithWords (binding: NativeBinding, text: string, config: VoiceConfig): PhonemizedSentence[] {
  if (config.phonemeType === 'text') return textVoiceSentence(text, config)
  let phonemized: NativePhonemizedText
  try {
    phonemized = binding.phonemize(text, config.espeakVoice, true)
  } catch (error) {
    throw rethrown(error, config)
  }
  return withWords(text, phonemized, config)
}

export async function sentencePhonemesAsync (binding: NativeBinding, text: string, config: VoiceConfig): Promise<Uint32Array[]> {
  return (await phonemizeTextAsync(binding, text, config)).map(s => toCodepoints(s, config.phonemeMap))
}

/** One Uint32Array of phoneme codepoints per sentence. */
export function sentencePhonemes (binding: NativeBinding, text: string, config: VoiceConfig): Uint32Array[] {
  return phonemizeText(binding, text, config).map(s => toCodepoints(s, config.phonemeMap))
}
