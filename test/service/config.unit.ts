// The TTS service's settings go through the shared reader: the same trimming
// rule, number forms and messages as every other command.

import { availableParallelism, hostname } from 'node:os'
import t from 'tap'
import { loadServiceConfig } from '../../src/service/config.js'

// A budget given, so no test reads the machine's cgroup files.
const load = (env: Record<string, string>) => loadServiceConfig({ TTS_VOICE_MEMORY_BYTES: '1000000', ...env })

t.test('values are trimmed; a variable blank after trimming is unset', async t => {
  const config = load({ TTS_HTTP_PORT: ' 9001\n', TTS_HTTP_HOST: ' 127.0.0.1 ', TTS_TIMEOUT_SECONDS: ' 2.5 ', TTS_DEFAULT_VOICE: ' \t' })
  t.equal(config.port, 9001)
  t.equal(config.host, '127.0.0.1')
  t.equal(config.timeoutMs, 2500)
  t.equal(config.defaultVoice, 'en_US-lessac-medium')
  t.equal(config.defaultVoiceExplicit, false, 'a blank TTS_DEFAULT_VOICE is not an explicit choice')
})

t.test('decimal forms only; errors name the variable and quote the trimmed value', async t => {
  t.throws(() => load({ TTS_MAX_PENDING: ' 0x10 ' }),
    { code: 'ERR_CONFIG', message: 'Expected an integer from 1 to 100000 for TTS_MAX_PENDING but received "0x10" (string)' })
  for (const raw of ['0x10', '1e1', '.5', 'Infinity']) {
    t.throws(() => load({ TTS_TIMEOUT_SECONDS: raw }),
      { code: 'ERR_CONFIG', message: `Expected a number from 0.1 to 3600 for TTS_TIMEOUT_SECONDS but received ${JSON.stringify(raw)} (string)` })
  }
  t.throws(() => load({ CHORUS_INSTALL_BUNDLED: 'yes' }),
    { code: 'ERR_CONFIG', message: 'Expected one of 0, 1 for CHORUS_INSTALL_BUNDLED but received "yes" (string)' })
  t.equal(load({ CHORUS_INSTALL_BUNDLED: ' 0 ' }).installBundled, false)
})

t.test('TTS_ONNX_ENCODER_THREADS: two by default on two cores or more, never fewer than TTS_ONNX_THREADS', async t => {
  const cores = availableParallelism()
  t.equal(load({}).onnxEncoderThreads, Math.min(2, cores))
  t.equal(load({ TTS_ONNX_THREADS: '4' }).onnxEncoderThreads, 4)
  t.equal(load({ TTS_ONNX_ENCODER_THREADS: '1' }).onnxEncoderThreads, 1)
  t.throws(() => load({ TTS_ONNX_ENCODER_THREADS: '0' }),
    { code: 'ERR_CONFIG', message: 'Expected an integer from 1 to 256 for TTS_ONNX_ENCODER_THREADS but received "0" (string)' })
})

t.test('TTS_ONNX_LIFT_CONV: on by default, 0 turns it off, anything else is refused', async t => {
  t.equal(load({}).liftConvolutions, true)
  t.equal(load({ TTS_ONNX_LIFT_CONV: '0' }).liftConvolutions, false)
  t.throws(() => load({ TTS_ONNX_LIFT_CONV: 'yes' }),
    { code: 'ERR_CONFIG', message: 'Expected one of 0, 1 for TTS_ONNX_LIFT_CONV but received "yes" (string)' })
})

t.test('TTS_ONNX_BAND_ATTENTION: off by default, 1 turns it on', async t => {
  t.equal(load({}).bandAttention, false)
  t.equal(load({ TTS_ONNX_BAND_ATTENTION: '1' }).bandAttention, true)
  t.equal(load({ TTS_ONNX_BAND_ATTENTION: '0' }).bandAttention, false)
  t.throws(() => load({ TTS_ONNX_BAND_ATTENTION: 'no' }),
    { code: 'ERR_CONFIG', message: 'Expected one of 0, 1 for TTS_ONNX_BAND_ATTENTION but received "no" (string)' })
})

