// Words as written, from espeak-ng's own word positions: a corpus of
// numbers, currency, dates, emoji, accents, quotes and abbreviations maps to
// the words expected, each slice of the text being the word; the phonemes
// (and so the ids and the audio) are exactly those without words; every
// speech sound is in a word and words never overlap, for the configs of
// every generated voice and for any text (property-based). The rules on
// made-up positions: expansions, merges, reading out of written order,
// scripts written without spaces.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import t from 'tap'
import {
  initRuntime, parseVoiceConfig, sentencePhonemes, sentencePhonemesWithWords, writtenWords, type PhonemizedSentence, type VoiceConfig
} from '../../src/engine/index.js'
import { FIXTURES } from '../helpers/voices.js'
import { fuzzParameters } from '../helpers/fuzz.js'

const { binding } = initRuntime()
const config = (name: string): VoiceConfig => parseVoiceConfig(JSON.parse(readFileSync(join(FIXTURES, 'configs', `${name}.onnx.json`), 'utf8')), name)
const lessac = config('en_US-lessac-medium')
const CONFIGS = ['en_US-lessac-medium', 'en_US-ryan-medium', 'en_GB-vctk-medium', 'pt_BR-cadu-medium'].map(config)

/** What the phonemizer adds between clauses and sentences, and spaces: no speech sound. */
const SEPARATORS = new Set([...' ,.?!:;'].map(c => c.codePointAt(0) as number))

const words = (text: string, sentences: PhonemizedSentence[]): string[] => sentences.flatMap(s => s.words.map(w => text.slice(w.textStart, w.textEnd)))

/** espeak-ng carries state from one call to the next ("a.." read after
 * "a.." starts with "dot"), with words or without: both calls start from
 * the state this text leaves. */
const SETTLE = 'Ready.'

/** Phonemizes `text` with words after a settling call. */
function withWords (text: string, voice: VoiceConfig): PhonemizedSentence[] {
  sentencePhonemes(binding, SETTLE, voice)
  return sentencePhonemesWithWords(binding, text, voice)
}

/** The invariants every answer keeps (`sentences` from withWords); returns what broke, or undefined. */
function broken (text: string, sentences: PhonemizedSentence[], voice: VoiceConfig): string | undefined {
  sentencePhonemes(binding, SETTLE, voice)
  const plain = sentencePhonemes(binding, text, voice)
  if (plain.length !== sentences.length || plain.some((p, i) => p.join() !== sentences[i].phonemes.join())) return 'the phonemes differ from those without words'
  let textEnd = 0
  for (const { phonemes, words } of sentences) {
    let phonemeEnd = 0
    for (const w of words) {
      if (w.textStart < textEnd || w.textEnd <= w.textStart) return `a word out of order or empty at ${w.textStart}`
      if (w.phonemeStart < phonemeEnd || w.phonemeEnd > phonemes.length) return `phonemes out of order at ${w.phonemeStart}`
      const word = text.slice(w.textStart, w.textEnd)
      if (word.trim() !== word) return `a word with spaces around it: ${JSON.stringify(word)}`
      textEnd = w.textEnd
      phonemeEnd = w.phonemeEnd
    }
    for (let i = 0; i < phonemes.length; i++) {
      if (SEPARATORS.has(phonemes[i])) continue
      if (!words.some(w => w.phonemeStart <= i && i < w.phonemeEnd)) return `phoneme ${i} (${String.fromCodePoint(phonemes[i])}) is in no word`
    }
  }
  return undefined
}

const CORPUS: Array<[string, string[]]> = [
  ['Hello, world.', ['Hello', 'world']],
  ['It costs $5 in 1863, said Dr. Smith of the house.', ['It', 'costs', '$5', 'in', '1863', 'said', 'Dr', 'Smith', 'of the', 'house']],
  ['The meeting is on March 3rd, 2024 at 10:30 am.', ['The', 'meeting', 'is', 'on', 'March', '3rd', '2024', 'at', '10:30', 'am']],
  ['Prices rose 12.5% to $1,299.99 (about €1.2k).', ['Prices', 'rose', '12.5%', 'to', '$1,299.99', 'about', '€1.2k']],
  ['Café au lait, naïve résumé, Zürich — déjà vu!', ['Café', 'au', 'lait', 'naïve', 'résumé', 'Zürich', 'déjà vu']],
  ['I ❤️ this 👍🏽 and 👨‍👩‍👧!', ['I', '❤️', 'this', '👍🏽', 'and', '👨‍👩‍👧']],
  ['Email jo@example.com or visit https://example.org/docs.', ['Email', 'jo@example.com', 'or', 'visit', 'https://example.org/docs']],
  ['"Quoted," she said; \'single\' too.', ['Quoted', 'she', 'said', 'single', 'too']],
  ['Mr. Smith met U.S.A. folks, e.g. this well-known don\'t (hello) \'80s.', ['Mr', 'Smith', 'met', 'U.S.A.', 'folks', 'e.g.', 'this', 'well-known', 'don\'t', 'hello', '80s']],
  ['Wait... what?! No way.', ['Wait', 'what', 'No', 'way']],
  ['  Spaces   around  ', ['Spaces', 'around']]
]

