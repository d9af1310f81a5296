// Voices come and go with their files; broken ones are left out and logged;
// the default-voice rules.

import { copyFile, rm, writeFile, readFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import t from 'tap'
import { holdSlots, postTts, request, startTestService, type TestService } from '../helpers/service.js'
import { testVoiceDir } from '../helpers/voices.js'
import { eventually } from '../helpers/hang-guard.js'

const source = await testVoiceDir()

/** One service over the probe voice, for the tests that only add files
 * beside it (each cleans up or leaves only voices that are left out). */
let probeService: Promise<TestService> | undefined
async function serviceWithProbe (): Promise<TestService> {
  probeService ??= (async () => {
    const service = await startTestService({}, ['en_US-probe-medium'])
    t.teardown(() => service.stop())
    return service
  })()
  return await probeService
}

t.test('dropping a voice in adds it; removing it takes it away, without a restart', async t => {
  const service = await serviceWithProbe()
  const voices = async () => (await request(service.url + '/health')).json.voices as string[]
  t.notOk((await voices()).includes('pt_BR-probe-medium'))
  await copyFile(join(source, 'pt_BR-probe-medium.onnx'), join(service.voiceDir, 'pt_BR-probe-medium.onnx'))
  await copyFile(join(source, 'pt_BR-probe-medium.onnx.json'), join(service.voiceDir, 'pt_BR-probe-medium.onnx.json'))
  await eventually('the new voice', async () => (await voices()).includes('pt_BR-probe-medium'))
  t.equal((await postTts(service.url, { text: 'Olá, tudo bem?', voice: 'pt_BR-probe-medium' })).status, 200)
  t.equal((await request(service.url + '/voices')).json.details.find((v: { name: string }) => v.name === 'pt_BR-probe-medium').loaded, true)

  // Both files go: with one left the voice is half-present, which is a broken voice (500), not an absent one.
  await rm(join(service.voiceDir, 'pt_BR-probe-medium.onnx'))
  await rm(join(service.voiceDir, 'pt_BR-probe-medium.onnx.json'))
  // A scan between the two removals may see it half-present (left out); a later one sees it gone.
  await eventually('the removal', async () => !(await voices()).includes('pt_BR-probe-medium') && !service.deps.registry.leftOut().has('pt_BR-probe-medium'))
  const gone = await postTts(service.url, { text: 'Olá.', voice: 'pt_BR-probe-medium' })
  t.equal(gone.status, 400)
  t.equal(gone.json.error, 'Voice model not found: pt_BR-probe-medium')
  await eventually('the pool to unload', async () => service.deps.pools.state('pt_BR-probe-medium') === 'unloaded')
})

t.test('requests already running on a removed voice finish', async t => {
  const service = await startTestService({}, ['en_US-probe-medium', 'en_US-proberyan-medium'])
  t.teardown(() => service.stop())
  const voice = 'en_US-proberyan-medium'
  const body = { text: 'One. Two. Three. Four. Five.', voice, noise_scale: 0, noise_w: 0 }
  const whole = await postTts(service.url, body)
  t.equal(whole.status, 200)
  // Every inference slot held by the test: the request below holds its
  // voice's pool, but none of its sentences runs until after the removal,
  // however fast the voice (no slow voice has to keep it running).
  const gate = service.deps.pools.gate
  const release = await holdSlots(service)
  t.teardown(release)
  const granted = gate.granted

  // Streamed, the header arrives once the request holds the voice's pool:
  // from then on it is running, and the removal happens under it.
  const events: string[] = []
  let streamed: { status: number, body: Buffer, complete: boolean } | undefined
  const finished = new Promise<void>((resolve, reject) => {
    const req = httpRequest(service.url + '/tts', { method: 'POST', headers: { 'Content-Type': 'application/json' } }, res => {
      const chunks: Buffer[] = []
      res.once('data', () => events.push('running'))
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', () => {})
      res.on('close', () => {
        events.push('finished')
        streamed = { status: res.statusCode ?? 0, body: Buffer.concat(chunks), complete: res.complete }
        resolve()
      })
    })
    req.on('error', reject)
    req.end(JSON.stringify({ ...body, stream: true }))
  })
  await eventually('the request to start', async () => events.includes('running'))
  await rm(join(service.voiceDir, `${voice}.onnx.json`))
  await service.deps.registry.rescan()
  t.notOk((await request(service.url + '/health')).json.voices.includes(voice), 'the voice is gone for new requests')
  t.equal(service.deps.pools.state(voice), 'retiring', 'its pool waits for the running request')
  events.push('removed')
  t.equal(gate.granted, granted, 'none of its sentences ran before the removal')
  release()
  await finished
  t.same(events, ['running', 'removed', 'finished'], 'the request was still running when its voice was removed')
  t.equal(streamed?.status, 200)
  t.equal(streamed?.complete, true, 'the stream ended with its last chunk, not cut')
  t.ok(streamed?.body.subarray(44).equals(whole.body.subarray(44)), 'every sentence arrived')
  await eventually('the pool to unload', async () => service.deps.pools.state(voice) === 'unloaded')
})

t.test('half-present and broken voices are left out, logged once, and crash nothing', async t => {
  const service = await serviceWithProbe()
  const dir = service.voiceDir
  const config = await readFile(join(source, 'en_US-probe-medium.onnx.json'))
  await copyFile(join(source, 'en_US-probe-medium.onnx'), join(dir, 'en_US-onlymodel-medium.onnx'))
  await writeFile(join(dir, 'en_US-onlyconfig-medium.onnx.json'), config)
  await copyFile(join(source, 'en_US-probe-medium.onnx'), join(dir, 'en_US-badjson-medium.onnx'))
  await writeFile(join(dir, 'en_US-badjson-medium.onnx.json'), '{"audio": {')
  await copyFile(join(source, 'en_US-probe-medium.onnx'), join(dir, 'en_US-norate-medium.onnx'))
  await writeFile(join(dir, 'en_US-norate-medium.onnx.json'), JSON.stringify({ ...JSON.parse(String(config)), audio: { sample_rate: -1 } }))
  await writeFile(join(dir, 'en_US-empty-medium.onnx'), '')
  await writeFile(join(dir, 'en_US-empty-medium.onnx.json'), config)
  await copyFile(join(source, 'en_US-probe-medium.onnx'), join(dir, 'not a voice.onnx'))
  await writeFile(join(dir, 'not a voice.onnx.json'), config)
  await service.deps.registry.rescan()
  await service.deps.registry.rescan()
  const health = await request(service.url + '/health')
  t.same(health.json.voices, ['en_US-espeak-low', 'en_US-probe-medium'])
  const leftOut = service.logs.filter(line => line.msg === 'voice left out')
  const reasons = new Map(leftOut.map(line => [line.voice as string, line.reason as string]))
  t.match(reasons.get('en_US-onlymodel-medium'), /en_US-onlymodel-medium\.onnx\.json is missing/)
  t.match(reasons.get('en_US-onlyconfig-medium'), /en_US-onlyconfig-medium\.onnx is missing/)
  t.match(reasons.get('en_US-badjson-medium'), /not valid JSON/)
  t.match(reasons.get('en_US-norate-medium'), /Expected an integer from 8000 to 96000 \(Hz\) for audio\.sample_rate but received -1/)
  t.match(reasons.get('en_US-empty-medium'), /empty/)
  t.match(reasons.get('not a voice'), /not a valid voice name/)
  const distinct = new Set(leftOut.map(line => `${line.voice}: ${line.reason}`))
  t.equal(leftOut.length, distinct.size, 'each reason is logged once, not on every rescan')
  t.equal((await postTts(service.url, { text: 'Still fine.' })).status, 200)
})

t.test('default voice not installed and not configured: the built-in voice speaks', async t => {
  const service = await startTestService({ TTS_DEFAULT_VOICE: '' }, [])
  t.teardown(() => service.stop())
  const health = await request(service.url + '/health')
  t.match(health.json, { default_voice: 'en_US-espeak-low', configured_default_voice: 'en_US-lessac-medium', default_voice_installed: false, voices: ['en_US-espeak-low'] })
  const reply = await postTts(service.url, { text: 'Hello from a fresh machine.' })
  t.equal(reply.status, 200)
  t.ok(reply.body.length > 44 + 22050, 'about a second of speech or more')
  const named = await postTts(service.url, { text: 'Hi.', voice: 'en_US-lessac-medium' })
  t.equal(named.status, 400, 'an explicitly named voice never falls back')
  t.ok(service.logs.some(line => line.msg === 'the default voice is not installed: speaking with the built-in voice'))
})

t.test('default voice set explicitly but not installed: an error until it is installed', async t => {
  const service = await startTestService({ TTS_DEFAULT_VOICE: 'pt_BR-probe-medium' }, ['en_US-probe-medium'])
  t.teardown(() => service.stop())
  const health = await request(service.url + '/health')
  t.match(health.json, { status: 'ok', default_voice: 'pt_BR-probe-medium', default_voice_installed: false })
  const reply = await postTts(service.url, { text: 'Hi.' })
  t.equal(reply.status, 400)
  t.equal(reply.json.error, 'Voice model not found: pt_BR-probe-medium')
  t.ok(service.logs.some(line => line.msg === 'the default voice is not installed: requests without "voice" fail until it is'))
  await copyFile(join(source, 'pt_BR-probe-medium.onnx'), join(service.voiceDir, 'pt_BR-probe-medium.onnx'))
  await copyFile(join(source, 'pt_BR-probe-medium.onnx.json'), join(service.voiceDir, 'pt_BR-probe-medium.onnx.json'))
  await service.deps.registry.rescan()
  t.equal((await postTts(service.url, { text: 'Olá.' })).status, 200)
})
