// Flags are checked before anything runs: a bad one is exit code 2 with the
// project's message format; --help prints the usage; compare reads two
// results files and prints b/a ratios.

import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runBenchCommand } from '../../bench/cli.js'
import { parseRunConfig } from '../../bench/config.js'
import type { LevelResult, SweepResults, TargetsResults } from '../../bench/results.js'
import { captureIo } from './helpers.js'

async function run (argv: string[]): Promise<{ code: number, out: string, err: string }> {
  const io = captureIo()
  const code = await runBenchCommand(argv, io)
  return { code, out: io.out(), err: io.err() }
}

t.test('bad values name the flag, what was expected and what came', async t => {
  const cases: Array<[string[], string]> = [
    [['--url', 'http://127.0.0.1:1', '--duration', 'ten'], 'Expected a number from 0.1 to 86400 for --duration but received "ten" (string)'],
    [['--url', 'http://127.0.0.1:1', '--concurrency', '1,x'], 'Expected positive integers up to 4096, comma-separated for --concurrency but received "1,x" (string)'],
    [['--url', 'http://127.0.0.1:1', '--rate', '0'], 'for --rate but received "0" (string)'],
    [['--url', 'http://127.0.0.1:1', '--repeat', '1.5'], 'Expected a number from 0 to 1 for --repeat but received "1.5" (string)'],
    [['--url', 'http://127.0.0.1:1', '--arrivals', 'bursty'], 'Expected one of constant, poisson for --arrivals but received "bursty" (string)'],
    [['--url', 'ftp://x'], 'Expected an http:// URL like http://127.0.0.1:8995 for --url but received "ftp://x" (string)'],
    [['--url', 'http://127.0.0.1:1', '--voice', '../etc/passwd'], 'for --voice but received "../etc/passwd" (string)'],
    [['--url', 'http://127.0.0.1:1', '--duration', '5', '--requests', '10'], 'Expected either --duration or --requests, not both'],
    [['--url', 'http://127.0.0.1:1', '--concurrency', '1', '--rate', '2'], 'Expected either --concurrency or --rate, not both'],
    [['--url', 'http://127.0.0.1:1', '--rate', '70%'], 'shares of the ceiling need the ceiling'],
    [[], 'Expected a URL to drive (or --voices DIR to start a service) for --url but received undefined (undefined)'],
    [['--url', 'http://127.0.0.1:1', '--bogus'], 'Unknown flag --bogus for chorus bench'],
    [['--url'], 'Expected a value for --url but received none'],
    [['--url', '--duration', '5'], 'Expected a value for --url but received the flag --duration'],
    [['--url', 'http://127.0.0.1:1', '--length-scale', '9'], 'Expected a number from 0.1 to 5 for --length-scale but received "9" (string)'],
    [['--url', 'http://127.0.0.1:1', '--label', ' '], 'Expected a non-empty value for --label but received "" (string)'],
    [['--url', 'http://127.0.0.1:1', '--stream=yes'], 'Unexpected value "yes" for --stream, which takes none'],
    [['compare', 'a.json', 'b.json', '--bogus'], 'Unknown flag --bogus for chorus bench compare'],
    [['targets', '--voices', '/tmp'], 'Expected a voice name like en_US-lessac-medium for --voice but received undefined (undefined)'],
    [['compare', 'a.json'], 'Expected two results.json files for chorus bench compare but received ["a.json"] (array)']
  ]
  for (const [argv, message] of cases) {
    const result = await run(argv)
    t.equal(result.code, 2, argv.join(' '))
    t.match(result.err, /^chorus bench: /)
    t.match(result.err, message)
  }
})

t.test('a typed configuration with defaults', async t => {
  const config = parseRunConfig(['--voices', 'voices', '--rate', '2,70%', '--voice', 'en_US-a-medium:3,en_GB-b-medium', '--speaker', '7', '--noise-w', '0.5', '--out', '/tmp/x'])
  t.not(config, 'help')
  if (config === 'help') return
  t.match(config, {
    url: null,
    model: 'open',
    levels: [{ kind: 'rate', value: 2 }, { kind: 'ceiling-share', value: 0.7 }],
    voices: [{ name: 'en_US-a-medium', weight: 3 }, { name: 'en_GB-b-medium', weight: 1 }],
    synthesis: { speaker: 7, noiseW: 0.5 },
    durationSeconds: 15,
    requests: null,
    warmupSeconds: 3,
    arrivals: 'constant',
    outDir: '/tmp/x',
    label: 'x'
  })
  t.same(Object.keys(config.synthesis).sort(), ['noiseW', 'speaker'], 'unset parameters stay unset')
  const health = parseRunConfig(['--url', 'http://127.0.0.1:8995/', '--endpoint', 'health'])
  t.match(health, { url: 'http://127.0.0.1:8995', ceiling: null, levels: [{ value: 1 }, { value: 8 }, { value: 32 }] })
})

