// `chorus bench fleet --quick` on the generated probe voice: every figure is
// measured (the mix in-process, the memory in `chorus serve` processes of
// their own) and written out; bad flags are exit code 2.

import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runBenchCommand } from '../../bench/cli.js'
import type { FleetResults } from '../../bench/results.js'
import { testVoiceDir } from '../helpers/voices.js'
import { captureIo } from './helpers.js'

const root = await mkdtemp(join(tmpdir(), 'chorus-fleet-'))
t.teardown(() => rm(root, { recursive: true, force: true }))

t.test('bad flags name the flag', async t => {
  const cases: Array<[string[], string]> = [
    [['fleet', '--voice', 'en_US-a-medium'], 'Expected a folder of Piper voices for --voices but received undefined (undefined)'],
    [['fleet', '--voices', root, '--voice', 'en_US-a-medium', '--count', '2'], 'Expected an integer from 3 to 64 for --count but received "2" (string)'],
    [['fleet', '--voices', root, '--voice', 'en_US-a-medium'], `Expected a voice with a model in ${root} (there is no ${join(root, 'en_US-a-medium.onnx')}) for --voice`]
  ]
  for (const [argv, message] of cases) {
    const io = captureIo()
    t.equal(await runBenchCommand(argv, io), 2, argv.join(' '))
    t.match(io.err(), message)
  }
})

t.test('--quick measures the four figures, each against its reference', async t => {
  const dir = join(root, 'quick')
  // The longest request timeout, as test services have (helpers/service.ts):
  // beside a busy CPU a voice load took over the default 60 s and answered 504.
  const io = captureIo({ TTS_WORKERS_PER_VOICE: '1', TTS_TIMEOUT_SECONDS: '3600' })
  const code = await runBenchCommand(['fleet', '--voices', await testVoiceDir(), '--voice', 'en_US-probe-medium', '--count', '3', '--clients', '2', '--cycles', '4', '--quick', '--out', dir], io)
  t.equal(code, 0, io.err())
  const results = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as FleetResults
  t.match(results, { kind: 'fleet', voice: 'en_US-probe-medium', voiceCount: 3, clients: 2, workersPerVoice: 1 })
  t.same(results.figures.map(f => f.id), ['fleet-throughput', 'fleet-p99', 'voice-rss', 'churn-rss'])
  for (const f of results.figures) t.ok(f.ratio !== null && f.ratio > 0 && f.met !== null, `${f.id} measured: ${f.measured}`)
  t.equal(results.info.find(i => i.figure === 'RSS added by each further voice')?.value.split(', ').length, 3, 'three further voices measured')
  t.match(results.info.find(i => i.figure === 'voices loaded when the idle RSS was read')?.value, 'en_US-probe_3-medium, en_US-probe_1-medium')
  t.match(io.out(), /fleet-throughput|round-robin mix vs one voice/)
  t.match(await readFile(join(dir, 'report.md'), 'utf8'), '| figure | measured | ratio | target | result |')
  const churnLog = await readFile(join(dir, 'service-churn.log'), 'utf8')
  t.equal(churnLog.split('\n').filter(line => line.includes('"msg":"voice loaded"')).length, 4, 'every cycle loaded a voice')
  await t.rejects(stat(join(dir, 'voice-copies')), 'the copies are removed')
})
