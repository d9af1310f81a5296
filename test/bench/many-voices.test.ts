// The many-voices workload: one model under N names, sent round-robin, with
// voice loads and evictions per level read from the service's /metrics.

import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runBenchCommand } from '../../bench/cli.js'
import { parseRunConfig } from '../../bench/config.js'
import type { SweepResults } from '../../bench/results.js'
import { copyName, makeVoiceCopies } from '../../bench/voice-copies.js'
import { Workload } from '../../bench/workload.js'
import { isValidVoiceName } from '../../src/voices/voice-name.js'
import { testVoiceDir } from '../helpers/voices.js'
import { captureIo } from './helpers.js'

const root = await mkdtemp(join(tmpdir(), 'chorus-many-'))
t.teardown(() => rm(root, { recursive: true, force: true }))

t.test('--voices-count needs --voices without --url, and one voice to copy', async t => {
  const cases: Array<[string[], string]> = [
    [['--url', 'http://127.0.0.1:1', '--voice', 'en_US-a-medium', '--voices-count', '4'], 'Expected --voices DIR without --url (the copies are served in-process) for --voices-count but received "4" (string)'],
    [['--voices', 'v', '--voice', 'en_US-a-medium:2,en_GB-b-medium', '--voices-count', '4'], 'Expected one voice name to copy, like en_US-lessac-medium for --voice but received "en_US-a-medium:2,en_GB-b-medium" (string)'],
    [['--voices', 'v', '--voices-count', '4'], 'Expected one voice name to copy, like en_US-lessac-medium for --voice but received undefined (undefined)'],
    [['--voices', 'v', '--voice', 'en_US-a-medium', '--voices-count', '0'], 'Expected an integer from 1 to 64 for --voices-count but received "0" (string)']
  ]
  for (const [argv, message] of cases) {
    const io = captureIo()
    t.equal(await runBenchCommand(argv, io), 2, argv.join(' '))
    t.match(io.err(), message)
  }
  t.match(parseRunConfig(['--voices', 'v', '--voice', 'en_US-a-medium', '--voices-count', '8']), { voiceCopies: 8, voices: [{ name: 'en_US-a-medium', weight: 1 }] })
})

t.test('copies are valid, distinct voice names over the same model', async t => {
  t.equal(copyName('en_US-bench-medium', 3), 'en_US-bench_3-medium')
  t.equal(copyName('de_DE-thorsten-emotional-medium', 1), 'de_DE-thorsten-emotional_1-medium')
  const copies = await makeVoiceCopies(await testVoiceDir(), 'en_US-probe-medium', 3, join(root, 'copies'))
  t.same(copies.names, ['en_US-probe_1-medium', 'en_US-probe_2-medium', 'en_US-probe_3-medium'])
  t.ok(copies.names.every(isValidVoiceName))
  t.same((await readdir(copies.dir)).sort(), copies.names.flatMap(name => [`${name}.onnx`, `${name}.onnx.json`]).sort())
  const source = await stat(join(await testVoiceDir(), 'en_US-probe-medium.onnx'))
  t.equal((await stat(join(copies.dir, 'en_US-probe_2-medium.onnx'))).size, source.size)
  await copies.remove()
  await t.rejects(stat(copies.dir), 'removed after the run')
})

t.test('round-robin takes the voices in turn', async t => {
  const voices = ['en_US-a-medium', 'en_US-b-medium', 'en_US-c-medium'].map(name => ({ name, weight: 1 }))
  const workload = new Workload({ texts: { kind: 'corpus' }, seed: 1, voices, multiSpeaker: new Set(), synthesis: {}, stream: false, repeatRatio: 0, roundRobin: true })
  t.same(workload.take(7).map(item => item.voice), ['a', 'b', 'c', 'a', 'b', 'c', 'a'].map(x => `en_US-${x}-medium`))
})

t.test('a sweep over 4 copies with room for 2 reports loads and evictions per level', async t => {
  const dir = join(root, 'sweep')
  // The longest request timeouts, the service's and the harness client's, as
  // test services have (helpers/service.ts): beside a busy CPU, loads took
  // over the default 60 s and requests failed.
  const io = captureIo({ TTS_MAX_LOADED_VOICES: '2', TTS_WORKERS_PER_VOICE: '1', TTS_TIMEOUT_SECONDS: '3600' })
  const code = await runBenchCommand(['--voices', await testVoiceDir(), '--voice', 'en_US-probe-medium', '--voices-count', '4',
    '--concurrency', '1,2', '--requests', '6', '--warmup', '0', '--no-ceiling', '--timeout', '3600', '--out', dir], io)
  t.equal(code, 0, io.err())
  const results = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as SweepResults
  t.same(results.workload.voices.map(v => v.name), [1, 2, 3, 4].map(i => `en_US-probe_${i}-medium`))
  for (const level of results.levels) {
    t.equal(level.ok, level.requests, `c=${level.load}: every request answered`)
    // Round-robin over 4 voices with room for 2: every request after the first
    // two finds its voice unloaded (6 requests: the fewest that load 4).
    t.ok((level.server?.voiceLoads ?? 0) >= 4, `c=${level.load}: voices were loaded (${level.server?.voiceLoads})`)
    t.ok((level.server?.voiceEvictions ?? 0) >= 2, `c=${level.load}: and evicted (${level.server?.voiceEvictions})`)
  }
  t.match(io.out(), /loads\s+evictions/)
  t.match(await readFile(join(dir, 'report.md'), 'utf8'), '| voice loads | evictions |')
  t.match(results.notes.join('\n'), 'many voices: one model under 4 names')
  await t.rejects(stat(join(dir, 'voice-copies')), 'the copies are removed')
})
