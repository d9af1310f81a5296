// The conversation and fairness benchmarks against a real service on
// 127.0.0.1 (the generated test voices): each transport speaks a reply, with
// and without the key a keyed service asks for, and short runs of both
// commands write results whose structure (levels, transports, phases,
// counts, the keys file) is what the docs say. No figure is asserted.

import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import type { ConversationResults } from '../../bench/conversation/conversation.js'
import type { FairnessResults } from '../../bench/conversation/fairness.js'
import { httpStreamTransport } from '../../bench/conversation/http-transport.js'
import { replyTimeline } from '../../bench/conversation/replies.js'
import { writeTenantKeys } from '../../bench/conversation/tenant-keys.js'
import { TRANSPORTS } from '../../bench/conversation/transport.js'
import { streamInputTransport } from '../../bench/conversation/websocket-transport.js'
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
  const transports = [httpStreamTransport(service.url, 600_000), streamInputTransport(service.url, audio.sample_rate, 600_000)]
  t.same(transports.map(transport => transport.name), TRANSPORTS)
  for (const transport of transports) {
    const name = transport.name
    try {
      const start = performance.now()
      const pieces = await transport.speak(reply, start, { voice: VOICE, apiKey: keys.keys.get('bot-a') })
      t.ok(pieces.length > 0, `${name}: audio came back`)
      t.ok(pieces.every(p => p.durationMs > 0 && p.askedMs >= start && p.askedMs <= p.arrivedMs), `${name}: each piece has a duration and was asked for before it arrived`)
      t.ok(pieces.every((p, i) => i === 0 || p.askedMs >= pieces[i - 1].askedMs), `${name}: asked in play order`)
      // HTTP knows each piece's sentence; stream-input's is read from the alignments the service sends (websocket-transport.ts).
      const askedTimes = new Set(pieces.map(p => p.askedMs)).size
      t.equal(askedTimes, reply.sentences.length, `${name}: each sentence's audio is put to when its text was sent`)
      await t.rejects(transport.speak(reply, performance.now(), { voice: VOICE }), { message: /answered 401: .*ERR_UNAUTHORIZED/ }, `${name}: no key, 401`)
      await t.rejects(transport.speak(reply, performance.now(), { voice: VOICE, apiKey: 'not-a-key-of-this-file' }), { message: /answered 401/ }, `${name}: a wrong key, 401`)
    } finally {
      transport.close()
    }
  }
})

t.test('bench conversation: a level per transport, each on its own service, the transport in results.json and the report', async t => {
  const { dir, results, out } = await bench('conversation', 'conversation', ['--bots', '1', '--no-ceiling'])
  const conversation = results as ConversationResults
  t.same(conversation.config.transports, ['http', 'websocket'], 'both transports by default')
  t.same(conversation.levels.map(l => [l.scheduler, l.transport, l.bots]), [['deadline', 'http', 1], ['deadline', 'websocket', 1]])
  for (const level of conversation.levels) {
    t.equal(level.errors, 0, `${level.transport}: no failed reply (${level.firstError ?? ''})`)
    t.ok(level.replies >= 1, `${level.transport}: ${level.replies} replies`)
    t.ok(level.firstAudioP95Ms !== null && level.audioSecondsPerSecond > 0, `${level.transport}: first audio and audio heard are measured`)
  }
  t.same(conversation.capacity.map(c => [c.scheduler, c.transport]), [['deadline', 'http'], ['deadline', 'websocket']], 'a capacity per scheduler and transport')
  t.match(out, /\| deadline \| http +\| +1 \|/)
  t.match(out, /\| deadline \| websocket \| +1 \|/)
  t.match(out, /Capacity with deadline over websocket: \d+ bot/)
  t.equal(await readFile(join(dir, 'report.md'), 'utf8'), out)

  const { results: only } = await bench('conversation', 'websocket-only', ['--bots', '1', '--no-ceiling', '--transport', 'websocket'])
  t.same((only as ConversationResults).levels.map(l => l.transport), ['websocket'], '--transport picks one')
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
