// The port is bound before the default voice loads: /health answers at once,
// readiness reports the default voice loading, and a request that does not
// wait for /ready is answered once the voice has loaded (not refused).

import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import t from 'tap'
import { loadServiceConfig } from '../../src/service/config.js'
import { startService } from '../../src/service/server.js'
import { createLogger } from '../../src/shared/logger.js'
import { checkReadiness } from '../../src/synthesis/readiness.js'
import { eventually } from '../helpers/hang-guard.js'
import { postTts, request } from '../helpers/service.js'
import { testVoiceDir } from '../helpers/voices.js'

const voiceDir = await mkdtemp(join(tmpdir(), 'chorus-start-up-'))
t.teardown(() => rm(voiceDir, { recursive: true, force: true }))
for (const file of ['en_US-probe-medium.onnx', 'en_US-probe-medium.onnx.json']) await cp(join(await testVoiceDir(), file), join(voiceDir, file))

t.test('listening comes first; /health at once; ready once the default voice has loaded', async t => {
  const messages: string[] = []
  const sink = new Writable({
    write (chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') messages.push(JSON.parse(line).msg)
      done()
    }
  })
  const config = loadServiceConfig({ TTS_HTTP_HOST: '127.0.0.1', TTS_HTTP_PORT: '0', TTS_VOICE_DIR: voiceDir, TTS_DEFAULT_VOICE: 'en_US-probe-medium', TTS_WORKERS_PER_VOICE: '1', TTS_TIMEOUT_SECONDS: '3600' })
  const service = await startService(config, createLogger('chorus-tts', 'debug', sink))
  t.teardown(() => service.close())
  // Nothing has run since startService returned but microtasks: a worker
  // thread's load cannot have finished.
  t.equal(service.deps.pools.state('en_US-probe-medium'), 'loading', 'the default voice is loading when the service is up')
  t.same(checkReadiness(service.deps), [{ voice: 'en_US-probe-medium', reason: 'loading' }], '/ready\'s rule: not ready yet')
  t.ok(messages.includes('listening'), 'the port is bound')

  const [health, speech] = await Promise.all([
    request(service.url + '/health'),
    // A client that does not wait for /ready: answered once the voice is in.
    postTts(service.url, { text: 'Hello there.' })
  ])
  t.equal(health.status, 200)
  t.equal(speech.status, 200)
  t.equal(speech.headers.get('content-type'), 'audio/wav')
  await service.defaultVoiceLoaded
  await eventually('/ready answers 200', async () => (await request(service.url + '/ready')).status === 200)
  t.equal((await request(service.url + '/ready')).status, 200)
})
