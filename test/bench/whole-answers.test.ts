// `chorus bench mixed` and `chorus bench backlog` (issue 43): their flags
// (defaults, bad values named with the one message format), their texts
// and figures, and short runs of both against a real service on 127.0.0.1
// (the generated test voices) whose results have the structure the docs
// give: the short answer's idle latency measured first, its latency under
// the load over it, with and without an API key. No figure is asserted.

import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runBenchCommand } from '../../bench/cli.js'
import { BenchClient } from '../../bench/client.js'
import { startInProcess } from '../../bench/service.js'
import type { BacklogResults } from '../../bench/whole-answers/backlog.js'
import { parseBacklogConfig, parseMixedConfig } from '../../bench/whole-answers/config.js'
import { wholeFigures, type MixedResults } from '../../bench/whole-answers/mixed.js'
import { maxTextLengthFor, stockPhraseText, wholeItem, WholeTexts } from '../../bench/whole-answers/texts.js'
import { runWholeLoad } from '../../bench/whole-answers/whole-load.js'
import { testVoiceDir } from '../helpers/voices.js'
import { captureIo, sample } from './helpers.js'

const VOICE = 'en_US-probe-medium'
const BASE = ['--voices', 'v', '--voice', 'en_US-a-medium']

t.test('mixed: defaults, and bad values named', async t => {
  const config = parseMixedConfig(BASE)
  if (config === 'help') return t.fail('not help')
  t.same([config.bots, config.transports, config.scenario, config.wholeClients, config.longSentences, config.idleRepeats, config.rampMs, config.durationMs],
    [8, ['http', 'websocket', 'reply'], 'spread', 2, { min: 10, max: 40 }, 5, 12_000, 60_000])
  const quick = parseMixedConfig([...BASE, '--quick', '--scenario', 'crowd', '--transport', 'reply'])
  if (quick !== 'help') t.same([quick.idleRepeats, quick.durationMs, quick.scenario, quick.transports], [3, 5000, 'crowd', ['reply']])
  t.throws(() => parseMixedConfig([...BASE, '--scenario', 'burst']), { name: 'ConfigError', message: 'Expected one of crowd, spread for --scenario but received "burst" (string)' })
  t.throws(() => parseMixedConfig([...BASE, '--whole-clients', '0']), { message: 'Expected an integer from 1 to 64 for --whole-clients but received "0" (string)' })
  t.throws(() => parseMixedConfig([...BASE, '--long-sentences', '40-10']), { message: /^Expected a number or a range like 20-50 within 1-100 for --long-sentences but received "40-10"/ })
  t.throws(() => parseMixedConfig([...BASE, '--bots', '2,4']), { message: /for --bots but received "2,4"/ }, 'one count of bots')
  t.throws(() => parseMixedConfig([...BASE, '--transport', 'grpc']), { message: /^Expected transports among http, websocket, reply for --transport/ })
})

t.test('backlog: issue 43\'s probe by default, and bad values named', async t => {
  const config = parseBacklogConfig(BASE)
  if (config === 'help') return t.fail('not help')
  t.same([config.longRequests, config.longSentences, config.idleRepeats, config.delayMs, config.keyModes], [4, 250, 5, 500, ['none', 'one']])
  t.throws(() => parseBacklogConfig([...BASE, '--keys', 'some']), { name: 'ConfigError', message: 'Expected key modes among none, one for --keys but received "some" (string)' })
  t.throws(() => parseBacklogConfig([...BASE, '--long-requests', '0']), { message: 'Expected an integer from 1 to 64 for --long-requests but received "0" (string)' })
  t.throws(() => parseBacklogConfig([...BASE, '--delay', '-1']), { message: 'Expected a number from 0 to 60 for --delay but received "-1" (string)' })
  t.throws(() => parseBacklogConfig(['--voice', 'en_US-a-medium']), { message: /^Expected a folder of Piper voices for --voices/ })
  const io = captureIo()
  t.equal(await runBenchCommand(['backlog', ...BASE, '--bots', '2'], io), 2, 'exit code 2')
  t.match(io.err(), /^chorus bench: Unknown flag --bots for chorus bench backlog/)
  const help = captureIo()
  t.equal(await runBenchCommand(['mixed', '--help'], help), 0)
  t.match(help.out(), /chorus bench backlog --voices DIR --voice NAME/)
})

t.test('texts: the backlog\'s long answers of short phrases, each its own; figures of whole answers', async t => {
  const long = stockPhraseText(250, 0)
  t.equal(long.match(/[.!?](\s|$)/g)?.length, 250, '250 sentences')
  t.ok(long.length <= maxTextLengthFor([]), `within the service's default text limit (${long.length} characters)`)
  t.not(stockPhraseText(250, 1), long, 'each long answer differs')
  t.equal(maxTextLengthFor(['x'.repeat(7000)]), 7000, 'a longer text raises the limit')
  const texts = new WholeTexts(1, { min: 3, max: 3 })
  t.equal(texts.longText().match(/[.!?](\s|$)/g)?.length, 3)
  const figures = wholeFigures([
    { kind: 'short', sample: sample(0, 100) },
    { kind: 'short', sample: sample(0, 300) },
    { kind: 'long', sample: sample(0, 5000) },
    { kind: 'short', sample: sample(0, 9000, { status: 503, error: '503', message: 'busy' }) }
  ], 'short')
  t.same(figures, { requests: 3, errors: 1, firstError: '503: busy', p50Ms: 200, p95Ms: 290 }, 'failed answers counted apart, not in the latency')
})

