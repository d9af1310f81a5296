// Damaged voice files never take the service down: each kind of damage gets
// a clear error for its own requests, /voices says why, the good voices keep
// serving, and a repaired voice is retried once its files change.

import { renameSync } from 'node:fs'
import { copyFile, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { buildForeignModel } from '../../scripts/lib/probe-model.js'
import { eventually } from '../helpers/hang-guard.js'
import { postTts, request, startTestService } from '../helpers/service.js'
import { testModel, testVoiceDir } from '../helpers/voices.js'

const GOOD = 'en_US-vits-medium'
const source = await testVoiceDir()
const goodModel = await readFile(await testModel(GOOD))
const lessacConfig = await readFile(join(source, `${GOOD}.onnx.json`))
const vctkConfig = await readFile(join(source, 'en_GB-vitsmulti-medium.onnx.json'))

/** Each damaged voice: its model bytes and config. */
const damaged: Record<string, { model: Uint8Array, config: Uint8Array }> = {
  'en_US-truncated-medium': { model: goodModel.subarray(0, Math.floor(goodModel.length / 2)), config: lessacConfig },
  'en_US-random-medium': { model: Uint8Array.from({ length: 4096 }, (_, i) => (i * 2654435761) >>> 24), config: lessacConfig },
  'en_US-empty-medium': { model: new Uint8Array(0), config: lessacConfig },
  'en_US-foreign-medium': { model: buildForeignModel(), config: lessacConfig },
  // A multi-speaker config beside a model without a speaker input.
  'en_GB-mismatch-medium': { model: goodModel, config: vctkConfig }
}

// One worker per voice: a second worker per voice doubled each load's
// thread starts without testing anything more. The service's timeout is the
// helper's (the longest allowed): loads beside a busy CPU took longer than
// the default 60 s, and every request then answered 504.
const ENV = { TTS_WORKERS_PER_VOICE: '1' }

t.test('every kind of damaged voice is refused with its reason, under concurrent requests; the rest serve', async t => {
  const service = await startTestService(ENV, [GOOD, 'en_US-probe-medium'])
  t.teardown(() => service.stop())
  for (const [name, files] of Object.entries(damaged)) {
    await writeFile(join(service.voiceDir, `${name}.onnx`), files.model)
    await writeFile(join(service.voiceDir, `${name}.onnx.json`), files.config)
  }
  // Wait for the rescan to see them (the empty one is left out by the scan itself).
  const unseen = async (): Promise<string[]> => {
    const listing = (await request(`${service.url}/voices`)).json
    const seen = [...listing.voices, ...listing.broken.map((b: { name: string }) => b.name)]
    return Object.keys(damaged).filter(name => !seen.includes(name))
  }
  await eventually('the rescan to see every damaged voice', async () => (await unseen()).length === 0, 100)

  const names = [...Object.keys(damaged), GOOD, 'en_US-probe-medium']
  const replies = await Promise.all(names.flatMap(voice => [1, 2, 3].map(async i =>
    ({ voice, reply: await postTts(service.url, { text: `Request ${i} for this voice.`, voice }) }))))
  for (const { voice, reply } of replies) {
    if (voice in damaged) {
      t.equal(reply.status, 500, `${voice}: 500`)
      t.equal(reply.json?.code, 'ERR_VOICE_BROKEN', `${voice}: typed`)
      t.match(reply.json?.error, new RegExp(`^Voice ${voice} cannot be loaded: .+`), `${voice}: says why`)
      t.notMatch(reply.json?.error, service.voiceDir, 'without the server\'s folders')
    } else {
      t.equal(reply.status, 200, `${voice} still serves`)
    }
  }
  t.equal((await request(`${service.url}/health`)).status, 200, 'the process is alive')

  const listing = (await request(`${service.url}/voices`)).json
  const details = listing.details as Array<{ name: string, broken?: string, mode: string | null, split_cut: string | null, encoder_shared: boolean | null }>
  const broken = listing.broken as Array<{ name: string, reason: string }>
  for (const name of Object.keys(damaged)) {
    t.type(broken.find(b => b.name === name)?.reason, 'string', `/voices lists ${name} as broken, with the reason`)
  }
  t.type(details.find(d => d.name === 'en_US-foreign-medium')?.broken, 'string', 'an installed voice that failed to load says why in its details')
  t.equal(details.find(d => d.name === GOOD)?.mode, 'split', 'a VITS-shaped voice runs split')
  t.equal(details.find(d => d.name === GOOD)?.split_cut, 'decoder', 'and says which part runs in chunks (it has no flow)')
  t.equal(details.find(d => d.name === 'en_US-probe-medium')?.mode, 'whole', 'another graph runs whole')
  t.equal(details.find(d => d.name === 'en_US-probe-medium')?.split_cut, null)
  t.equal(details.find(d => d.name === 'en_US-probe-medium')?.encoder_shared, false, 'a whole voice has no shared encoder')
  t.equal(details.find(d => d.name === 'en_US-foreign-medium')?.encoder_shared, null, 'nor a voice that is not loaded')
  t.notOk(service.logs.some(line => line.msg === 'unexpected error'), 'no failure was a bug')

  // Repair one: it is retried when its files change.
  const repaired = 'en_US-truncated-medium'
  const brokenVersion = service.deps.registry.get(repaired)?.version
  await copyFile(await testModel(GOOD), join(service.voiceDir, `${repaired}.onnx`))
  await eventually('the scan to see the repaired file', () => service.deps.registry.get(repaired)?.version !== brokenVersion && service.deps.registry.get(repaired)?.modelBytes === goodModel.length)
  t.equal((await postTts(service.url, { text: 'Fixed now.', voice: repaired })).status, 200, 'the repaired voice serves')
})

t.test('a model replaced under requests: a load that reads the new file, requests on the old pool, requests after the change', async t => {
  // Each interleaving forced rather than hoped for, with its own outcome:
  // audio from the pool a request holds, or a clear ERR_VOICE_BROKEN.
  const service = await startTestService(ENV, [GOOD])
  t.teardown(() => service.stop())
  const { registry, pools } = service.deps
  const target = join(service.voiceDir, `${GOOD}.onnx`)
  const truncated = goodModel.subarray(0, 5000)
  // Replaced as operators replace files (written beside, then renamed over):
  // writing in place would show the scan an empty file for a moment, and an
  // empty file is no voice at all (404), not a broken one.
  const replace = async (bytes: Uint8Array): Promise<void> => {
    const before = registry.get(GOOD)?.version
    await writeFile(`${target}.partial`, bytes)
    await rename(`${target}.partial`, target)
    // A file too damaged to read as a model leaves the registry (listed as broken).
    await eventually('the scan to see the new file', () => registry.get(GOOD)?.version !== before)
  }
  const speak = async (text: string): Promise<{ status: number, code?: string }> => {
    const reply = await postTts(service.url, { text, voice: GOOD })
    return { status: reply.status, code: reply.json?.code }
  }

  // 1. The file changes after the scan and before the load reads it: the
  // load starts in the same turn as the rename, from the scan's entry.
  const scanned = registry.get(GOOD)
  t.ok(scanned !== undefined && !pools.loaded().has(GOOD), 'scanned, not loaded')
  await writeFile(`${target}.partial`, truncated)
  renameSync(`${target}.partial`, target)
  const lease = await pools.acquire(scanned!).then(() => 'loaded', (error: unknown) => error)
  t.match(lease, { code: 'ERR_VOICE_BROKEN', message: new RegExp(`^Voice ${GOOD} cannot be loaded: .+`) }, 'the load of the damaged file is a clear error')
  await eventually('the scan to see the damaged file', () => registry.get(GOOD)?.version !== scanned!.version)
  t.same(await speak('After the change.'), { status: 500, code: 'ERR_VOICE_BROKEN' }, 'so is a request once the scan saw it')

  // 2. Requests hold the loaded pool, waiting for an inference slot, when
  // the file is damaged: they finish on the pool they hold; requests after
  // the change get the clear error.
  await replace(goodModel)
  t.same(await speak('Loaded again.'), { status: 200 }, 'a whole file serves again')
  const gate = pools.gate
  const slots = await Promise.all(Array.from({ length: gate.limit }, async () => await gate.acquire()))
  const holding = [1, 2, 3].map(async i => await speak(`Holding ${i}.`))
  await eventually('the three requests to wait for a slot', () => service.deps.speech.pending === 3 && gate.waiting > 0)
  await replace(truncated)
  // Sent once the scan saw the change; their load may wait for room while the old pool is held.
  const after = [1, 2, 3].map(async i => await speak(`After ${i}.`))
  for (const release of slots) release()
  t.same(await Promise.all(holding), Array(3).fill({ status: 200 }), 'requests holding the old pool: its audio')
  t.same(await Promise.all(after), Array(3).fill({ status: 500, code: 'ERR_VOICE_BROKEN' }), 'requests after the change: the clear error')

  // 3. Whole again: served, and the process never went down.
  await replace(goodModel)
  t.same(await speak('Settled.'), { status: 200 }, 'serves once the file is whole again')
  t.equal((await request(`${service.url}/health`)).status, 200, 'the process is alive')
  t.notOk(service.logs.some(line => line.msg === 'unexpected error'), 'no failure was a bug')
})