t.test('a corpus maps to its words as written, each a slice of the text', async t => {
  for (const [text, expected] of CORPUS) {
    const sentences = withWords(text, lessac)
    t.same(words(text, sentences), expected, JSON.stringify(text))
    t.equal(broken(text, sentences, lessac), undefined, `${JSON.stringify(text)}: in order, every sound in a word, the same phonemes`)
  }
})

t.test('offsets are UTF-16 code units: an emoji counts two, an accent as written', async t => {
  const text = '🙂 café cafe\u0301'
  const [sentence] = sentencePhonemesWithWords(binding, text, lessac)
  t.same(sentence.words.map(w => [w.textStart, w.textEnd]), [[0, 2], [3, 7], [8, 13]])
})

t.test('the configs of every generated voice, other languages included', async t => {
  const texts = ['Olá, tudo bem? Eu estou ótimo, obrigado.', 'The quick brown fox jumps over 2 lazy dogs. Really!', CORPUS[1][0]]
  for (const voice of CONFIGS) {
    for (const text of texts) t.equal(broken(text, withWords(text, voice), voice), undefined, `${voice.espeakVoice}: ${text}`)
  }
  const [portuguese] = sentencePhonemesWithWords(binding, 'Olá, tudo bem?', CONFIGS[3])
  t.same(words('Olá, tudo bem?', [portuguese]), ['Olá', 'tudo', 'bem'])
})

t.test('any text keeps the invariants (property-based)', async t => {
  const character = fc.constantFrom('a', 'b', 'Z', ' ', ' ', '.', ',', '!', '?', '\n', '1', '9', '$', '%', '-', ':', '\'', '"', '(', 'é', 'ü',
    '中', '👍', '👨‍👩‍👧', '\u0301', '\u200b', '\ufffd', '\ud800', 'ж', 'א')
  const text = fc.array(character, { maxLength: 80 }).map(parts => parts.join(''))
  fc.assert(fc.property(text, input => broken(input, withWords(input, lessac), lessac) === undefined), fuzzParameters(300))
  t.pass('300 texts')
})

t.test('the rules, on made-up positions', async t => {
  const at = (sourceStart: number, sourceLength: number, phonemeStart: number, sentence = 0) => ({ sentence, phonemeStart, phonemeEnd: phonemeStart + 1, sourceStart, sourceLength })
  const slices = (text: string, list: ReturnType<typeof at>[]) => writtenWords(text, list).map(w => text.slice(w.textStart, w.textEnd))
  t.same(slices('in 1863 ok', [at(0, 2, 0), at(3, 4, 1), at(4, 4, 2), at(4, 4, 3), at(8, 2, 4)]), ['in', '1863', 'ok'], 'an expansion\'s words start one after the token: one word')
  t.same(slices('x 🙂 y', [at(0, 1, 0), at(2, 1, 1), at(3, 1, 2), at(3, 1, 3), at(4, 1, 4)]), ['x', '🙂', 'y'], 'also past a one-character token (code points, not UTF-16)')
  t.same(slices('5kg of', [at(0, 1, 0), at(1, 2, 1), at(4, 2, 2)]), ['5kg', 'of'], 'parts of one written token: one word')
  t.same(slices('of the end', [at(0, 2, 0), at(7, 3, 1)]), ['of the', 'end'], 'a word espeak-ng merged with the next covers both')
  t.same(slices('$5 million', [at(1, 1, 0), at(3, 7, 1), at(0, 1, 2)]), ['$5 million'], 'read out of written order: one word')
  t.same(slices('你好世界', [at(0, 1, 0), at(1, 1, 1), at(2, 1, 2), at(3, 1, 3)]), ['你', '好', '世', '界'], 'a script without spaces: each word espeak-ng reads')
  t.same(slices('a.b', [at(0, 1, 0), at(2, 1, 1, 1)]), ['a', 'b'], 'one written token, two sentences: never joined across them')
  t.same(slices('U.S.A. Dr. end.', [at(0, 1, 0), at(7, 2, 1), at(11, 3, 2)]), ['U.S.A.', 'Dr', 'end'], 'a stop stays only after short letter runs with stops')
})
