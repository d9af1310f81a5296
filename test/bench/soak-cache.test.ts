// The soak fills the phrase cache to its bound with the built-in voice before
// it measures: the fill stops at the first answer that no longer adds to the
// cache, with the cache at its bound; with the cache off it stops at once.

import t from 'tap'
import { BenchClient } from '../../bench/client.js'
import { fillPhraseCache } from '../../bench/soak/cache.js'
import { startTestService } from '../helpers/service.js'

/** Each filler answer (some 1.4 MB) must fit the share of the cache one answer may take (an eighth). */
const BOUND = 24_000_000

t.test('fills to the bound and stops', async t => {
  const service = await startTestService({ TTS_CACHE_BYTES: String(BOUND), TTS_DEFAULT_VOICE: 'en_US-espeak-low' }, [])
  t.teardown(() => service.stop())
  const client = new BenchClient(service.url, 60_000)
  t.teardown(() => client.close())
  const fill = await fillPhraseCache(client, 'en_US-espeak-low')
  const entries = service.deps.cache.size
  t.ok(fill.requests > entries, `${fill.requests} requests, the last one evicting (${entries} entries kept)`)
  t.ok(fill.bytes <= BOUND && fill.bytes > BOUND * 0.6, `${fill.bytes} bytes cached, bound ${BOUND}`)
  t.equal(fill.bytes, service.deps.cache.bytes)
})

t.test('a cache that is off: one request', async t => {
  const service = await startTestService({ TTS_CACHE_BYTES: '0', TTS_DEFAULT_VOICE: 'en_US-espeak-low' }, [])
  t.teardown(() => service.stop())
  const client = new BenchClient(service.url, 60_000)
  t.teardown(() => client.close())
  t.same(await fillPhraseCache(client, 'en_US-espeak-low'), { requests: 1, bytes: 0 })
})
