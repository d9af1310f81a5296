// Property-based checks of the phonemizer: any text (scripts, control
// characters, lone surrogates, emoji, long runs without spaces) is turned
// into sentences and phoneme ids or refused with our typed error; it never
// crashes the process or returns malformed output. Bounded in count.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import t from 'tap'
import { ChorusError } from '../../src/errors.js'
import { initRuntime, parseVoiceConfig, sentencePhonemes } from '../../src/engine/index.js'
import { FIXTURES } from '../helpers/voices.js'
import { fuzzParameters } from '../helpers/fuzz.js'

const { binding } = initRuntime()
const readJson = (path: string): unknown => JSON.parse(readFileSync(join(FIXTURES, path), 'utf8'))
const voices = [
  parseVoiceConfig(readJson('configs/en_US-lessac-medium.onnx.json'), 'lessac'),
  parseVoiceConfig(readJson('configs/pt_BR-cadu-medium.onnx.json'), 'cadu')
]
const idMaps = voices.map(voice => new binding.PhonemeIdMap(voice.phonemeIdMap))
const maxIds = voices.map(voice => BigInt(Math.max(...Object.values(voice.phonemeIdMap).flat())))

/** Characters from many scripts and from the corners of Unicode. */
const character = fc.oneof(
  fc.constantFrom('a', 'Z', ' ', '.', '!', '?', ',', ';', '\n', '\t', '\r', '\u0000', '\u0007', '\u001b', '\u007f', '\u0085', '\u00a0',
    '\u200b', '\u200d', '\u2028', '\ufeff', '\ufffd', '\ud800', '\udfff', '\u0301', '\u0308', '\u05d0', '\u0627', '\u0915', '\u0e01',
    '\u3042', '\u4e2d', '\uac00', '\u0416', '\u03a9', '👍', '👨‍👩‍👧', '🇫🇷', '𝒜', '1', '9', '%', '&', '<', '>', '"', "'", '\\', '/', '…', '—'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })
)
const text = fc.array(character, { maxLength: 120 }).map(parts => parts.join(''))
/** A long run without spaces: one word espeak must spell or split. */
const longRun = fc.tuple(fc.constantFrom('a', 'x', '9', 'é', 'ж', '中', '.', '-', '👍', 'ab'), fc.integer({ min: 100, max: 3000 }))
  .map(([unit, count]) => unit.repeat(count))

function checkPhonemes (input: string, voiceIndex: number): boolean {
  let sentences: Uint32Array[]
  try {
    sentences = sentencePhonemes(binding, input, voices[voiceIndex])
  } catch (error) {
    // A refusal is allowed only as our typed error, with a code.
    if (error instanceof ChorusError && error.code === 'ERR_PHONEMIZE') return true
    throw error
  }
  if (!Array.isArray(sentences)) return false
  for (const phonemes of sentences) {
    if (!(phonemes instanceof Uint32Array) || phonemes.length === 0) return false
    if (phonemes.some(codePoint => codePoint > 0x10ffff)) return false
    const { ids } = idMaps[voiceIndex].toIds(phonemes)
    // BOS and EOS at least, and every id one the model knows.
    if (ids.length < 2 || ids.some((id: bigint) => id < 0n || id > maxIds[voiceIndex])) return false
  }
  return true
}

t.test('any short text in any script: sentences of phoneme ids, or a typed refusal', async t => {
  t.doesNotThrow(() => fc.assert(fc.property(text, fc.integer({ min: 0, max: voices.length - 1 }), checkPhonemes), fuzzParameters(300)))
})

t.test('long runs without spaces are phonemized too', async t => {
  t.doesNotThrow(() => fc.assert(fc.property(longRun, fc.integer({ min: 0, max: voices.length - 1 }), checkPhonemes), fuzzParameters(25, 0.1)))
})

t.test('the same text gives the same phonemes every time', async t => {
  t.doesNotThrow(() => fc.assert(fc.property(text, input => {
    const first = binding.phonemize(input, 'en-us')
    return JSON.stringify(binding.phonemize(input, 'en-us')) === JSON.stringify(first)
  }), fuzzParameters(100, 0.5)))
})
