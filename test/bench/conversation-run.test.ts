// The conversation and fairness benchmarks against a real service on
// 127.0.0.1 (the generated test voices): each transport speaks a reply, with
// and without the key a keyed service asks for; the whole-reply transport's
// audio is put to when its text was sent and first audio measured from
// there; and short runs of both commands write results whose structure
// (levels, transports, scenarios, phases, counts, the keys file, the
// ceilings) is what the docs say. No figure is asserted.

import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import type { ConversationResults } from '../../bench/conversation/conversation.js'
import type { FairnessResults } from '../../bench/conversation/fairness.js'
import { speakReply } from '../../bench/conversation/bot.js'
import { httpStreamTransport } from '../../bench/conversation/http-transport.js'
import { replyText, wholeReplyTransport } from '../../bench/conversation/reply-transport.js'
import { replyTimeline, ReplySource } from '../../bench/conversation/replies.js'
import { writeTenantKeys } from '../../bench/conversation/tenant-keys.js'
import { TRANSPORTS, type SpeechTransport } from '../../bench/conversation/transport.js'
import type { AudioPiece } from '../../bench/conversation/player.js'
import { BenchClient } from '../../bench/client.js'
import { streamInputTransport } from '../../bench/conversation/websocket-transport.js'
import { cartesiaTransport, deepgramTransport } from '../../bench/conversation/vendor-transports.js'
import { runBenchCommand } from '../../bench/cli.js'
import { startInProcess } from '../../bench/service.js'
import { testVoiceDir } from '../helpers/voices.js'
import { captureIo } from './helpers.js'

const VOICE = 'en_US-probe-medium'
const voices = await testVoiceDir()
const root = await mkdtemp(join(tmpdir(), 'chorus-conversation-'))
t.teardown(() => rm(root, { recursive: true, force: true }))

/** Flags that keep a run to a few seconds: one-sentence replies, one short level. */
const SHORT = ['--voices', voices, '--voice', VOICE, '--quick', '--duration', '1', '--sentences', '1', '--pause', '0', '--schedulers', 'deadline']

/** A busy machine must not fail a reply: the services get a long request timeout. */
const ENV = { TTS_TIMEOUT_SECONDS: '600' }

