// Every item of the normalizer's corpus (test/fixtures/normalizer/corpus.json,
// 153 replies as models write them): after normalizeForSpeech, espeak-ng
// reads it with the phonemes of its `expected` reading. docs/normalizer.md's
// "right, normalized" column is this test passing; plain prose must also come
// back as the same string (normalize.unit.ts). Each category of rules holds
// items espeak-ng reads wrong as written, so the test shows the rules at
// work, not a corpus espeak already reads right.

import t from 'tap'
import { normalizeForSpeech } from '../../src/text/normalize/index.js'
import { phonemesOf, readCorpus } from '../../scripts/lib/normalizer-corpus.js'

const corpus = readCorpus()
const categories = [...new Set(corpus.map(item => item.category))]

t.test('the corpus: 153 items in 11 categories', async t => {
  t.equal(corpus.length, 153)
  t.same(categories, ['plain', 'markdown', 'emoji', 'urls', 'money', 'units', 'times', 'dates', 'ordinals', 'numbers', 'abbreviations'])
})

for (const category of categories) {
  t.test(`${category}: read as expected once normalized`, async t => {
    for (const item of corpus.filter(i => i.category === category)) {
      const normalized = normalizeForSpeech(item.text, { language: 'en-us' }).text
      t.equal(phonemesOf(normalized), phonemesOf(item.expected), `${JSON.stringify(item.text)} → ${JSON.stringify(normalized)}`)
    }
  })
}

t.test('each category of rules has items espeak-ng reads wrong without the normalizer', async t => {
  // Plain prose and ordinals are read right as written (and left alone).
  for (const category of categories.filter(c => c !== 'plain' && c !== 'ordinals')) {
    const items = corpus.filter(item => item.category === category)
    const wrongRaw = items.filter(item => phonemesOf(item.text) !== phonemesOf(item.expected)).length
    t.ok(wrongRaw > 0, `${category}: ${wrongRaw} of ${items.length} read wrong as written`)
  }
})
