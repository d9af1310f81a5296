// The number of loaded voices is bounded: the least recently used voice's
// pool closes when another must load.

import t from 'tap'
import { postTts, request, startTestService } from '../helpers/service.js'

t.test('at most TTS_MAX_LOADED_VOICES voices stay loaded, the LRU one goes', async t => {
  const service = await startTestService({ TTS_MAX_LOADED_VOICES: '2', TTS_WORKERS_PER_VOICE: '1' },
    ['en_US-probe-medium', 'en_GB-probemulti-medium', 'en_US-proberyan-medium'])
  t.teardown(() => service.stop())
  const loaded = async () => ((await request(service.url + '/health')).json.loaded_voices as string[])
  t.same(await loaded(), ['en_US-probe-medium'], 'the default voice loads at start-up')
  t.equal((await postTts(service.url, { text: 'Hi.', voice: 'en_GB-probemulti-medium' })).status, 200)
  t.same(await loaded(), ['en_GB-probemulti-medium', 'en_US-probe-medium'])
  // Touch the default voice so the multi-speaker one is the least recently used.
  t.equal((await postTts(service.url, { text: 'Hi.' })).status, 200)
  t.equal((await postTts(service.url, { text: 'Hi.', voice: 'en_US-proberyan-medium' })).status, 200)
  t.same(await loaded(), ['en_US-probe-medium', 'en_US-proberyan-medium'], 'the least recently used voice was unloaded')
  const details = (await request(service.url + '/voices')).json.details as Array<{ name: string, loaded: boolean }>
  t.equal(details.find(v => v.name === 'en_GB-probemulti-medium')?.loaded, false)
  t.ok(service.logs.some(line => line.msg === 'voice unloading' && line.voice === 'en_GB-probemulti-medium' && line.reason === 'least recently used'))
  t.equal((await postTts(service.url, { text: 'Hi.', voice: 'en_GB-probemulti-medium', speaker: 4 })).status, 200, 'an unloaded voice loads again on demand')
})