t.test('--help prints the usage and exits 0', async t => {
  for (const argv of [['--help'], ['targets', '--help'], ['compare', '--help']]) {
    const result = await run(argv)
    t.equal(result.code, 0)
    t.match(result.out, /Usage: chorus bench/)
  }
})

function level (load: number, rps: number, p99: number): LevelResult {
  return {
    model: 'closed', load, windowSeconds: 10, requests: rps * 10, ok: rps * 10, errors: {}, errorMessages: {},
    requestsPerSecond: rps, audioSecondsPerSecond: rps * 4, charactersPerSecond: rps * 50, bytesPerSecond: 0, ceilingFraction: null,
    latencyMs: { p50: p99 / 2, p90: p99 * 0.9, p99, max: p99, mean: p99 / 2 }, ttfbMs: null, realTimeFactor: null, sendLagMs: null, server: null
  }
}

function sweep (label: string, levels: LevelResult[], ceiling: number): SweepResults {
  return {
    schema: 'chorus-bench/1', kind: 'sweep', label, startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:01:00.000Z',
    machine: { cpus: 2, cpuModel: 'x', memoryBytes: 1, node: 'v20', platform: 'linux', arch: 'x64', loadAverage: [0, 0, 0] },
    target: { url: 'http://127.0.0.1:1', inProcess: false, voiceDir: null, workersPerVoice: null },
    endpoint: 'tts',
    workload: { texts: 'corpus', seed: 1, voices: [], synthesis: {}, stream: false, repeatRatio: 0 },
    load: { model: 'closed', arrivals: null, warmupSeconds: 1, durationSeconds: 10, requestsPerLevel: null, timeoutSeconds: 60 },
    ceiling: { audioSecondsPerSecond: ceiling, repeatResults: [ceiling], secondsPerRepeat: 1, workers: 2, intraOpThreads: 1, voices: [], texts: 1, sentences: 1, audioSecondsPerText: 1 },
    levels,
    notes: []
  }
}

t.test('compare prints b/a ratios for matching levels and lists the rest', async t => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-compare-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const a = join(dir, 'a.json')
  const b = join(dir, 'b.json')
  await writeFile(a, JSON.stringify(sweep('before', [level(1, 2, 1000), level(2, 3, 2000)], 20)))
  await writeFile(b, JSON.stringify(sweep('after', [level(1, 3, 500), level(4, 5, 3000)], 22)))
  const result = await run(['compare', a, b])
  t.equal(result.code, 0, result.err)
  t.match(result.out, 'a: before')
  t.match(result.out, 'ceiling audio s/s: a 20, b 22, b/a 1.10×')
  const row = result.out.split('\n').find(line => line.startsWith('c=1'))
  t.match(row, /^c=1\s+2\s+3\s+1\.50×\s+8\s+12\s+1\.50×\s+500\s+250\s+0\.50×\s+1000\s+500\s+0\.50×/)
  t.match(result.out, 'levels in one run only: a c=2, b c=4')

  await writeFile(b, '{"schema":"something-else"}')
  const bad = await run(['compare', a, b])
  t.equal(bad.code, 2)
  t.match(bad.err, `Expected a chorus-bench/1 results file (results.json of chorus bench) for the second file but received "${b}" (string)`)

  const targets: TargetsResults = {
    ...sweep('t', [], 20), kind: 'targets', voice: 'v', modelBytes: 1, workersPerVoice: 2, figures: [], info: []
  } as unknown as TargetsResults
  await writeFile(b, JSON.stringify(targets))
  const mixed = await run(['compare', a, b])
  t.equal(mixed.code, 2)
  t.match(mixed.err, 'Expected two results of the same kind but received a sweep and a targets run')
})
