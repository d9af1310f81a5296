// Short runs of `chorus bench` against a real service on 127.0.0.1 (the
// generated test voices): every output file is produced and well-formed.
// Bounded: a few seconds per run, a handful of requests per level.

import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import t from 'tap'
import { runBenchCommand } from '../../bench/cli.js'
import type { SweepResults } from '../../bench/results.js'
import { startTestService } from '../helpers/service.js'
import { testVoiceDir } from '../helpers/voices.js'
import { captureIo } from './helpers.js'

const service = await startTestService()
t.teardown(() => service.stop())
const voices = await testVoiceDir()
const root = await mkdtemp(join(tmpdir(), 'chorus-bench-'))
t.teardown(() => rm(root, { recursive: true, force: true }))

async function bench (name: string, argv: string[]): Promise<{ dir: string, results: SweepResults, out: string, err: string }> {
  const dir = join(root, name)
  const io = captureIo()
  const code = await runBenchCommand(['--url', service.url, '--out', dir, ...argv], io)
  if (code !== 0) throw new Error(`chorus bench exited ${code}: ${io.err()}`)
  return { dir, results: JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')), out: io.out(), err: io.err() }
}

interface SvgFacts {
  /** true, or the validator's error. */
  valid: true | object
  roots: string[]
  /** Kinds of data marks drawn: a mark's container holding elements labelled with their data. */
  marks: string[]
}

async function svgFacts (file: string): Promise<SvgFacts> {
  const svg = await readFile(file, 'utf8')
  const valid = XMLValidator.validate(svg)
  const roots = valid === true ? Object.keys(new XMLParser().parse(svg) as object).filter(key => !key.startsWith('?')) : []
  const marks = [...svg.matchAll(/class="mark-(\w+) role-mark[^"]*"[^>]*>\s*<(?:path|line) aria-label="[^"]+: \d/g)].map(m => m[1])
  return { valid, roots, marks: [...new Set(marks)].sort() }
}

t.test('a closed-loop sweep with the ceiling writes results.json, report.md and two charts', async t => {
  const { dir, results, out, err } = await bench('closed', [
    '--voices', voices, '--voice', 'en_US-probe-medium', '--concurrency', '1,2', '--duration', '1.5', '--warmup', '0.3',
    '--ceiling-seconds', '0.5', '--ceiling-repeats', '1', '--ceiling-workers', '2', '--label', 'e2e'
  ])
  t.equal(err, '', 'no progress line when stderr is not a terminal')
  t.match(results, {
    schema: 'chorus-bench/1',
    kind: 'sweep',
    label: 'e2e',
    endpoint: 'tts',
    target: { url: service.url, inProcess: false },
    workload: { texts: 'corpus', seed: 1, voices: [{ name: 'en_US-probe-medium', weight: 1 }], stream: false },
    load: { model: 'closed', durationSeconds: 1.5, warmupSeconds: 0.3 },
    ceiling: { workers: 2, intraOpThreads: 1, voices: ['en_US-probe-medium'], texts: 200 }
  })
  t.ok(results.ceiling !== null && results.ceiling.audioSecondsPerSecond > 0)
  t.equal(results.levels.length, 2)
  for (const level of results.levels) {
    t.ok(level.ok > 0 && level.ok === level.requests, `${level.load}: every request succeeded`)
    t.ok(level.audioSecondsPerSecond > 0 && level.requestsPerSecond > 0)
    t.ok((level.ceilingFraction ?? 0) > 0)
    t.ok((level.latencyMs?.p50 ?? 0) > 0 && (level.latencyMs?.p99 ?? 0) >= (level.latencyMs?.p50 ?? 0))
    t.ok(level.ttfbMs !== null)
    t.ok((level.server?.samples ?? 0) >= 2, 'the server was scraped during the level')
    t.ok((level.server?.rssBytes?.max ?? 0) > 0)
  }
  t.match(out, /^load\s+requests\s+errors\s+req\/s\s+audio s\/s\s+× ceiling/m, 'the terminal shows the summary table')
  t.match(out, /^c=2\s+\d+\s+0\s/m)
  const report = await readFile(join(dir, 'report.md'), 'utf8')
  t.match(report, '# Chorus load test: e2e')
  t.match(report, /^\| load \| requests \| errors \| req\/s \| audio s\/s \| × ceiling \|/m)
  t.match(report, /^\| c=1 \|/m)
  t.match(report, '![Throughput against load](throughput.svg)')
  t.same(await svgFacts(join(dir, 'throughput.svg')), { valid: true, roots: ['svg'], marks: ['line', 'rule', 'symbol'] }, 'throughput.svg: the levels and the ceiling')
  t.same(await svgFacts(join(dir, 'latency.svg')), { valid: true, roots: ['svg'], marks: ['line', 'symbol'] }, 'latency.svg: the percentiles')
})

t.test('an open loop of streamed requests, a multi-speaker voice and repeated phrases', async t => {
  const { dir, results, err } = await bench('open', [
    '--rate', '8,16', '--duration', '1', '--warmup', '0.2', '--stream', '--voice', 'en_GB-probemulti-medium',
    '--speaker', '5', '--repeat', '0.3', '--no-ceiling', '--progress'
  ])
  t.match(results, { load: { model: 'open', arrivals: 'constant' }, ceiling: null, workload: { stream: true, repeatRatio: 0.3, synthesis: { speaker: 5 } } })
  t.same(results.levels.map(level => level.load), [8, 16])
  for (const level of results.levels) {
    t.equal(level.requests, level.load, 'one second of arrivals at the offered rate')
    t.equal(level.ok, level.requests)
    t.ok(level.sendLagMs !== null, 'the send lag is measured (how small it is: test/leak/bench-loops.leak.ts)')
    t.ok((level.ttfbMs?.p50 ?? Infinity) <= (level.latencyMs?.p50 ?? 0), 'first audio before the last byte')
  }
  t.match(results.notes, [/ceiling was not measured/])
  t.match(err, /^8\.00\/s {2}(\d+\/\d+ s|finishing) {2}ok \d+ {2}err 0 {2}[\d.]+ req\/s/m, '--progress: a line per second on a stderr that is not a terminal')
  t.same(await svgFacts(join(dir, 'throughput.svg')), { valid: true, roots: ['svg'], marks: ['line', 'symbol'] }, 'no ceiling: no rule')
})

// How fast the harness drives GET /health is a rate, measured by `bench
// targets` ("harness headroom"), not asserted here: a busy CPU would fail it.
t.test('--endpoint health: each level drives GET /health, every request answered', async t => {
  const { results } = await bench('health', ['--endpoint', 'health', '--concurrency', '1,8', '--duration', '0.5', '--warmup', '0.1'])
  t.match(results, { endpoint: 'health', ceiling: null })
  t.same(results.levels.map(level => level.load), [1, 8], 'a level per concurrency')
  for (const level of results.levels) {
    t.ok(level.requests > 0 && level.ok === level.requests, `${level.load} clients: ${level.ok} of ${level.requests} answered`)
    t.same(level.errors, {}, 'no errors')
  }
})

t.test('a service that is not there is exit code 1 with the request named', async t => {
  const io = captureIo()
  const code = await runBenchCommand(['--url', 'http://127.0.0.1:9', '--no-ceiling', '--duration', '0.2', '--out', join(root, 'none')], io)
  t.equal(code, 1)
  t.match(io.err(), /^chorus bench: GET http:\/\/127\.0\.0\.1:9\/health failed: connect ECONNREFUSED/)
})
