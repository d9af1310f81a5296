// Damaged voice files never take the service down: each kind of damage gets
// a clear error for its own requests, /voices says why, the good voices keep
// serving, and a repaired voice is retried once its files change.

import { copyFile, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { buildForeignModel } from '../../scripts/lib/probe-model.js'
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
  // Wait for the rescan to see them (the empty one is left out by the scan
  // itself); a busy machine may take a while, so the wait is long and its
  // outcome asserted rather than assumed.
  let unseen: string[] = Object.keys(damaged)
  for (let i = 0; i < 4800 && unseen.length > 0; i++) {
    const listing = (await request(`${service.url}/voices`)).json
    const seen = [...listing.voices, ...listing.broken.map((b: { name: string }) => b.name)]
    unseen = Object.keys(damaged).filter(name => !seen.includes(name))
    if (unseen.length > 0) await new Promise(resolve => setTimeout(resolve, 100))
  }
  t.same(unseen, [], 'the rescan saw every damaged voice')

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
  await copyFile(await testModel(GOOD), join(service.voiceDir, `${repaired}.onnx`))
  let status = 0
  for (let i = 0; i < 4800 && status !== 200; i++) {
    await new Promise(resolve => setTimeout(resolve, 100))
    status = (await postTts(service.url, { text: 'Fixed now.', voice: repaired })).status
  }
  t.equal(status, 200, 'the repaired voice serves')
})

t.test('a model replaced while requests load it: every answer is audio or a clear error, and the process lives', async t => {
  const service = await startTestService(ENV, [GOOD])
  t.teardown(() => service.stop())
  const target = join(service.voiceDir, `${GOOD}.onnx`)
  const requests: Array<Promise<{ status: number, code?: string }>> = []
  // Replaced as operators replace files (written beside, then renamed over):
  // writing in place would show the scan an empty file for a moment, and an
  // empty file is no voice at all (404), not a broken one.
  const replace = async (bytes: Uint8Array) => {
    await writeFile(`${target}.partial`, bytes)
    await rename(`${target}.partial`, target)
  }
  for (let round = 0; round < 6; round++) {
    await replace(round % 2 === 0 ? goodModel.subarray(0, 5000) : goodModel)
    for (let i = 0; i < 3; i++) {
      requests.push(postTts(service.url, { text: `Round ${round}, request ${i}.`, voice: GOOD }).then(r => ({ status: r.status, code: r.json?.code })))
    }
    await new Promise(resolve => setTimeout(resolve, 150))
  }
  for (const { status, code } of await Promise.all(requests)) {
    t.ok(status === 200 || (status === 500 && code === 'ERR_VOICE_BROKEN'), `answered ${status} ${code ?? ''}`)
  }
  await replace(goodModel)
  let status = 0
  for (let i = 0; i < 4800 && status !== 200; i++) {
    await new Promise(resolve => setTimeout(resolve, 100))
    status = (await postTts(service.url, { text: 'Settled.', voice: GOOD })).status
  }
  t.equal(status, 200, 'serves once the file is whole again')
})
