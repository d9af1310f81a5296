// Loaded voices are bounded by a memory budget and a cap on their number:
// the least recently used idle voice goes when another must load; a busy
// voice never does (the newcomer waits); retiring pools count until closed;
// running inferences stay within TTS_MAX_CONCURRENT_INFERENCES.

import { copyFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { LOAD_ESTIMATE_FACTOR } from '../../src/pool/pool-manager.js'
import { postTts, request, startTestService, type TestService } from '../helpers/service.js'
import { testVoiceDir } from '../helpers/voices.js'
import { eventually } from '../helpers/hang-guard.js'

/** Room for one of the two probe voices (their estimate, the model × the load factor), never for two:
 * a voice over the budget alone is refused at the scan, so the budget is not 1 byte. */
async function oneVoiceBudget (): Promise<string> {
  const dir = await testVoiceDir()
  const sizes = await Promise.all(['en_US-probe-medium', 'en_US-proberyan-medium'].map(async name => (await stat(join(dir, `${name}.onnx`))).size))
  return String(Math.max(...sizes) * LOAD_ESTIMATE_FACTOR)
}

const LONG = Array.from({ length: 6 }, (_, i) => `Sentence number ${i + 1}.`).join(' ')

const pending = async (service: TestService): Promise<number> => (await request(service.url + '/health')).json.pending_requests as number
const logIndex = (service: TestService, msg: string, voice: string): number => service.logs.findIndex(line => line.msg === msg && line.voice === voice)

/** Installs the probe voice under more names, and waits until they are served. */
async function installCopies (service: TestService, names: string[]): Promise<void> {
  const source = await testVoiceDir()
  for (const name of names) {
    await copyFile(join(source, 'en_US-probe-medium.onnx.json'), join(service.voiceDir, `${name}.onnx.json`))
    await copyFile(join(source, 'en_US-probe-medium.onnx'), join(service.voiceDir, `${name}.onnx`))
  }
  await eventually('the copies are installed', () => names.every(name => service.deps.registry.get(name) !== undefined))
}

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
  t.ok(service.logs.some(line => line.msg === 'voice unloading' && line.voice === 'en_GB-probemulti-medium' && line.reason === 'count'))
  // What the retired pool left in the main thread is collected (see heap-sweep.ts).
  await eventually('the main thread is swept after the retirement', () => service.deps.pools.heapSweep.count > 0)
  t.equal((await postTts(service.url, { text: 'Hi.', voice: 'en_GB-probemulti-medium', speaker: 4 })).status, 200, 'an unloaded voice loads again on demand')
})

t.test('TTS_VOICE_MEMORY_BYTES: a voice that does not fit evicts the LRU idle one', async t => {
  // Only one voice fits at a time.
  const service = await startTestService({ TTS_VOICE_MEMORY_BYTES: await oneVoiceBudget(), TTS_WORKERS_PER_VOICE: '1' }, ['en_US-probe-medium', 'en_US-proberyan-medium'])
  t.teardown(() => service.stop())
  const pools = service.deps.pools
  t.equal(pools.state('en_US-probe-medium'), 'loaded')
  t.ok(pools.usedBytes > 0, 'the loaded voice counts against the budget')
  t.equal((await postTts(service.url, { text: 'Hi.', voice: 'en_US-proberyan-medium' })).status, 200)
  t.equal(pools.state('en_US-proberyan-medium'), 'loaded')
  t.equal(pools.state('en_US-probe-medium'), 'unloaded')
  t.ok(service.logs.some(line => line.msg === 'voice unloading' && line.voice === 'en_US-probe-medium' && line.reason === 'memory'))
})

