// TTS_PRELOAD_VOICES: voices loaded at start-up in the background, within
// the budget, with /health telling when it is done.

import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import { request, startTestService, type TestService } from '../helpers/service.js'
import { CHILD_HANG_GUARD_MS, eventually } from '../helpers/hang-guard.js'
import { chorusCommand } from '../helpers/chorus-command.js'

interface Preload { state: string, loaded: string[], failed: string[], skipped: string[] }

async function preloaded (service: TestService): Promise<Preload> {
  let preload: Preload | undefined
  await eventually('preloading finished', async () => {
    preload = (await request(service.url + '/health')).json.preload as Preload
    return preload.state === 'done'
  }, 10)
  return preload as Preload
}

t.test('named voices load in the background; a voice not installed is reported as failed', async t => {
  const service = await startTestService({ TTS_WORKERS_PER_VOICE: '1', TTS_PRELOAD_VOICES: 'en_GB-probemulti-medium,en_US-nobody-medium' })
  t.teardown(() => service.stop())
  const preload = await preloaded(service)
  t.same(preload, { state: 'done', loaded: ['en_GB-probemulti-medium'], failed: ['en_US-nobody-medium'], skipped: [] })
  t.same((await request(service.url + '/health')).json.loaded_voices, ['en_GB-probemulti-medium', 'en_US-probe-medium'])
  const listening = service.logs.findIndex(line => line.msg === 'listening')
  const loaded = service.logs.findIndex(line => line.msg === 'voice loaded' && line.voice === 'en_GB-probemulti-medium')
  t.ok(listening >= 0 && listening < loaded, 'preloading starts once the service listens')
})

t.test('* loads every installed voice that fits, and never evicts', async t => {
  // Three quick voices (the helper's probeslow takes seconds to load and warm up).
  const voices = ['en_US-probe-medium', 'en_GB-probemulti-medium', 'en_US-proberyan-medium']
  const all = await startTestService({ TTS_WORKERS_PER_VOICE: '1', TTS_PRELOAD_VOICES: '*' }, voices)
  t.teardown(() => all.stop())
  t.same(await preloaded(all), { state: 'done', loaded: ['en_GB-probemulti-medium', 'en_US-probe-medium', 'en_US-proberyan-medium'], failed: [], skipped: [] })
  t.equal(all.deps.pools.loadedCount, 3)

  const capped = await startTestService({ TTS_WORKERS_PER_VOICE: '1', TTS_PRELOAD_VOICES: '*', TTS_MAX_LOADED_VOICES: '2' }, voices)
  t.teardown(() => capped.stop())
  t.same(await preloaded(capped), { state: 'done', loaded: ['en_GB-probemulti-medium', 'en_US-probe-medium'], failed: [], skipped: ['en_US-proberyan-medium'] })
  t.equal(capped.logs.filter(line => line.msg === 'voice unloading').length, 0, 'nothing was evicted to preload')
})

t.test('nothing to preload: done at once', async t => {
  const service = await startTestService({ TTS_WORKERS_PER_VOICE: '1' })
  t.teardown(() => service.stop())
  t.same((await request(service.url + '/health')).json.preload, { state: 'done', loaded: [], failed: [], skipped: [] })
})

t.test('chorus serve with a malformed TTS_PRELOAD_VOICES exits 2 naming it', async t => {
  const failed = await promisify(execFile)(...chorusCommand(['serve']), {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TTS_PRELOAD_VOICES: 'en_US-lessac-medium,voices/evil' },
    timeout: CHILD_HANG_GUARD_MS
  }).then(() => ({ code: 0, stderr: '' }), (error: { code: number, stderr: string }) => error)
  t.equal(failed.code, 2)
  t.match(failed.stderr, 'Expected voice names separated by commas (like en_US-lessac-medium,en_GB-alba-medium), or * for TTS_PRELOAD_VOICES but received "en_US-lessac-medium,voices/evil" (string)')
})
