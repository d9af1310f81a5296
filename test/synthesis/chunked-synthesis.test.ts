// Bounded work per run, through the service: a long sentence is decoded in
// chunks spread over the workers and equals the whole graph's answer (up to
// float rounding: conv-lift.ts); a streamed one arrives chunk by chunk at
// the right level; text past the phoneme cap is cut and still answered. That the built-in voice never
// holds up the event loop is measured in test/leak/event-loop.leak.ts.
// A service start (its voice load, two worker threads) is most of this
// file's cost: tests whose settings agree share one.

import { join } from 'node:path'
import t from 'tap'
import { floatToPcm16, PiperVoice, resolveSynthesisConfig } from '../../src/engine/index.js'
import { postTts, request, startTestService, type TestService } from '../helpers/service.js'
import { unless } from '../helpers/test-tools.js'
import { BENCH_VOICES, NO_BENCH_VOICES, testModel } from '../helpers/voices.js'

const VOICE = 'en_US-vits-medium'
const LONG = 'This single sentence has no inner full stop and keeps going for quite a while so that its latent is cut into many decoder chunks'
/** One sentence, no inner full stop, of 3.6 s on the x_low bench voice:
 * 226 frames, so 4 chunks of 64 frames or less over the two workers, and
 * about a third of LONG's decoding (its 10 chunks each decode their margins too). */
const BENCH_SENTENCE = 'This sentence runs on with no full stop inside it'
const QUIET = { noise_scale: 0, noise_w: 0 }

function pcmOf (wav: Buffer): Int16Array {
  const data = wav.subarray(44)
  return new Int16Array(data.buffer, data.byteOffset, data.length / 2)
}

/** Equal to the whole graph's PCM but for float rounding: the service runs
 * a split voice's convolutions lifted to 2-D (conv-lift.ts), which agree with
 * the whole graph to ~3e-7 (test/engine/decoder-split.test.ts has chunking
 * sample-exact). A chunk in the wrong place differs by far more. */
function sameUpToRounding (actual: Int16Array, expected: Int16Array): boolean {
  return actual.length === expected.length && actual.every((v, i) => Math.abs(v - expected[i]) <= 1)
}

function rmsDb (pcm: Int16Array): number {
  let sum = 0
  for (const v of pcm) sum += v * v
  return 10 * Math.log10(sum / pcm.length)
}

/** The whole graph's PCM for `text` on `model`, at noise 0: one load and one
 * run per file, shared by the tests that compare the service's answer with it. */
const wholePcm = new Map<string, Promise<Int16Array>>()
async function wholeGraphPcm (model: string, text: string): Promise<Int16Array> {
  const key = `${model}\0${text}`
  let pcm = wholePcm.get(key)
  if (pcm === undefined) {
    pcm = (async () => {
      const whole = await PiperVoice.load(model, { split: false })
      try {
        const [phonemes] = whole.phonemize(text)
        const settings = resolveSynthesisConfig({ noiseScale: 0, noiseW: 0 }, whole.config)
        return floatToPcm16(await whole.infer(whole.phonemeIds(phonemes).ids, settings))
      } finally {
        whole.close()
      }
    })()
    wholePcm.set(key, pcm)
  }
  return await pcm
}

/** The 'sentences decoded' line logged after the first `from` lines: the request's own on a shared service. */
function decodedSpread (service: TestService, from: number): Array<{ chunks: number, workers: number }> {
  return service.logs.slice(from).find(line => line.msg === 'sentences decoded')?.spread as Array<{ chunks: number, workers: number }>
}

function stopAtFileEnd (service: TestService): void {
  t.teardown(() => service.stop())
}

/** The one service of the vits voice in 16-frame chunks (a streamed answer's
 * first of 8), started by the first test that asks and stopped at the file's end. */
let chunkedVits: Promise<TestService> | undefined
async function chunkedVitsService (): Promise<TestService> {
  const first = chunkedVits === undefined
  chunkedVits ??= startTestService({ TTS_DECODER_CHUNK_FRAMES: '16', TTS_STREAM_FIRST_CHUNK_FRAMES: '8' }, [VOICE])
  const service = await chunkedVits
  if (first) stopAtFileEnd(service)
  return service
}

t.test('a long sentence: chunks on both workers, the whole graph\'s answer', async t => {
  const service = await chunkedVitsService()
  const from = service.logs.length
  const reply = await postTts(service.url, { text: LONG, voice: VOICE, ...QUIET })
  t.equal(reply.status, 200)

  t.ok(sameUpToRounding(pcmOf(reply.body), await wholeGraphPcm(await testModel(VOICE), LONG)), 'the same PCM as one run of the whole graph, up to rounding')

  const spread = decodedSpread(service, from)
  t.ok(spread[0].chunks > 2, `decoded in ${spread[0].chunks} chunks`)
  t.equal(spread[0].workers, 2, 'by both workers')
})