t.test('a busy voice is not evicted: the newcomer waits until its work is done', async t => {
  const service = await startTestService({ TTS_VOICE_MEMORY_BYTES: await oneVoiceBudget(), TTS_WORKERS_PER_VOICE: '1', TTS_MAX_CONCURRENT_INFERENCES: '1' },
    ['en_US-probe-medium', 'en_US-proberyan-medium'])
  t.teardown(() => service.stop())
  const pools = service.deps.pools
  // Holding the only inference slot keeps the default voice's request busy for as long as the test needs.
  const slot = await pools.gate.acquire()
  const busy = postTts(service.url, { text: LONG })
  await eventually('the first request holds its voice', async () => await pending(service) === 1)
  const newcomer = postTts(service.url, { text: 'Hi.', voice: 'en_US-proberyan-medium' })
  // Admission, phonemizing and the room check run without a pause: once both
  // requests are pending, the newcomer has already decided to wait.
  await eventually('both requests are admitted', async () => await pending(service) === 2)
  t.equal(pools.state('en_US-probe-medium'), 'loaded', 'the busy voice stays loaded')
  t.equal(pools.state('en_US-proberyan-medium'), 'unloaded', 'the newcomer waits for room')
  t.equal(logIndex(service, 'voice unloading', 'en_US-probe-medium'), -1)
  slot()
  t.equal((await busy).status, 200, 'the busy voice finished its work')
  t.equal((await newcomer).status, 200, 'the newcomer loaded once room was made')
  t.equal(pools.state('en_US-probe-medium'), 'unloaded')
})

t.test('a retiring pool counts until it is closed', async t => {
  const service = await startTestService({ TTS_VOICE_MEMORY_BYTES: await oneVoiceBudget(), TTS_WORKERS_PER_VOICE: '1', TTS_MAX_CONCURRENT_INFERENCES: '1' },
    ['en_US-probe-medium', 'en_US-proberyan-medium'])
  t.teardown(() => service.stop())
  const pools = service.deps.pools
  const slot = await pools.gate.acquire()
  const busy = postTts(service.url, { text: LONG })
  await eventually('the first request holds its voice', async () => await pending(service) === 1)
  // Removing the voice's files retires its pool; its request still finishes.
  await rm(join(service.voiceDir, 'en_US-probe-medium.onnx'))
  await eventually('the pool retires', () => pools.state('en_US-probe-medium') === 'retiring')
  const newcomer = postTts(service.url, { text: 'Hi.', voice: 'en_US-proberyan-medium' })
  await eventually('the newcomer is admitted', async () => await pending(service) === 2)
  t.equal(pools.state('en_US-proberyan-medium'), 'unloaded', 'no room while the retiring pool holds its memory')
  t.ok(pools.usedBytes > 0, 'the retiring pool is counted')
  slot()
  t.equal((await busy).status, 200)
  t.equal((await newcomer).status, 200)
  const closed = logIndex(service, 'voice unloaded', 'en_US-probe-medium')
  const loaded = logIndex(service, 'voice loaded', 'en_US-proberyan-medium')
  t.ok(closed >= 0 && closed < loaded, 'the new voice loaded only after the retiring pool closed')
})

t.test('a request waiting for room gives up when its time is up (504)', async t => {
  const service = await startTestService({ TTS_VOICE_MEMORY_BYTES: await oneVoiceBudget(), TTS_WORKERS_PER_VOICE: '1', TTS_TIMEOUT_SECONDS: '1' },
    ['en_US-probe-medium', 'en_US-proberyan-medium'])
  t.teardown(() => service.stop())
  // A lease on the default voice keeps it busy, as a long request would.
  const lease = await service.deps.pools.acquire(service.deps.registry.get('en_US-probe-medium') as NonNullable<ReturnType<typeof service.deps.registry.get>>)
  t.teardown(lease.release)
  const newcomer = await postTts(service.url, { text: 'Hi.', voice: 'en_US-proberyan-medium' })
  t.equal(newcomer.status, 504)
  t.same(newcomer.json, { error: 'TTS request timed out', code: 'ERR_TIMEOUT' })
  t.equal(service.deps.pools.state('en_US-probe-medium'), 'loaded', 'the busy voice was never evicted')
  t.equal(service.deps.pools.state('en_US-proberyan-medium'), 'unloaded')
})

t.test('concurrent first requests for 8 cold voices are all answered', async t => {
  const names = Array.from({ length: 8 }, (_, i) => `en_US-fleet${i + 1}-medium`)
  for (const cap of ['64', '3']) {
    t.test(`TTS_MAX_LOADED_VOICES=${cap}`, async t => {
      const service = await startTestService({ TTS_WORKERS_PER_VOICE: '1', TTS_MAX_LOADED_VOICES: cap }, ['en_US-probe-medium'])
      t.teardown(() => service.stop())
      await installCopies(service, names)
      const replies = await Promise.all(names.map(voice => postTts(service.url, { text: 'Hello there. Second sentence.', voice })))
      t.same(replies.map(reply => reply.status), names.map(() => 200))
      t.ok(replies.every(reply => reply.body.length > 44), 'each carries audio')
      t.ok(service.deps.pools.loadedCount <= Number(cap))
      for (const voice of names) t.equal(service.logs.filter(line => line.msg === 'voice loaded' && line.voice === voice).length >= 1, true, `${voice} loaded`)
    })
  }
})

