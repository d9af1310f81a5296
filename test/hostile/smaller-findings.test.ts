// Issue 27's finding 7, the probes that no other test reproduces (the rest
// are listed in findings.ts). The probes not fixed yet (num_symbols) run, and their
// deciding assertions are marked todo with what is missing: they report
// "not ok # TODO" without failing the suite, and "ok # TODO" once fixed (then
// drop the todo).

import { copyFile, readFile, rename, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ConfigError } from '../../src/errors.js'
import { loadServiceConfig } from '../../src/service/config.js'
import { eventually } from '../helpers/hang-guard.js'
import { postTts, request, startTestService } from '../helpers/service.js'
import { testVoiceDir } from '../helpers/voices.js'

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
  const todo = 'not fixed on main: num_symbols is not compared with the model\'s input'
  const source = await testVoiceDir()
  const name = 'en_US-badsymbols-medium'
  const config = JSON.parse(await readFile(join(source, 'en_US-probe-medium.onnx.json'), 'utf8')) as { num_symbols: number }
  config.num_symbols = 100_000
  // The config first (alone it is no voice), then the model at once: the
  // scan never sees a half-present voice, which it would list as broken.
  await writeFile(join(service.voiceDir, `${name}.onnx.json`), JSON.stringify(config))
  const staged = join(tmpdir(), `${name}-${process.pid}.onnx`)
  await copyFile(join(source, 'en_US-probe-medium.onnx'), staged)
  await rename(staged, join(service.voiceDir, `${name}.onnx`))
  const listed = async (): Promise<{ voices: string[], broken: Array<{ name: string }> }> => (await request(`${service.url}/voices`)).json
  await eventually('the scan to see the voice', async () => {
    const voices = await listed()
    return voices.voices.includes(name) || voices.broken.some(voice => voice.name === name)
  })
  const reply = await postTts(service.url, { text: 'Hello there.', voice: name })
  t.not(reply.status, 200, 'not served', { todo })
  t.ok((await listed()).broken.some(voice => voice.name === name), 'listed as broken', { todo })
})

t.test('the port is bound before the default voice has loaded', async t => {
  const listening = service.logs.findIndex(line => line.msg === 'listening')
  const loaded = service.logs.findIndex(line => line.msg === 'voice loaded' && line.voice === 'en_US-probe-medium')
  t.ok(listening >= 0 && loaded >= 0, 'both happened')
  t.ok(listening < loaded, 'listening came first')
})