const voices = await testVoiceDir()
const root = await mkdtemp(join(tmpdir(), 'chorus-whole-'))
t.teardown(() => rm(root, { recursive: true, force: true }))
const ENV = { TTS_TIMEOUT_SECONDS: '600' }

async function bench (command: string, name: string, argv: string[], env: Record<string, string> = {}): Promise<{ dir: string, results: unknown, out: string }> {
  const dir = join(root, name)
  const io = captureIo({ ...ENV, ...env })
  const code = await runBenchCommand([command, '--voices', voices, '--voice', VOICE, '--out', dir, ...argv], io)
  if (code !== 0) throw new Error(`chorus bench ${command} exited ${code}: ${io.err()}`)
  return { dir, results: JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')), out: io.out() }
}

t.test('whole-answer clients: short and long in turn; a client whose answer failed stops', async t => {
  const service = await startInProcess({ voiceDir: voices, defaultVoice: VOICE, env: ENV, logFile: join(root, 'load.log') })
  const client = new BenchClient(service.url, 600_000)
  t.teardown(async () => { client.close(); await service.close() })
  const stop = new AbortController()
  const kinds: string[] = []
  const samples = await runWholeLoad(client, {
    clients: 2,
    next: kind => {
      kinds.push(kind)
      if (kinds.length >= 6) stop.abort()
      return wholeItem(kind === 'short' ? 'Hello there.' : 'Hello there. How are you? Fine.', VOICE)
    },
    stop: stop.signal
  })
  t.same(samples.map(s => s.sample.error), samples.map(() => undefined), 'every answer came')
  t.same(kinds.slice(0, 2).sort(), ['long', 'short'], 'one client starts short, the other long')
  t.ok(samples.length >= 6, `${samples.length} answers`)
  const refused = await runWholeLoad(client, { clients: 3, next: () => wholeItem('Hello.', 'en_US-missing-medium'), stop: new AbortController().signal })
  t.same(refused.map(s => s.sample.status), [400, 400, 400], 'an unknown voice: one refused answer each, then the clients stop')
})

t.test('bench backlog: idle first, then the short answer behind the long ones, without keys and under one key', async t => {
  const { dir, results, out } = await bench('backlog', 'backlog', ['--long-requests', '2', '--long-sentences', '20', '--idle-repeats', '2', '--delay', '0'], { CHORUS_LOG_LEVEL: 'info' })
  const backlog = results as BacklogResults
  t.same(backlog.probes.map(p => p.keys), ['none', 'one'])
  for (const probe of backlog.probes) {
    t.equal(probe.idle.samplesMs.length, 2, `${probe.keys}: two idle requests`)
    t.equal(probe.shortError, null, `${probe.keys}: the short answer came`)
    t.equal(probe.ratio, (probe.shortMs ?? Number.NaN) / probe.idle.medianMs, `${probe.keys}: its latency over the idle median`)
    t.same(probe.long.map(l => [l.status, l.error]), [[200, null], [200, null]], `${probe.keys}: both long answers came`)
    t.ok(probe.longAfterShort >= 0 && probe.longAfterShort <= 2)
  }
  const log = (await readFile(join(dir, 'service.log'), 'utf8')).split('\n').filter(line => line !== '').map(line => JSON.parse(line) as { msg?: string, apiKeys?: unknown })
  t.same(log.filter(line => line.msg === 'listening').map(line => line.apiKeys), ['off', 1], 'the first service without keys, the second with the one key every request carried')
  t.match(out, /\| none \| [\d.]+ \| [\d.]+ \| [\d.]+× \| \d of 2 \|/)
  t.match(out, /Issue 43's target: the short request within 3 × its idle latency/)
})

t.test('bench mixed: streaming bots beside short and long whole answers, the short ones against their idle latency', async t => {
  const { results, out } = await bench('mixed', 'mixed', ['--quick', '--duration', '1', '--bots', '1', '--sentences', '1', '--pause', '0', '--transport', 'reply',
    '--whole-clients', '2', '--long-sentences', '2', '--idle-repeats', '2', '--schedulers', 'deadline'])
  const mixed = results as MixedResults
  t.same(mixed.levels.map(l => [l.scheduler, l.transport, l.scenario]), [['deadline', 'reply', 'spread']])
  const [level] = mixed.levels
  t.equal(level.idleShort.samplesMs.length, 2)
  t.ok(level.short.requests >= 1 && level.long.requests >= 1, `${level.short.requests} short and ${level.long.requests} long answers`)
  t.equal(level.short.errors + level.long.errors + level.bots.errors, 0, `no failure (${level.short.firstError ?? level.long.firstError ?? level.bots.firstError ?? ''})`)
  t.equal(level.shortP50Ratio, (level.short.p50Ms ?? Number.NaN) / level.idleShort.medianMs)
  t.ok(level.bots.replies >= 1, 'the bots spoke')
  t.match(out, /\| deadline \| reply \| [\d.]+ \|/)
})