t.test('running inferences never exceed TTS_MAX_CONCURRENT_INFERENCES across voices', async t => {
  const service = await startTestService({ TTS_WORKERS_PER_VOICE: '2', TTS_MAX_CONCURRENT_INFERENCES: '2' },
    ['en_US-probe-medium', 'en_GB-probemulti-medium', 'en_US-proberyan-medium'])
  t.teardown(() => service.stop())
  const voices = ['en_US-probe-medium', 'en_GB-probemulti-medium', 'en_US-proberyan-medium']
  const replies = await Promise.all(voices.flatMap(voice => [1, 2].map(() => postTts(service.url, { text: LONG, voice }))))
  t.same(replies.map(reply => reply.status), replies.map(() => 200))
  const gate = service.deps.pools.gate
  // Six workers could run six sentences at once; the gate held them to two.
  t.equal(gate.peak, 2, 'the limit was reached and never exceeded')
  t.equal(gate.running, 0)
  t.equal(gate.waiting, 0)
})

t.test('/metrics and /voices show loads, evictions, memory and each voice\'s state', async t => {
  const service = await startTestService({ TTS_MAX_LOADED_VOICES: '1', TTS_WORKERS_PER_VOICE: '1', TTS_VOICE_MEMORY_BYTES: '500000000' }, ['en_US-probe-medium', 'en_GB-probemulti-medium'])
  t.teardown(() => service.stop())
  t.equal((await postTts(service.url, { text: 'Hi.', voice: 'en_GB-probemulti-medium' })).status, 200)
  const text = (await request(service.url + '/metrics')).body.toString()
  const value = (series: string): number | undefined => {
    const line = text.split('\n').find(l => l.startsWith(series + ' '))
    return line === undefined ? undefined : Number(line.slice(series.length + 1))
  }
  t.equal(value('chorus_voice_loads_total{voice="en_US-probe-medium"}'), 1)
  t.equal(value('chorus_voice_loads_total{voice="en_GB-probemulti-medium"}'), 1)
  t.equal(value('chorus_voice_evictions_total{voice="en_US-probe-medium",reason="count"}'), 1)
  t.equal(value('chorus_voice_load_seconds_count{voice="en_GB-probemulti-medium"}'), 1)
  const memory = value('chorus_voice_memory_bytes{voice="en_GB-probemulti-medium"}') ?? 0
  t.ok(memory > 0, 'the loaded voice\'s memory')
  t.equal(value('chorus_voice_memory_bytes{voice="en_US-probe-medium"}'), undefined, 'the closed voice holds nothing')
  t.equal(value('chorus_voice_memory_budget_bytes'), 500_000_000)
  t.equal(value('chorus_voice_memory_used_bytes'), memory)
  t.equal(value('chorus_inferences_running'), 0)

  const details = (await request(service.url + '/voices')).json.details as Array<{ name: string, state: string, memory_bytes: number | null, loaded: boolean }>
  const byName = new Map(details.map(detail => [detail.name, detail]))
  t.match(byName.get('en_GB-probemulti-medium'), { state: 'loaded', loaded: true, memory_bytes: memory })
  t.match(byName.get('en_US-probe-medium'), { state: 'unloaded', loaded: false, memory_bytes: null })
  t.match(byName.get('en_US-espeak-low'), { state: 'builtin', builtin: true, loaded: false })
  t.same((await request(service.url + '/health')).json.voice_memory, { budget_bytes: 500_000_000, used_bytes: memory })
})

t.test('a voice takes no more inference slots than it has workers', async t => {
  const service = await startTestService({ TTS_WORKERS_PER_VOICE: '1', TTS_MAX_CONCURRENT_INFERENCES: '2' }, ['en_US-probe-medium'])
  t.teardown(() => service.stop())
  const gate = service.deps.pools.gate
  t.equal((await postTts(service.url, { text: LONG })).status, 200)
  t.equal(gate.peak, 1, 'one worker, one slot: the other stays free for other voices')
})
