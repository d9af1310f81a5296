// espeak-ng's phoneme table as the built-in voice writes IPA with it: each
// IPA name's mnemonic, every symbol espeak-ng itself writes for English
// found in it, espeak-ng reading the mnemonics back (with espeakPHONEMES)
// as the phonemes they stand for, and a symbol the table lacks named.

import t from 'tap'
import { initRuntime } from '../../src/engine/index.js'
import { EspeakMnemonics, espeakMnemonics } from '../../src/voices/builtin-phonemes.js'

const { binding } = initRuntime()

t.test('the table: mnemonics and their IPA names', async t => {
  const names = new Map(binding.espeakPhonemeNames('en-us').map(([mnemonic, ipa]) => [mnemonic, ipa]))
  t.ok(names.size > 100, `${names.size} phonemes in en-us's table`)
  t.equal(names.get('@'), 'ə')
  t.equal(names.get('oU'), 'oʊ')
  t.equal(names.get('\''), 'ˈ')
  t.equal(names.get(':'), 'ː')
  t.throws(() => binding.espeakPhonemeNames('no-such-voice'), { code: 'ERR_ESPEAK' })
  t.ok(binding.espeakPhonemeNames('de').length > 50, 'another language\'s table')
})

t.test('every IPA symbol espeak-ng writes for English has a mnemonic', async t => {
  const table = espeakMnemonics(binding, 'en-us')
  const text = 'The quick brown fox jumps over the lazy dog. She sells seashells; a thousand thoughts, weird rhythms, usual measures, older boys, a quiet yellow church bell. Order pure air!'
  const unknown = binding.phonemize(text, 'en-us').flatMap(sentence => {
    const written = table.write(sentence.replace(/[.,;:!?]/g, ' '))
    return 'unknown' in written ? [written.unknown.symbol] : []
  })
  t.same(unknown, [])
  t.same(table.write('həlˈoʊ  wˈɜːld'), { mnemonics: 'h@L\'oU w\'3:ld' }, 'longest name first; one space between words')
  t.same(table.write('hæ☃'), { unknown: { symbol: '☃', index: 2 } })
  t.same(new EspeakMnemonics([['a', ''], ['b', 'b'], ['bb', 'b']]).write('b'), { mnemonics: 'b' }, 'the shortest mnemonic of a name; no name for a silence')
})

t.test('espeak-ng reads the mnemonics back as those phonemes', async t => {
  const spoken = await binding.espeakSynthesize('[[h@L\'oU]] there', 'en-us', 175, undefined, true, true)
  const plain = await binding.espeakSynthesize('hello there', 'en-us', 175, undefined, true, false)
  const sounds = (names: string[]): string => names.join('').replace(/[ˈˌ_]/g, '')
  t.equal(sounds(spoken.phonemes.names), sounds(plain.phonemes.names))
  t.ok(spoken.samples.length > 0)
  const literal = await binding.espeakSynthesize('[[h@L\'oU]]', 'en-us', 175, undefined, true, false)
  t.not(sounds(literal.phonemes.names), sounds(spoken.phonemes.names), 'without phoneme input the brackets are text')
})
