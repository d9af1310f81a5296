// The workload: the same texts for the same seed, no accidental repeats,
// the asked share of repeated phrases, the voice mix, and the request body.

import t from 'tap'
import { Corpus, Rng, STOCK_PHRASES } from '../../bench/corpus.js'
import { requestBody, Workload, type WorkloadSpec } from '../../bench/workload.js'

const spec = (fields: Partial<WorkloadSpec> = {}): WorkloadSpec => ({
  texts: { kind: 'corpus' },
  seed: 1,
  voices: [{ name: 'en_US-a-medium', weight: 1 }],
  multiSpeaker: new Set(),
  synthesis: {},
  stream: false,
  repeatRatio: 0,
  ...fields
})

t.test('the same seed and stream give the same requests; others differ', async t => {
  const a = new Workload(spec()).take(50)
  const b = new Workload(spec()).take(50)
  t.same(a, b)
  t.not(new Workload(spec({ seed: 2 })).take(1)[0].text, a[0].text)
  t.not(new Workload(spec(), 1).take(1)[0].text, a[0].text, 'each level has its own stream')
})

t.test('the corpus mixes greetings, one-liners, replies and paragraphs, without repeats', async t => {
  const corpus = new Corpus(new Rng(3))
  const kinds = new Map<string, number>()
  for (let i = 0; i < 2000; i++) {
    const { kind } = corpus.utterance()
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
  }
  t.ok((kinds.get('greeting') ?? 0) > 400 && (kinds.get('paragraph') ?? 0) > 100, JSON.stringify([...kinds]))
  const seen = new Set<string>()
  const texts = [...new Workload(spec(), 0, seen).take(3000), ...new Workload(spec(), 1, seen).take(3000)].map(w => w.text)
  t.equal(new Set(texts).size, texts.length, 'no text twice, across levels too')
  const sentences = corpus.sentences(6).match(/[.!?](\s|$)/g)?.length
  t.equal(sentences, 6)
})

t.test('repetition draws the asked share from the stock phrases', async t => {
  const items = new Workload(spec({ repeatRatio: 0.3 })).take(4000)
  const repeated = items.filter(item => item.repeated)
  t.ok(Math.abs(repeated.length / items.length - 0.3) < 0.03, `${repeated.length} of ${items.length}`)
  t.ok(repeated.every(item => STOCK_PHRASES.includes(item.text)))
})

t.test('the voice mix follows its weights', async t => {
  const voices = [{ name: 'en_US-a-medium', weight: 3 }, { name: 'en_GB-b-medium', weight: 1 }]
  const items = new Workload(spec({ voices })).take(4000)
  const a = items.filter(item => item.voice === 'en_US-a-medium').length
  t.ok(Math.abs(a / items.length - 0.75) < 0.03, `${a} of ${items.length}`)
})

t.test('a text file cycles through its lines in a seeded order', async t => {
  const lines = ['One.', 'Two.', 'Three.']
  const texts = new Workload(spec({ texts: { kind: 'file', path: 'x.txt', lines } })).take(6).map(item => item.text)
  t.same([...texts.slice(0, 3)].sort(), [...lines].sort())
  t.same(texts.slice(3), texts.slice(0, 3))
})

t.test('request bodies use the wire names; speaker only for voices that have speakers', async t => {
  const params = { synthesis: { speaker: 4, lengthScale: 1.2, noiseScale: 0.5, noiseW: 0.6, sentenceSilence: 0.2 }, stream: true, multiSpeaker: new Set(['en_GB-multi-medium']) }
  t.same(JSON.parse(requestBody('Hi.', 'en_GB-multi-medium', params)), {
    text: 'Hi.', voice: 'en_GB-multi-medium', speaker: 4, length_scale: 1.2, noise_scale: 0.5, noise_w: 0.6, sentence_silence: 0.2, stream: true
  })
  t.notOk('speaker' in JSON.parse(requestBody('Hi.', 'en_US-a-medium', params)))
  t.same(JSON.parse(requestBody('Hi.', 'en_US-a-medium', { synthesis: {}, stream: false, multiSpeaker: new Set() })), { text: 'Hi.', voice: 'en_US-a-medium' })
})
