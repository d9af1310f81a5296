// The encoder pool: sessions in worker threads give the same bytes as the
// encoders run in-process, interleave without mixing, and fail cleanly.

import t from 'tap'
import { pino } from 'pino'
import { concatBytes, type EncoderFactory } from '../../src/audio/encoder.js'
import { EncoderPool } from '../../src/audio/encoder-pool.js'
import { EncodingError } from '../../src/audio/errors.js'
import { ChorusError, InvalidArgumentError } from '../../src/errors.js'
import { createFlacEncoder } from '../../src/audio/flac.js'
import { createMp3Encoder } from '../../src/audio/mp3.js'
import { createPcmEncoder } from '../../src/audio/pcm.js'
import { tone } from '../helpers/audio-decode.js'

const RATE = 22050
const pool = new EncoderPool(2, pino({ level: 'silent' }))
t.teardown(() => pool.close())

async function viaPool (format: 'flac' | 'wav' | 'mp3' | 'pcm', pcm: Int16Array, parts = 3): Promise<Uint8Array> {
  const session = await pool.open(format, RATE)
  const step = Math.ceil(pcm.length / parts)
  const out: Uint8Array[] = []
  for (let i = 0; i < pcm.length; i += step) out.push(await session.push(pcm.subarray(i, i + step)))
  out.push(await session.finish())
  return concatBytes(out)
}

t.test('a session in a worker gives the same bytes as the encoder in-process', async t => {
  const pcm = tone(300, 1, RATE)
  const local = await createFlacEncoder(RATE)
  const step = Math.ceil(pcm.length / 3)
  const expected = concatBytes([local.push(pcm.subarray(0, step)), local.push(pcm.subarray(step, 2 * step)), local.push(pcm.subarray(2 * step)), local.finish()])
  t.same(await viaPool('flac', pcm), expected)
})

t.test('concurrent sessions do not mix', async t => {
  const tones = [200, 300, 400, 500, 600, 700].map(hz => tone(hz, 0.5, RATE))
  const results = await Promise.all(tones.map(async pcm => await viaPool('wav', pcm, 5)))
  results.forEach((wav, i) => t.same(new Int16Array(wav.slice(44).buffer), tones[i], `session ${i}`))
})

t.test('native codecs on both workers at once (LAME, the resampler): every stream as if alone', async t => {
  const tones = [200, 300, 400, 500, 600, 700].map(hz => tone(hz, 0.6, RATE))
  const alone = async (create: EncoderFactory, pcm: Int16Array): Promise<Uint8Array> => {
    const local = await create(RATE)
    const step = Math.ceil(pcm.length / 4)
    const out: Uint8Array[] = []
    for (let i = 0; i < pcm.length; i += step) out.push(local.push(pcm.subarray(i, i + step)))
    out.push(local.finish())
    return concatBytes(out)
  }
  // Streams start (LAME's set-up rewrites its shared tables) while others encode.
  const [mp3, pcm] = await Promise.all([
    Promise.all(tones.map(async pcm => await viaPool('mp3', pcm, 4))),
    Promise.all(tones.map(async pcm => await viaPool('pcm', pcm, 4)))
  ])
  for (const [i, pcmIn] of tones.entries()) {
    t.same(mp3[i], await alone(createMp3Encoder, pcmIn), `MP3 session ${i}`)
    t.same(pcm[i], await alone(createPcmEncoder, pcmIn), `pcm session ${i}`)
  }
})

t.test('the caller\'s PCM is left intact (the phrase cache keeps it)', async t => {
  const pcm = tone(300, 0.2, RATE)
  const copy = pcm.slice()
  await viaPool('wav', pcm, 1)
  t.same(pcm, copy)
})

t.test('a codec that cannot start rejects the open; the pool goes on', async t => {
  await t.rejects(pool.open('flac', 0), { code: 'ERR_ENCODING' })
  t.ok((await viaPool('flac', tone(300, 0.1, RATE))).length > 0)
})

t.test('a closed session is dropped and cannot be used', async t => {
  const session = await pool.open('mp3', RATE)
  await session.push(tone(300, 0.1, RATE))
  session.close()
  session.close()
  await t.rejects(session.push(tone(300, 0.1, RATE)), { code: 'ERR_ENCODING' })
})

t.test('a worker that dies fails its sessions at once and is replaced', async t => {
  const own = new EncoderPool(1, pino({ level: 'silent' }))
  t.teardown(() => own.close())
  const session = await own.open('wav', RATE)
  // Reach the worker the way a crash would: it stops under the session.
  const [thread] = (own as unknown as { threads: Array<{ worker: { terminate: () => Promise<number> } }> }).threads
  await thread.worker.terminate()
  await t.rejects(session.push(tone(300, 0.1, RATE)), { code: 'ERR_ENCODING', message: /stopped/ })
  const fresh = await own.open('wav', RATE)
  t.ok((await fresh.push(tone(300, 0.1, RATE))).length > 44, 'a new worker serves new sessions')
  await fresh.finish()
})

t.test('a codec\'s error comes back as the same class with the worker\'s stack and its cause', async t => {
  const error = await pool.open('mp3', 0).then(() => undefined, (e: unknown) => e)
  t.type(error, EncodingError)
  // The resampler's kernel refused a rate of 0: the addon's refusal, rebuilt as ours, is the cause.
  t.type((error as Error).cause, InvalidArgumentError)
  t.match((error as Error).cause, { code: 'ERR_INVALID_ARGUMENT', message: /PolyphaseKernel/ })
  t.match((error as Error).stack, /--- thrown in another thread ---\n(.|\n)*(mp3|encoder-worker)\.ts/)
})

t.test('a bug in the encoder worker comes back as the bug, not as ERR_ENCODING', async t => {
  const session = await pool.open('wav', RATE)
  // What no caller of ours sends: a push whose PCM is not samples.
  const thread = (session as unknown as { thread: Parameters<EncoderPool['send']>[0] }).thread
  const error = await pool.send(thread, { op: 'push', ticket: 0, session: session.id, pcm: 42 as unknown as Int16Array }).then(() => undefined, (e: unknown) => e)
  t.type(error, TypeError)
  t.notOk(error instanceof ChorusError)
  t.match((error as Error).stack, /--- thrown in another thread ---\n(.|\n)*\.ts/)
  session.close()
  t.ok((await viaPool('wav', tone(300, 0.1, RATE))).length > 0, 'the pool goes on')
})
