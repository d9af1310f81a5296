import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { initRuntime, parseVoiceConfig, sentencePhonemes } from '../../src/engine/index.js'
import { FIXTURES } from '../helpers/voices.js'

const { binding } = initRuntime()
const cps = (s: string) => Uint32Array.from(s, c => c.codePointAt(0) as number)

t.test('BOS, pad after every phoneme, EOS without pad', async t => {
  const map = new binding.PhonemeIdMap({ _: [0], '^': [1], $: [2], a: [10], b: [11, 12] })
  const { ids, missing } = map.toIds(cps('ab'))
  t.same(Array.from(ids, Number), [1, 0, 10, 0, 11, 12, 0, 2])
  t.equal(missing, 0)
  t.same(Array.from(map.toIds(new Uint32Array(0)).ids, Number), [1, 0, 2], 'empty sentence: BOS, pad, EOS')
})

t.test('unknown phonemes are skipped and counted', async t => {
  const map = new binding.PhonemeIdMap({ _: [0], '^': [1], $: [2], a: [10] })
  const { ids, missing } = map.toIds(cps('xay😀'))
  t.same(Array.from(ids, Number), [1, 0, 10, 0, 2])
  t.equal(missing, 3)
})

t.test('codepoints beyond the BMP are one phoneme', async t => {
  const map = new binding.PhonemeIdMap({ _: [0], '^': [1], $: [2], '𝒜': [7] })
  t.same(Array.from(map.toIds(cps('𝒜')).ids, Number), [1, 0, 7, 0, 2])
})

t.test('phoneme_map replaces phonemes before the id lookup', async t => {
  const raw = JSON.parse(readFileSync(join(FIXTURES, 'configs/pt_BR-cadu-medium.onnx.json'), 'utf8'))
  // Map every "a" to "ɐ" and every "l" to "ɫl": visible in the codepoints.
  const config = parseVoiceConfig({ ...raw, phoneme_map: { a: ['ɐ'], l: ['ɫ', 'l'] } }, 'mapped')
  const [sentence] = sentencePhonemes(binding, 'Olá.', config)
  t.equal(String.fromCodePoint(...sentence), 'oɫlˈɐ.'.normalize('NFD'))
})

t.test('phoneme_type "text" uses the NFD codepoints of the text', async t => {
  const raw = JSON.parse(readFileSync(join(FIXTURES, 'configs/en_US-lessac-medium.onnx.json'), 'utf8'))
  const config = parseVoiceConfig({ ...raw, phoneme_type: 'text' }, 'text voice')
  const sentences = sentencePhonemes(binding, '  Café au lait.  ', config)
  t.equal(sentences.length, 1)
  t.same(Array.from(sentences[0]), Array.from('Café au lait.'.normalize('NFD'), c => c.codePointAt(0)))
  t.same(sentencePhonemes(binding, '   ', config), [])
})
