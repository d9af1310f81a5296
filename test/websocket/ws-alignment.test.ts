// The WebSocket's alignment from word timing, against a real service: on a
// bench voice (durations) each piece's first audio message carries its
// characters, in order, spelling the text sent (a later piece's after the
// space between them), times on one timeline from the context's first
// audio, words' characters inside the words' spans; with
// sync_alignment every audio message carries an alignment; on a voice with
// no timing alignment is null and the context stops asking for timing, so
// that the phrase cache serves its repeated pieces.

import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import WebSocket from 'ws'
import { loadServiceConfig } from '../../src/service/config.js'
import { startService } from '../../src/service/server.js'
import { createLogger } from '../../src/shared/logger.js'
import { BENCH_VOICES, testVoiceDir } from '../helpers/voices.js'

const TIMED = 'en_US-bench-x_low'
const UNTIMED = 'en_US-probe-medium'
const voiceDir = await mkdtemp(join(tmpdir(), 'chorus-ws-alignment-'))
for (const ext of ['.onnx', '.onnx.json']) {
  await cp(join(BENCH_VOICES, TIMED + ext), join(voiceDir, TIMED + ext))
  await cp(join(await testVoiceDir(), UNTIMED + ext), join(voiceDir, UNTIMED + ext))
}
const service = await startService(loadServiceConfig({
  TTS_HTTP_HOST: '127.0.0.1', TTS_HTTP_PORT: '0', TTS_VOICE_DIR: voiceDir, TTS_DEFAULT_VOICE: TIMED,
  TTS_WORKERS_PER_VOICE: '1', TTS_TIMEOUT_SECONDS: '3600', TTS_CACHE_BYTES: '8000000'
}), createLogger('chorus-tts', 'error'))
t.teardown(async () => { await service.close(); await rm(voiceDir, { recursive: true, force: true }) })
const base = service.url.replace('http://', 'ws://')

type Message = Record<string, any>

async function exchange (path: string, texts: string[]): Promise<Message[]> {
  const ws = new WebSocket(`${base}${path}`)
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
  const replies: Message[] = []
  ws.on('message', data => replies.push(JSON.parse(String(data))))
  const closed = new Promise(resolve => ws.once('close', resolve))
  ws.send(JSON.stringify({ text: ' ', voice_settings: { noise_scale: 0, noise_w: 0 } }))
  for (const text of texts) ws.send(JSON.stringify({ text, flush: true }))
  ws.send(JSON.stringify({ text: '' }))
  await closed
  return replies
}

const audio = (messages: Message[]): Message[] => messages.filter(m => typeof m.audio === 'string')

t.test('each piece\'s first audio message carries its characters, times from the context\'s first audio', async t => {
  const pieces = ['Hello there, it costs $5. ', 'Second piece of text! ']
  const messages = audio(await exchange(`/v1/text-to-speech/${TIMED}/stream-input?output_format=pcm_16000`, pieces))
  const aligned = messages.filter(m => m.alignment !== null)
  t.equal(aligned.length, 2, 'one alignment a piece')
  t.equal(messages[0].alignment, aligned[0].alignment, 'on the piece\'s first audio message')
  for (const [i, m] of aligned.entries()) {
    const { chars, charStartTimesMs, charDurationsMs } = m.alignment
    t.equal(chars.join(''), (i > 0 ? ' ' : '') + pieces[i].trim(), `piece ${i}: the characters spell the text sent`)
    t.same(m.normalizedAlignment, m.alignment)
    t.equal(charStartTimesMs.length, chars.length)
    t.equal(charDurationsMs.length, chars.length)
    t.ok(charStartTimesMs.every((s: number, k: number) => k === 0 || s >= charStartTimesMs[k - 1]), `piece ${i}: times in order`)
  }
  const [first, second] = aligned.map(m => m.alignment)
  t.ok(first.charStartTimesMs[0] < 400, `the first piece from the context's start (${first.charStartTimesMs[0]} ms)`)
  const firstEnd = first.charStartTimesMs.at(-1) + first.charDurationsMs.at(-1)
  const firstSeconds = messages.slice(0, messages.indexOf(aligned[1])).reduce((sum, m) => sum + Buffer.from(m.audio, 'base64').length / 2 / 16000, 0)
  t.ok(second.charStartTimesMs[0] >= firstEnd, `the second piece after the first (${second.charStartTimesMs[0]} ≥ ${firstEnd} ms)`)
  t.ok(Math.abs(second.charStartTimesMs[0] - firstSeconds * 1000) < 400, `where the first piece's audio ended (${second.charStartTimesMs[0]} vs ${Math.round(firstSeconds * 1000)} ms)`)
  const seconds = messages.reduce((sum, m) => sum + Buffer.from(m.audio, 'base64').length / 2 / 16000, 0)
  t.ok(second.charStartTimesMs.at(-1) + second.charDurationsMs.at(-1) <= seconds * 1000 + 1, 'within the audio')
})

t.test('sync_alignment: every audio message carries an alignment', async t => {
  const messages = audio(await exchange(`/v1/text-to-speech/${TIMED}/stream-input?output_format=pcm_16000&sync_alignment=true`, ['A longer sentence, so that it comes in several audio messages. ']))
  t.ok(messages.length > 1, `${messages.length} audio messages`)
  t.ok(messages.every(m => m.alignment !== null && Array.isArray(m.alignment.chars)), 'none is null')
  t.equal(messages.flatMap(m => m.alignment.chars).join(''), 'A longer sentence, so that it comes in several audio messages.')
})

async function cacheHits (): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`)).text()
  return Number(/^chorus_cache_hits_total (\d+)/m.exec(text)?.[1])
}

t.test('a voice without timing: null, and the phrase cache serves a repeated piece', async t => {
  const before = await cacheHits()
  const messages = audio(await exchange(`/v1/text-to-speech/${UNTIMED}/stream-input?output_format=pcm_16000`, ['Same words. ', 'Same words. ', 'Same words. ']))
  t.ok(messages.length > 0 && messages.every(m => m.alignment === null), 'no alignment')
  t.equal(await cacheHits() - before, 1, 'asked without timing after the first, the third piece came from the cache (the second filled it)')
})
