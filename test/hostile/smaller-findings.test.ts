// Issue 27's finding 7, the probes that no other test reproduces (the rest
// are listed in findings.ts).

import { readFile, rename, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ConfigError } from '../../src/errors.js'
import { loadServiceConfig } from '../../src/service/config.js'
import { eventually } from '../helpers/hang-guard.js'
import { postTts, request, startTestService } from '../helpers/service.js'
import { FIXTURES } from '../helpers/voices.js'
import { buildVitsLikeModel } from '../../scripts/lib/vits-model.js'

t.test('TTS_HTTP_HOST=999.1.1.1: a configuration error naming the variable (exit 2), not a stack at listen', async t => {
  for (const host of ['999.1.1.1', '1.2.3.256', 'http://0.0.0.0']) {
    t.throws(() => loadServiceConfig({ TTS_HTTP_HOST: host }), ConfigError, host)
    t.throws(() => loadServiceConfig({ TTS_HTTP_HOST: host }), { message: /^Expected a host name or IP address for TTS_HTTP_HOST but received/ }, host)
  }
  for (const host of ['0.0.0.0', '127.0.0.1', '::', 'localhost', 'tts.internal']) t.equal(loadServiceConfig({ TTS_HTTP_HOST: host }).host, host)
})

const service = await startTestService()
t.teardown(() => service.stop())

t.test('text of only zero-width characters: 400, not 200 with an empty WAV', async t => {
  const reply = await postTts(service.url, { text: '\u200b\u200c\u200d\ufeff', voice: 'en_US-espeak-low' })
  t.equal(reply.status, 400, 'refused')
  t.equal(reply.json?.code, 'ERR_INVALID_ARGUMENT')
})

t.test('num_symbols that does not match the model: the voice is broken, not served', async t => {
  // A VITS-shaped model (its ids index a 256-row table) under three configs:
  // lessac's own (fits), and two that pass the table.
  const lessac = JSON.parse(await readFile(join(FIXTURES, 'configs/en_US-lessac-medium.onnx.json'), 'utf8')) as Record<string, unknown>
  const ids = lessac.phoneme_id_map as Record<string, number[]>
  const voices: Record<string, Record<string, unknown>> = {
    'en_US-fitsymbols-medium': lessac,
    'en_US-badsymbols-medium': { ...lessac, num_symbols: 100_000 },
    'en_US-badids-medium': { ...lessac, phoneme_id_map: { ...ids, a: [300] } }
  }
  const model = buildVitsLikeModel({ speakerInput: false })
  for (const [name, config] of Object.entries(voices)) {
    // The config first (alone it is no voice), then the model at once: the
    // scan never sees a half-present voice, which it would list as broken.
    await writeFile(join(service.voiceDir, `${name}.onnx.json`), JSON.stringify(config))
    const staged = join(tmpdir(), `${name}-${process.pid}.onnx`)
    await writeFile(staged, model)
    await rename(staged, join(service.voiceDir, `${name}.onnx`))
  }
  const listed = async (): Promise<{ voices: string[], broken: Array<{ name: string, reason: string }> }> => (await request(`${service.url}/voices`)).json
  await eventually('the scan to see the voices', async () => {
    const seen = await listed()
    return Object.keys(voices).every(name => seen.voices.includes(name) || seen.broken.some(voice => voice.name === name))
  })
  t.equal((await postTts(service.url, { text: 'Hello there.', voice: 'en_US-fitsymbols-medium' })).status, 200, 'the config that fits is served')
  const { broken } = await listed()
  const reasons = {
    'en_US-badsymbols-medium': 'Expected at most 256 for num_symbols but received 100000 (number) in en_US-badsymbols-medium.onnx.json (the model\'s phoneme table has 256 rows)',
    'en_US-badids-medium': 'Expected ids below 256 for phoneme_id_map["a"] but received 300 (number) in en_US-badids-medium.onnx.json (the model\'s phoneme table has 256 rows)'
  }
  for (const [name, reason] of Object.entries(reasons)) {
    t.same(broken.find(voice => voice.name === name), { name, reason }, `${name}: listed as broken, its reason without a folder`)
    const reply = await postTts(service.url, { text: 'Hello there.', voice: name })
    t.equal(reply.status, 500, `${name}: not served`)
    t.equal(reply.json?.code, 'ERR_VOICE_BROKEN')
    t.notOk(reply.body.toString().includes(service.voiceDir), 'the answer names no folder')
  }
})

t.test('the port is bound before the default voice has loaded', async t => {
  const listening = service.logs.findIndex(line => line.msg === 'listening')
  const loaded = service.logs.findIndex(line => line.msg === 'voice loaded' && line.voice === 'en_US-probe-medium')
  t.ok(listening >= 0 && loaded >= 0, 'both happened')
  t.ok(listening < loaded, 'listening came first')
})
