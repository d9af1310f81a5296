// The phrase cache: hits, misses, eviction by size, and keys that differ in
// every setting.

import t from 'tap'
import { PhraseCache, cacheKey, normaliseText } from '../../src/synthesis/phrase-cache.js'
import { eventually } from '../helpers/hang-guard.js'
import { holdSlots, postTts, request, startTestService } from '../helpers/service.js'

const settings = { noiseScale: 0.667, lengthScale: 1, noiseW: 0.8, speakerId: 0, sentenceSilence: 0 }
const wav = (bytes: number) => ({ bytes: Buffer.alloc(bytes), sampleRate: 22050 })

t.test('LRU bounded in bytes', async t => {
  const keyOf = (text: string) => cacheKey('v', '1', settings, text)
  const entry = (text: string) => keyOf(text).length * 2
  const cache = new PhraseCache(3000 + entry('a') + entry('b') + entry('c'))
  cache.set(keyOf('a'), wav(1000))
  cache.set(keyOf('b'), wav(1000))
  cache.set(keyOf('c'), wav(1000))
  t.equal(cache.size, 3)
  t.ok(cache.get(keyOf('a')), 'a is used, so b is now the oldest')
  cache.set(keyOf('d'), wav(1000))
  t.notOk(cache.get(keyOf('b')), 'b evicted')
  t.ok(cache.get(keyOf('a')) && cache.get(keyOf('c')) && cache.get(keyOf('d')))
  t.ok(cache.bytes <= cache.maxBytes)
  cache.set(keyOf('huge'), wav(10_000))
  t.notOk(cache.get(keyOf('huge')), 'an entry larger than the cache is not stored')
  t.equal(cache.size, 3)
  cache.dropVoice('v')
  t.equal(cache.size, 0)
  t.equal(cache.bytes, 0)
  t.notOk(new PhraseCache(0).enabled, '0 turns it off')
})

t.test('keys differ in every setting, and only spacing is normalised', async t => {
  const base = cacheKey('v', '1', settings, 'Hello there.')
  const variants = [
    cacheKey('w', '1', settings, 'Hello there.'),
    cacheKey('v', '2', settings, 'Hello there.'),
    cacheKey('v', '1', { ...settings, speakerId: 1 }, 'Hello there.'),
    cacheKey('v', '1', { ...settings, noiseScale: 0.5 }, 'Hello there.'),
    cacheKey('v', '1', { ...settings, lengthScale: 1.1 }, 'Hello there.'),
    cacheKey('v', '1', { ...settings, noiseW: 0.7 }, 'Hello there.'),
    cacheKey('v', '1', { ...settings, sentenceSilence: 0.2 }, 'Hello there.'),
    cacheKey('v', '1', settings, 'Hello there!'),
    cacheKey('v', '1', settings, 'Hello\nthere.')
  ]
  t.equal(new Set([base, ...variants]).size, variants.length + 1)
  t.equal(cacheKey('v', '1', settings, '  Hello \t  there.'), base)
  t.equal(normaliseText('Cafe\u0301'), 'Café', 'NFC')
})

t.test('through the service: a repeat is a hit, a changed setting a miss', async t => {
  // The fast probe voice: hits and misses are counted, not timed.
  const service = await startTestService({ TTS_CACHE_BYTES: '1000000' }, ['en_US-probe-medium'])
  t.teardown(() => service.stop())
  const counters = async () => {
    const text = (await request(service.url + '/metrics')).body.toString()
    const read = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1])
    return { hits: read('chorus_cache_hits_total'), misses: read('chorus_cache_misses_total') }
  }
  const miss = await postTts(service.url, { text: 'Welcome back!' })
  const syntheses = service.logs.filter(line => line.msg === 'synthesis').length
  const hit = await postTts(service.url, { text: '  Welcome   back!' })
  t.ok(hit.body.equals(miss.body), 'the same audio')
  t.equal(service.logs.filter(line => line.msg === 'synthesis').length, syntheses, 'a hit synthesises nothing')
  t.same(await counters(), { hits: 1, misses: 1 })
  await postTts(service.url, { text: 'Welcome back!', length_scale: 1.2 })
  t.same(await counters(), { hits: 1, misses: 2 }, 'another length_scale is another phrase')
  const streamedHit = await postTts(service.url, { text: 'Welcome back!', stream: true })
  t.same(await counters(), { hits: 2, misses: 2 })
  t.ok(streamedHit.body.subarray(44).equals(miss.body.subarray(44)), 'a streamed hit carries the same PCM')
  t.match((await request(service.url + '/metrics')).body.toString(), /chorus_cache_bytes [1-9]\d*/)
})

t.test('a hit is served even when the queue is full', async t => {
  const service = await startTestService({ TTS_CACHE_BYTES: '1000000', TTS_MAX_PENDING: '1' }, ['en_US-probe-medium'])
  t.teardown(() => service.stop())
  await postTts(service.url, { text: 'Hello.' })
  // Every inference slot held by the test: the busy request cannot finish
  // while the others are asked, however fast the machine, and no slow voice
  // burns the CPU to keep it busy.
  const release = await holdSlots(service)
  const busy = postTts(service.url, { text: 'One. Two.' })
  // Admitted, not a guess at how long admission takes.
  await eventually('the busy request to be admitted', () => service.deps.speech.pending > 0)
  // A miss the queue wrongly admitted would wait for a slot: the slots go once it is answered or admitted.
  let missAnswered = false
  const miss = postTts(service.url, { text: 'Other.' }).then(reply => { missAnswered = true; return reply })
  await eventually('the miss to be answered or admitted', () => missAnswered || service.deps.speech.pending > 1)
  t.equal((await postTts(service.url, { text: 'Hello.' })).status, 200, 'a hit is answered')
  release()
  t.equal((await miss).status, 503, 'a miss is refused')
  t.equal((await busy).status, 200)
})

t.test('an answer over an eighth of the cache is not kept, in any format: no long answer is gathered for it', async t => {
  t.ok(new PhraseCache(8000).fits(1000))
  t.notOk(new PhraseCache(8000).fits(1001))
  // A short answer fits an eighth of 200 KB; three sentences with 4 s between them do not.
  // Past 1 KiB an answer is spooled: it is still kept, before its last byte leaves.
  const service = await startTestService({ TTS_CACHE_BYTES: '200000', TTS_RESPONSE_BUFFER_BYTES: '1024', TTS_DEFAULT_VOICE: 'en_US-espeak-low' }, [])
  t.teardown(() => service.stop())
  const misses = async (): Promise<number> => Number(/^chorus_cache_misses_total (\d+)/m.exec((await request(service.url + '/metrics')).body.toString())?.[1])
  const long = { text: 'One. Two. Three.', sentence_silence: 4 }
  for (const format of ['wav', 'mp3']) {
    const before = await misses()
    const first = await postTts(service.url, { ...long, format })
    t.ok(first.body.length > 200_000 / 8, `${format}: longer than the share`)
    await postTts(service.url, { ...long, format })
    t.equal(await misses(), before + 2, `${format}: asked twice, synthesised twice`)
  }
  const before = await misses()
  const short = await postTts(service.url, { text: 'Hi.' })
  t.ok(short.body.length > 1024, 'spooled')
  await postTts(service.url, { text: 'Hi.' })
  t.equal(await misses(), before + 1, 'a short answer is kept, by the time its last byte has arrived')
})
