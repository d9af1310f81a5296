// The same text gives the same phonemes whatever was phonemized before it.
// espeak-ng's text-to-phonemes call never starts a new text: the character
// it read ahead at the end of one text ("a.." keeps a full stop) was read
// first in the next ("dot a"), and its translator remembered the word
// before. The phonemizer now resets that state per text (native/
// espeak_internals.cc), so a corpus read in any order, on any thread, gives
// each text the phonemes it gets alone.

import t from 'tap'
import { initRuntime } from '../../src/engine/index.js'

const { binding } = initRuntime()

/** A small seeded generator (mulberry32): the corpus and orders are the same every run. */
function random (seed: number): () => number {
  let state = seed
  return () => {
    state = (state + 0x6D2B79F5) | 0
    let x = Math.imul(state ^ (state >>> 15), 1 | state)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

// Pieces chosen for what espeak-ng carries between texts: endings it reads
// ahead past ("..", "...", ". ."), texts without a final stop, abbreviations,
// numbers, quotes, words whose reading depends on the word before.
const WORDS = ['a', 'x', 'the', 'record', 'read', 'to', 'Dr', 'St', 'NPC-7', 'Xyrith', 'live', 'lead', '42', '1st', 'I', 'wind', 'use', 'object', 'it', 'was']
const ENDINGS = ['', '.', '..', '...', '. .', '!', '?', '?!', ',', ';', ':', ' -', '"', '\'', ')', ' 3.', ' .']
const VOICES = ['en-us', 'en-us', 'en-us', 'en-gb-x-rp', 'de']

interface Item { text: string, voice: string }

function corpus (size: number): Item[] {
  const next = random(44)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]
  const items: Item[] = []
  for (let i = 0; i < size; i++) {
    const words = Array.from({ length: 1 + Math.floor(next() * 5) }, () => pick(WORDS))
    const start = next() < 0.15 ? pick(['.', '"', '(', '...', ', ']) : ''
    items.push({ text: start + words.join(' ') + pick(ENDINGS), voice: pick(VOICES) })
  }
  return items
}

function shuffled<T> (list: readonly T[], seed: number): T[] {
  const next = random(seed)
  const out = [...list]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

const key = (item: Item): string => `${item.voice}\u0000${item.text}`

t.test('"a.." read twice reads the same, as do texts after one that ends mid-read', async t => {
  const first = binding.phonemize('a..', 'en-us')
  t.same(first, ['ˈeɪ.'])
  t.same(binding.phonemize('a..', 'en-us'), first, 'the second time: no "dot" carried over')
  t.same(binding.phonemize('Hello', 'en-us'), ['həlˈoʊ '], 'a text after "a.." starts with its own first letter')
  binding.phonemize('x...', 'en-us')
  t.same(await binding.phonemizeAsync('a..', 'en-us'), first, 'on the thread pool, after "x..."')
})

t.test('1,000 texts in sorted order, in random orders and on several threads: the same phonemes per text', async t => {
  const items = corpus(1000)
  const unique = new Map(items.map(item => [key(item), item]))
  t.ok(unique.size > 800, `the corpus has ${unique.size} different texts`)

  const sorted = [...unique.values()].sort((a, b) => key(a) < key(b) ? -1 : 1)
  const reference = new Map(sorted.map(item => [key(item), binding.phonemize(item.text, item.voice)]))

  // Random order on the calling thread, twice with different seeds.
  for (const seed of [1, 2]) {
    const differing = shuffled(items, seed).filter(item => JSON.stringify(binding.phonemize(item.text, item.voice)) !== JSON.stringify(reference.get(key(item))))
    t.same(differing.map(item => item.text), [], `random order ${seed}: every text as in sorted order`)
  }

  // Every text at once on libuv's pool: several threads, one espeak mutex,
  // an order nobody chose.
  const concurrent = shuffled(items, 3)
  const results = await Promise.all(concurrent.map(async item => await binding.phonemizeAsync(item.text, item.voice)))
  const differing = concurrent.filter((item, i) => JSON.stringify(results[i]) !== JSON.stringify(reference.get(key(item))))
  t.same(differing.map(item => item.text), [], 'concurrent on the thread pool: every text as in sorted order')

  // Word positions come from the same path; their phonemes agree too.
  const worded = await Promise.all(shuffled(items, 4).slice(0, 300).map(async item => ({ item, result: await binding.phonemizeAsync(item.text, item.voice, true) })))
  const wordsDiffer = worded.filter(({ item, result }) => JSON.stringify(result.sentences) !== JSON.stringify(reference.get(key(item))))
  t.same(wordsDiffer.map(({ item }) => item.text), [], 'with words: the same sentences')
})