for (const cut of ['staged', 'decoder', 'flow'] as const) {
  t.test(`a bench voice cut at the ${cut} (TTS_DECODER_CUT): chunks on both workers, the whole graph's answer`,
    unless(NO_BENCH_VOICES), async t => {
      const voice = 'en_US-bench-x_low'
      const service = await startTestService({
        TTS_VOICE_DIR: BENCH_VOICES, TTS_DEFAULT_VOICE: voice, CHORUS_INSTALL_BUNDLED: '0', TTS_DECODER_CHUNK_FRAMES: '64',
        ...(cut !== 'staged' ? { TTS_DECODER_CUT: cut } : {})
      }, [])
      // Stopped at the file's end, not the test's: while one cut's service
      // runs, the next one's load takes the encoder session it shares.
      stopAtFileEnd(service)
      const reply = await postTts(service.url, { text: BENCH_SENTENCE, voice, ...QUIET })
      t.equal(reply.status, 200)
      const details = (await request(`${service.url}/voices`)).json.details as Array<{ name: string, split_cut: string | null, encoder_shared: boolean | null }>
      t.equal(details.find(d => d.name === voice)?.split_cut, cut, `/voices says the ${cut} cut runs`)
      t.equal(details.find(d => d.name === voice)?.encoder_shared, true, '/voices says its encoder is the shared one')

      t.ok(sameUpToRounding(pcmOf(reply.body), await wholeGraphPcm(join(BENCH_VOICES, `${voice}.onnx`), BENCH_SENTENCE)),
        'the same PCM as one run of the whole graph, up to rounding')
      const spread = decodedSpread(service, 0)
      t.ok(spread[0].chunks > 2, `decoded in ${spread[0].chunks} chunks`)
      t.equal(spread[0].workers, 2, 'by both workers, each given what it needs with the latent')
      if (cut !== 'staged') return
      // Streamed, each chunk runs its own window of the flow: the same
      // waveform, up to the streaming gain, which changes only between chunks.
      const plain = pcmOf(reply.body)
      const streamed = pcmOf((await postTts(service.url, { text: BENCH_SENTENCE, voice, ...QUIET, stream: true })).body)
      t.equal(streamed.length, plain.length, 'streamed: every sample arrives')
      const loud = [...plain.keys()].filter(i => Math.abs(plain[i]) >= 64)
      const agree = loud.filter(i => Math.sign(plain[i]) === Math.sign(streamed[i])).length
      t.ok(agree / loud.length > 0.999, `streamed: in order, ${agree} of ${loud.length} samples agree in sign`)
    })
}

t.test('streamed: in order, complete, at the non-streamed level, never clipped', async t => {
  const service = await chunkedVitsService()
  const text = `${LONG}. And then a second, shorter one.`
  const plain = pcmOf((await postTts(service.url, { text, voice: VOICE, ...QUIET })).body)
  const streamed = pcmOf((await postTts(service.url, { text, voice: VOICE, ...QUIET, stream: true })).body)
  t.equal(streamed.length, plain.length, 'every sample arrives')
  // Same waveform up to a gain that changes only between chunks: the signs agree.
  let agree = 0
  let nonzero = 0
  for (let i = 0; i < plain.length; i++) {
    if (Math.abs(plain[i]) < 64) continue
    nonzero++
    if (Math.sign(plain[i]) === Math.sign(streamed[i])) agree++
  }
  t.ok(agree / nonzero > 0.999, `in order: ${agree} of ${nonzero} samples agree in sign`)
  const difference = Math.abs(rmsDb(streamed) - rmsDb(plain))
  t.ok(difference < 1, `level within 1 dB (${difference.toFixed(2)} dB)`)
  const clipped = streamed.filter(v => Math.abs(v) >= 32767).length
  t.ok(clipped / streamed.length < 0.001, `clipped samples under 0.1 % (${clipped})`)
})

t.test('a sentence past the phoneme cap is cut at word boundaries and answered', async t => {
  // One worker: the test is about the cut, not the spread.
  const service = await startTestService({ TTS_MAX_PHONEMES_PER_RUN: '60', TTS_WORKERS_PER_VOICE: '1' }, [VOICE])
  t.teardown(() => service.stop())
  const reply = await postTts(service.url, { text: 'hello '.repeat(120).trim(), voice: VOICE })
  t.equal(reply.status, 200)
  t.ok(pcmOf(reply.body).length > 0)
})