async function bench (command: string, name: string, argv: string[], env: Record<string, string> = {}): Promise<{ dir: string, results: unknown, out: string }> {
  const dir = join(root, name)
  const io = captureIo({ ...ENV, ...env })
  const code = await runBenchCommand([command, ...SHORT, '--out', dir, ...argv], io)
  if (code !== 0) throw new Error(`chorus bench ${command} exited ${code}: ${io.err()}`)
  return { dir, results: JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')), out: io.out() }
}

t.test('each transport speaks a reply to a keyed service with its tenant\'s key, and is refused without one', async t => {
  const keys = await writeTenantKeys(root, ['bot-a'])
  const service = await startInProcess({ voiceDir: voices, defaultVoice: VOICE, env: ENV, logFile: join(root, 'keyed.log'), overrides: { TTS_API_KEYS_FILE: keys.file } })
  t.teardown(() => service.close())
  const { audio } = JSON.parse(await readFile(join(voices, `${VOICE}.onnx.json`), 'utf8')) as { audio: { sample_rate: number } }
  const reply = replyTimeline('Hello there. How are you today?', 40)
  const transports = [httpStreamTransport(service.url, 600_000), streamInputTransport(service.url, audio.sample_rate, 600_000), wholeReplyTransport(service.url, 600_000)]
  t.same(transports.map(transport => transport.name), TRANSPORTS)
  for (const transport of transports) {
    const name = transport.name
    try {
      const start = performance.now()
      const pieces = await transport.speak(reply, start, { voice: VOICE, apiKey: keys.keys.get('bot-a') })
      t.ok(pieces.length > 0, `${name}: audio came back`)
      t.ok(pieces.every(p => p.durationMs > 0 && p.askedMs >= start && p.askedMs <= p.arrivedMs), `${name}: each piece has a duration and was asked for before it arrived`)
      t.ok(pieces.every((p, i) => i === 0 || p.askedMs >= pieces[i - 1].askedMs), `${name}: asked in play order`)
      // HTTP knows each piece's sentence; stream-input's is read from the alignments the service sends (websocket-transport.ts);
      // a whole reply's sentences were all sent with its one request.
      const askedTimes = new Set(pieces.map(p => p.askedMs)).size
      t.equal(askedTimes, name === 'reply' ? 1 : reply.sentences.length, `${name}: each sentence's audio is put to when its text was sent`)
      await t.rejects(transport.speak(reply, performance.now(), { voice: VOICE }), { message: /answered 401: .*ERR_UNAUTHORIZED/ }, `${name}: no key, 401`)
      await t.rejects(transport.speak(reply, performance.now(), { voice: VOICE, apiKey: 'not-a-key-of-this-file' }), { message: /answered 401/ }, `${name}: a wrong key, 401`)
    } finally {
      transport.close()
    }
  }
})

t.test('Cartesia\'s and Deepgram\'s sockets, when named, speak a reply with the tenant\'s key and are refused without one', async t => {
  const keys = await writeTenantKeys(root, ['bot-v'])
  const service = await startInProcess({ voiceDir: voices, defaultVoice: VOICE, env: ENV, logFile: join(root, 'vendors.log'), overrides: { TTS_API_KEYS_FILE: keys.file } })
  t.teardown(() => service.close())
  const { audio } = JSON.parse(await readFile(join(voices, `${VOICE}.onnx.json`), 'utf8')) as { audio: { sample_rate: number } }
  const reply = replyTimeline('Hello there. How are you today?', 40)
  for (const transport of [cartesiaTransport(service.url, audio.sample_rate, 600_000), deepgramTransport(service.url, audio.sample_rate, 600_000)]) {
    const name = transport.name
    try {
      const start = performance.now()
      const pieces = await transport.speak(reply, start, { voice: VOICE, apiKey: keys.keys.get('bot-v') })
      t.ok(pieces.length > 0, `${name}: audio came back`)
      t.ok(pieces.every(p => p.durationMs > 0 && p.askedMs >= start && p.askedMs <= p.arrivedMs), `${name}: each piece has a duration and was asked for before it arrived`)
      await t.rejects(transport.speak(reply, performance.now(), { voice: VOICE }), { message: /answered 401: .*ERR_UNAUTHORIZED/ }, `${name}: no key, 401`)
    } finally {
      transport.close()
    }
  }
})

/** A real transport whose last reply's audio and start the test can read. */
function recording (transport: SpeechTransport): SpeechTransport & { last?: { pieces: AudioPiece[], startMs: number } } {
  const spy: SpeechTransport & { last?: { pieces: AudioPiece[], startMs: number } } = {
    ...transport,
    speak: async (reply, startMs, speaker) => {
      const pieces = await transport.speak(reply, startMs, speaker)
      spy.last = { pieces, startMs }
      return pieces
    }
  }
  return spy
}

t.test('the whole-reply transport: one request for the reply, its audio asked for when it was sent, first audio from there', async t => {
  const service = await startInProcess({ voiceDir: voices, defaultVoice: VOICE, env: ENV, logFile: join(root, 'reply.log') })
  t.teardown(() => service.close())
  const client = new BenchClient(service.url, 600_000)
  const reply = recording(wholeReplyTransport(service.url, 600_000))
  const perSentence = recording(httpStreamTransport(service.url, 600_000))
  t.teardown(() => { client.close(); reply.close(); perSentence.close() })
  const source = new ReplySource(3, { min: 3, max: 3 }, { min: 40, max: 40 })
  for (const transport of [reply, perSentence]) {
    const result = await speakReply({ transport, speaker: { voice: VOICE }, replies: source, jitterMs: 50 }, true)
    t.equal(result.error, undefined, `${transport.name}: spoken`)
    const last = transport.last
    if (last === undefined) return
    const first = last.pieces[0]
    if (transport.name === 'reply') {
      const sentAt = last.pieces.map(p => p.askedMs)
      t.equal(new Set(sentAt).size, 1, 'reply: every piece asked for at one moment, the request\'s')
      t.ok(sentAt[0] >= last.startMs && sentAt[0] <= first.arrivedMs, 'reply: sent at the reply\'s start, before its audio came')
      t.equal(result.firstAudioMs, first.arrivedMs - last.startMs, 'reply: first audio from the reply\'s start, when its whole text was sent')
    } else {
      t.ok(result.firstAudioMs < first.arrivedMs - last.startMs, 'http: first audio from the first sentence\'s end, after the reply\'s start')
    }
    t.equal(result.audioMs, last.pieces.reduce((sum, p) => sum + p.durationMs, 0), `${transport.name}: every piece heard`)
  }
  // The streamed reply's audio is the whole answer's: nothing lost or counted twice.
  const told = replyTimeline('Hello there. How are you today? Fine, thanks.', 1000)
  const text = replyText(told.sentences)
  const whole = await client.synthesize({ text, voice: VOICE, repeated: false, body: JSON.stringify({ text, voice: VOICE }) })
  const streamed = await reply.speak(told, performance.now(), { voice: VOICE })
  t.equal(Math.round(streamed.reduce((sum, p) => sum + p.durationMs, 0)), Math.round(whole.audioSeconds * 1000), 'one stream carries the whole reply')
})

t.test('bench conversation: every transport in both scenarios by default, each transport on its own service, in results.json and the report', async t => {
  const { dir, results, out } = await bench('conversation', 'conversation', ['--bots', '1', '--no-ceiling'])
  const conversation = results as ConversationResults
  t.same(conversation.config.transports, ['http', 'websocket', 'reply'], 'every transport by default')
  t.same(conversation.config.scenarios, ['crowd', 'spread'], 'both scenarios by default')
  const pairs = TRANSPORTS.flatMap(transport => ['crowd', 'spread'].map(scenario => ['deadline', transport, scenario, 1]))
  t.same(conversation.levels.map(l => [l.scheduler, l.transport, l.scenario, l.bots]), pairs)
  for (const level of conversation.levels) {
    const name = `${level.transport}, ${level.scenario}`
    t.equal(level.errors, 0, `${name}: no failed reply (${level.firstError ?? ''})`)
    t.ok(level.replies >= 1, `${name}: ${level.replies} replies`)
    t.ok(level.firstAudioP95Ms !== null && level.audioSecondsPerSecond > 0, `${name}: first audio and audio heard are measured`)
  }
  t.same(conversation.capacity.map(c => [c.scheduler, c.transport, c.scenario]), pairs.map(p => p.slice(0, 3)), 'a capacity per scheduler, transport and scenario')
  t.ok(conversation.capacity.every(c => c.ceilingRatio === null && (c.half === null || c.half.p95Ratio === null)), 'no ceiling, no ratio')
  t.same([conversation.ceiling, conversation.bareFirstSentence], [null, null])
  for (const [, transport, scenario] of pairs) t.match(out, new RegExp(`\\| deadline \\| ${String(transport)} \\| ${String(scenario)} \\| 1 \\|`))
  t.match(out, /crowd: every bot answers each line within 200 ms/)
  t.match(out, /the whole reply as one POST \/tts\?stream=1 when the reply started \(reply\)/)
  t.equal(await readFile(join(dir, 'report.md'), 'utf8'), out)
})

t.test('bench conversation: one transport and scenario picked, against the bare ceilings measured first', async t => {
  const { results, out } = await bench('conversation', 'reply-crowd', ['--bots', '1', '--transport', 'reply', '--scenarios', 'crowd', '--ceiling-seconds', '0.5', '--ceiling-repeats', '1'])
  const conversation = results as ConversationResults
  t.same(conversation.levels.map(l => [l.transport, l.scenario]), [['reply', 'crowd']], '--transport and --scenarios pick')
  const { ceiling, bareFirstSentence } = conversation
  t.ok(ceiling !== null && ceiling.audioSecondsPerSecond > 0, 'the throughput ceiling')
  t.ok(bareFirstSentence !== null && bareFirstSentence.ms > 0 && bareFirstSentence.sentences === 5, 'a first sentence alone, five of them with --quick')
  const [capacity] = conversation.capacity
  if (capacity.bots > 0 && ceiling !== null && bareFirstSentence !== null) {
    t.equal(capacity.ceilingRatio, capacity.bots / ceiling.audioSecondsPerSecond, 'bots over the ceiling\'s audio s/s')
    t.equal(capacity.half?.p95Ratio, (capacity.half?.firstAudioP95Ms ?? Number.NaN) / bareFirstSentence.ms, 'first audio over the bare first sentence')
  }
  t.match(out, /Bare ONNX Runtime, a reply's first sentence whole on one worker: [\d.]+ ms \(median of 5 sentences/)
})

t.test('bench fairness: a key per tenant over HTTP, alone and shared phases', async t => {
  // At info the service logs at start-up how many keys it holds.
  const { dir, results, out } = await bench('fairness', 'fairness', ['--busy-bots', '2', '--quiet-tenants', '2', '--rounds', '1'], { CHORUS_LOG_LEVEL: 'info' })
  const fairness = results as FairnessResults
  t.same(fairness.rounds.map(r => [r.scheduler, r.phase, r.quiet.bots, r.busy?.bots ?? null]), [['deadline', 'alone', 2, null], ['deadline', 'shared', 2, 2]])
  for (const round of fairness.rounds) {
    t.equal(round.quiet.errors + (round.busy?.errors ?? 0), 0, `${round.phase}: no failed reply (${round.quiet.firstError ?? round.busy?.firstError ?? ''})`)
    t.ok(round.quiet.replies >= 2 && (round.busy === null || round.busy.replies >= 2), `${round.phase}: every bot spoke`)
  }
  const file = JSON.parse(await readFile(join(dir, 'keys.json'), 'utf8')) as { keys: Record<string, { name: string, role: string, weight: number, quotas?: unknown }> }
  t.same(Object.values(file.keys).map(k => k.name).sort(), ['busy', 'quiet-1', 'quiet-2'], 'one key per tenant')
  t.ok(Object.values(file.keys).every(k => k.role === 'user' && k.weight === 1 && k.quotas === undefined), 'role user, equal weights, no quotas')
  const log = (await readFile(join(dir, 'service.log'), 'utf8')).split('\n').filter(line => line !== '').map(line => JSON.parse(line) as { msg?: string, apiKeys?: unknown })
  // With keys on, a request without a valid key is a 401, a failed reply: none failed above.
  t.same(log.filter(line => line.msg === 'listening').map(line => line.apiKeys), [3], 'the service required the three keys')
  t.match(out, /each tenant an API key of equal weight/)
})
