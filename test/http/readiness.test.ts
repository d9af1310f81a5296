// GET /ready: 200 only when the default voice and TTS_PRELOAD_VOICES are
// loaded; 503 with what is missing otherwise. GET /health stays 200.

import { cp } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { loadServiceConfig } from '../../src/service/config.js'
import { eventually } from '../helpers/hang-guard.js'
import { postTts, request, startTestService, type Reply } from '../helpers/service.js'
import { testVoiceDir } from '../helpers/voices.js'

/** Polls /ready until it answers 200 (each 503 starts loading what is missing).
 * Bounded only to end a hang: loads beside a busy CPU take minutes. */
async function readyEventually (base: string): Promise<Reply[]> {
  const replies: Reply[] = []
  await eventually('/ready to answer 200', async () => {
    replies.push(await request(base + '/ready'))
    return replies.at(-1)?.status === 200
  }, 200)
  return replies
}

t.test('ready once the default voice is loaded', async t => {
  const service = await startTestService()
  t.teardown(() => service.stop())
  const reply = await request(service.url + '/ready')
  t.equal(reply.status, 200)
  t.same(reply.json, { status: 'ready', voices: ['en_US-probe-medium'] })
})

t.test('the built-in voice needs nothing: ready at once, and listed as the voice that serves', async t => {
  const service = await startTestService({ TTS_DEFAULT_VOICE: '' }, [])
  t.teardown(() => service.stop())
  const reply = await request(service.url + '/ready')
  t.equal(reply.status, 200)
  t.same(reply.json, { status: 'ready', voices: ['en_US-espeak-low'] })
})

t.test('a configured default that is not installed: 503 naming it, while /health stays 200', async t => {
  const service = await startTestService({ TTS_DEFAULT_VOICE: 'en_US-late-medium' })
  t.teardown(() => service.stop())
  const reply = await request(service.url + '/ready')
  t.equal(reply.status, 503)
  t.same(reply.json, {
    error: 'Not ready: en_US-late-medium is not installed',
    code: 'ERR_NOT_READY',
    missing: [{ voice: 'en_US-late-medium', reason: 'not installed' }]
  })
  t.equal((await request(service.url + '/health')).status, 200)

  // Installed later: the folder rescan sees it, a check starts loading it.
  for (const suffix of ['.onnx', '.onnx.json']) {
    await cp(join(await testVoiceDir(), `en_US-probe-medium${suffix}`), join(service.voiceDir, `en_US-late-medium${suffix}`))
  }
  await service.deps.registry.rescan()
  const replies = await readyEventually(service.url)
  t.match(replies[0].json, { missing: [{ voice: 'en_US-late-medium', reason: 'loading' }] }, 'first: loading')
  t.equal(replies.at(-1)?.status, 200, 'then ready')
})

t.test('preloaded voices are loaded at start-up and required', async t => {
  const service = await startTestService({ TTS_PRELOAD_VOICES: 'en_GB-probemulti-medium, en_US-gone-medium' })
  t.teardown(() => service.stop())
  // Preloading runs in the background once the service listens.
  await eventually('the preloader to finish', () => service.deps.preload.status.state === 'done', 50)
  t.ok(service.deps.pools.loaded().has('en_GB-probemulti-medium'), 'loaded by the preloader')
  const reply = await request(service.url + '/ready')
  t.equal(reply.status, 503)
  t.same(reply.json.missing, [{ voice: 'en_US-gone-medium', reason: 'not installed' }], 'a named voice that is not installed keeps the replica unready')
})

t.test('a required voice unloaded under many voices is loaded again, not left unready', async t => {
  // Two other quick voices push the default one out (probeslow's load and sentences take seconds).
  const service = await startTestService({ TTS_MAX_LOADED_VOICES: '2' }, ['en_US-probe-medium', 'en_GB-probemulti-medium', 'en_US-proberyan-medium'])
  t.teardown(() => service.stop())
  for (const voice of ['en_GB-probemulti-medium', 'en_US-proberyan-medium']) {
    t.equal((await postTts(service.url, { text: 'Hi.', voice })).status, 200)
  }
  t.notOk(service.deps.pools.loaded().has('en_US-probe-medium'), 'the default voice was the least recently used')
  const replies = await readyEventually(service.url)
  t.equal(replies[0].status, 503)
  t.equal(replies.at(-1)?.status, 200)
})

t.test('TTS_PRELOAD_VOICES is checked at start-up', async t => {
  t.throws(() => loadServiceConfig({ TTS_PRELOAD_VOICES: 'en_US-ok-medium,../x' }), {
    code: 'ERR_CONFIG', message: 'Expected voice names separated by commas (like en_US-lessac-medium,en_GB-alba-medium), or * for TTS_PRELOAD_VOICES but received "en_US-ok-medium,../x" (string)'
  })
  t.same(loadServiceConfig({ TTS_PRELOAD_VOICES: ' en_US-a-medium,en_US-b-medium en_US-a-medium ' }).preloadVoices, ['en_US-a-medium', 'en_US-b-medium'])
})
