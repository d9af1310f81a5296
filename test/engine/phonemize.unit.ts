// Phonemization is asserted exactly: sentence splitting and punctuation
// included. The reference file's ids were checked against an independent
// Piper implementation.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { initRuntime, parseVoiceConfig, sentencePhonemes } from '../../src/engine/index.js'
import { FIXTURES } from '../helpers/voices.js'

const { binding } = initRuntime()
const readJson = (path: string): unknown => JSON.parse(readFileSync(join(FIXTURES, path), 'utf8'))
const lessac = parseVoiceConfig(readJson('configs/en_US-lessac-medium.onnx.json'), 'lessac')
const cadu = parseVoiceConfig(readJson('configs/pt_BR-cadu-medium.onnx.json'), 'cadu')

t.test('English sentences, punctuation and sentence splitting', async t => {
  const cases: Array<[string, string[]]> = [
    ['Hello there.', ['həlˈoʊ ðˈɛɹ.']],
    ['Are you coming tonight?', ['ɑːɹ juː kˈʌmɪŋ tənˈaɪt?']],
    ['Watch out!', ['wˈɑːtʃ ˈaʊt!']],
    ['Well, I think so; maybe: not sure.', ['wˈɛl, aɪ θˈɪŋk sˈoʊ; mˈeɪbiː: nˌɑːt ʃˈʊɹ.']],
    ['I have 3 apples and 25 oranges.', ['aɪ hæv θɹˈiː ˈæpəlz ænd twˈɛnti fˈaɪv ˈɔɹɪndʒᵻz.']],
    ['Dr. Smith lives on Main St. near the U.S. border.',
      ['dˈɑːktɚ.', 'smˈɪθ lˈaɪvz ˌɔn mˈeɪnstɹˌiːt nˌɪɹ ðə jˌuːˈɛs bˈoːɹdɚ.']],
    ['First sentence. Second sentence! Third one? Fourth.',
      ['fˈɜːst sˈɛntəns.', 'sˈɛkənd sˈɛntəns!', 'θˈɜːd wˌʌn?', 'fˈoːɹθ.']],
    // A clause without final punctuation ends with the separating space.
    ['Nice work 👍 see you', ['nˈaɪs wˈɜːk θˈʌmz ˌʌp sˈiː juː ']],
    ['bell\u0007 tab\tnew\nline', ['bˈɛl tˈæb nˈuː lˈaɪn ']],
    // The 1.51 data: "or", "before", "support" keep oː, as Piper's voices learnt them.
    ['support the door before or after', ['səpˈoːɹt ðə dˈoːɹ bᵻfˌoːɹ ɔːɹ ˈæftɚ ']],
    ['', []],
    ['   \n\t ', []]
  ]
  for (const [text, expected] of cases) {
    t.same(binding.phonemize(text, 'en-us'), expected, JSON.stringify(text))
  }
})

t.test('very long text is split into every sentence', async t => {
  const sentence = 'The quick brown fox jumps over the lazy dog. '
  const result = binding.phonemize(sentence.repeat(200), 'en-us')
  t.equal(result.length, 200)
  t.ok(result.every(s => s === 'ðə kwˈɪk bɹˈaʊn fˈɑːks dʒˈʌmps ˌoʊvɚ ðə lˈeɪzi dˈɑːɡ.'))
})

t.test('other languages', async t => {
  t.same(binding.phonemize('Guten Morgen! Wie geht es Ihnen?', 'de'), ['ɡˈuːtən mˈɔɾɡən!', 'viː ɡˈeːt ɛs ˈiːnən?'])
  t.same(binding.phonemize('Olá, tudo bem? Eu estou ótimo.', 'pt-br'), ['olˈa, tˈudʊ bˈeɪŋ?', 'eʊ estˌow ˈɔtʃimʊ.'])
  const ids = sentencePhonemes(binding, 'Olá, tudo bem?', cadu)
  t.equal(ids.length, 1)
  t.equal(String.fromCodePoint(...ids[0]), 'olˈa, tˈudʊ bˈeɪŋ?'.normalize('NFD'))
})

t.test('an unknown espeak voice is a typed error, not a crash', async t => {
  t.throws(() => binding.phonemize('x', 'no-such-voice'), { code: 'ERR_ESPEAK', message: /no voice named "no-such-voice"/ })
  t.throws(() => sentencePhonemes(binding, 'x', { ...lessac, espeakVoice: 'no-such-voice' }), { code: 'ERR_PHONEMIZE' })
})

t.test('ids equal Piper\'s for the 20 reference sentences', async t => {
  const reference = readJson('reference/en_us-piper-ids.json') as { sentences: Array<{ text: string, phonemes: string, ids: number[] }> }
  t.equal(reference.sentences.length, 20)
  const map = new binding.PhonemeIdMap(lessac.phonemeIdMap)
  for (const sentence of reference.sentences) {
    const phonemes = sentencePhonemes(binding, sentence.text, lessac)
    t.equal(phonemes.length, 1, sentence.text)
    t.equal(String.fromCodePoint(...phonemes[0]), sentence.phonemes.normalize('NFD'), `phonemes: ${sentence.text}`)
    const { ids, missing } = map.toIds(phonemes[0])
    t.equal(missing, 0)
    t.same(Array.from(ids, Number), sentence.ids, `ids: ${sentence.text}`)
  }
})

t.test('the voice in place is kept between calls, and stays right across voices and the built-in synthesis', async t => {
  // The phonemizer skips selecting a voice that is already selected (espeak
  // leaks on every selection): what other calls did meanwhile must not leak
  // into the next sentence.
  const reference = readJson('reference/en_us-piper-ids.json') as { sentences: Array<{ text: string, phonemes: string }> }
  const first = reference.sentences[0]
  const expected = first.phonemes.normalize('NFD')
  const english = () => String.fromCodePoint(...sentencePhonemes(binding, first.text, lessac)[0])
  t.equal(english(), expected, 'first call')
  t.same(binding.phonemize('Guten Morgen!', 'de'), ['ɡˈuːtən mˈɔɾɡən!'])
  t.equal(english(), expected, 'after German')
  t.throws(() => binding.phonemize('x', 'no-such-voice'))
  t.equal(english(), expected, 'after a failed selection')
  const samples = await binding.espeakSynthesize('A slow sentence from the built-in voice.', 'en-us', 80)
  t.ok(samples.length > 0)
  t.equal(english(), expected, 'after the built-in voice spoke at another rate')
  t.same(binding.phonemize('Olá, tudo bem?', 'pt-br'), ['olˈa, tˈudʊ bˈeɪŋ?'])
  t.same(binding.phonemize('Olá, tudo bem?', 'pt-br'), ['olˈa, tˈudʊ bˈeɪŋ?'], 'the same voice twice')
  t.equal(english(), expected, 'after Portuguese twice')
})