t.test('TTS_STREAM_FIRST_RUN_PHONEMES: off (0) by default; a count cuts a stream\'s first sentence there', async t => {
  t.equal(load({}).chunking.firstRunPhonemes, 0)
  t.equal(load({ TTS_STREAM_FIRST_RUN_PHONEMES: '120' }).chunking.firstRunPhonemes, 120)
  t.throws(() => load({ TTS_STREAM_FIRST_RUN_PHONEMES: '-1' }),
    { code: 'ERR_CONFIG', message: 'Expected an integer from 0 to 100000 for TTS_STREAM_FIRST_RUN_PHONEMES but received "-1" (string)' })
})

t.test('TTS_SCHEDULER: deadline by default with growing stream chunks; fifo keeps the old order and chunks', async t => {
  const config = load({})
  t.equal(config.scheduler, 'deadline')
  t.equal(config.chunking.growStreamChunks, true)
  t.equal(config.chunking.streamChunkGrowth, 2)
  t.equal(load({ TTS_STREAM_CHUNK_GROWTH: '1' }).chunking.streamChunkGrowth, 1)
  t.throws(() => load({ TTS_STREAM_CHUNK_GROWTH: '0' }),
    { code: 'ERR_CONFIG', message: 'Expected an integer from 1 to 8 for TTS_STREAM_CHUNK_GROWTH but received "0" (string)' })
  t.equal(config.streamJitterMs, 200)
  const fifo = load({ TTS_SCHEDULER: ' fifo ', TTS_STREAM_JITTER_MS: '0' })
  t.equal(fifo.scheduler, 'fifo')
  t.equal(fifo.chunking.growStreamChunks, false)
  t.equal(fifo.streamJitterMs, 0)
  t.throws(() => load({ TTS_SCHEDULER: 'edf' }),
    { code: 'ERR_CONFIG', message: 'Expected one of deadline, fifo for TTS_SCHEDULER but received "edf" (string)' })
  t.throws(() => load({ TTS_STREAM_JITTER_MS: '-1' }),
    { code: 'ERR_CONFIG', message: 'Expected an integer from 0 to 60000 for TTS_STREAM_JITTER_MS but received "-1" (string)' })
})

t.test('TTS_DECODER_CUT: the flow on its own by default; decoder puts it in the encoder run, flow in the chunks', async t => {
  t.equal(load({}).chunking.cut, 'staged')
  t.equal(load({ TTS_DECODER_CUT: 'decoder' }).chunking.cut, 'decoder')
  t.equal(load({ TTS_DECODER_CUT: ' flow ' }).chunking.cut, 'flow')
  t.throws(() => load({ TTS_DECODER_CUT: 'auto' }),
    { code: 'ERR_CONFIG', message: 'Expected one of decoder, flow, staged for TTS_DECODER_CUT but received "auto" (string)' })
})

t.test('TTS_DRAIN_GRACE_SECONDS: above TTS_TIMEOUT_SECONDS by default; TTS_REPLICA_NAME: the host name by default, header-safe', async t => {
  t.equal(load({}).drainGraceMs, 70_000, '60 s of request timeout, then 10 s more')
  t.equal(load({ TTS_TIMEOUT_SECONDS: '5' }).drainGraceMs, 15_000)
  t.equal(load({ TTS_DRAIN_GRACE_SECONDS: '2.5' }).drainGraceMs, 2500)
  t.throws(() => load({ TTS_DRAIN_GRACE_SECONDS: '-1' }),
    { code: 'ERR_CONFIG', message: 'Expected a number from 0 to 3600 for TTS_DRAIN_GRACE_SECONDS but received "-1" (string)' })
  t.equal(load({}).replicaName, hostname())
  t.equal(load({ TTS_REPLICA_NAME: ' tts-2 ' }).replicaName, 'tts-2')
  t.throws(() => load({ TTS_REPLICA_NAME: 'tts 2' }),
    { code: 'ERR_CONFIG', message: 'Expected 1 to 253 printable ASCII characters without spaces for TTS_REPLICA_NAME but received "tts 2" (string)' })
})
