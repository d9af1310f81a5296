// `chorus bench targets --quick` on a generated test voice: every figure is
// measured (met or missed is the machine's business here, not the test's),
// and the table, results.json and report.md come out. Bounded to short phases.

import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runBenchCommand } from '../../bench/cli.js'
import type { TargetsResults } from '../../bench/results.js'
import { testVoiceDir } from '../helpers/voices.js'
import { captureIo } from '../bench/helpers.js'

t.test('targets --quick measures every figure side by side', async t => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-targets-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const io = captureIo()
  const code = await runBenchCommand(['targets', '--voices', await testVoiceDir(), '--voice', 'en_US-probe-medium', '--quick', '--out', dir], io)
  t.equal(code, 0, io.err())
  const results = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as TargetsResults
  t.match(results, { schema: 'chorus-bench/1', kind: 'targets', voice: 'en_US-probe-medium', workersPerVoice: Number })
  t.same(results.figures.map(f => f.id), ['saturation', 'engine-alone', 'engine-split', 'short-idle', 'reply6-idle', 'stream10-ttfb', 'open70-p99', 'cache-hit', 'rss-per-worker', 'long-stream-first', 'long-idle', 'unpunctuated-rss'])
  for (const figure of results.figures) {
    // RSS can shrink as well as grow on a tiny test voice: measured is what counts.
    t.ok(figure.ratio !== null && Number.isFinite(figure.ratio), `${figure.id} measured: ${figure.measured}`)
    t.equal(typeof figure.met, 'boolean')
  }
  t.notMatch(results.notes.join('\n'), /phonemizes to/, 'the fixed texts have the sentence counts the figures need')
  t.match(io.out(), /^figure\s+measured\s+ratio\s+target\s+result$/m)
  t.match(io.out(), /^throughput at saturation vs the outside ceiling \(onnxruntime-node on the unmodified model\)\s+.+ audio s\/s vs .+ audio s\/s\s+[\d.]+×\s+≥ 0\.95×\s+(met|MISSED)$/m)
  const report = await readFile(join(dir, 'report.md'), 'utf8')
  t.match(report, /^\| figure \| measured \| ratio \| target \| result \|$/m)
})
