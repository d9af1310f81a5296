// `chorus bench profile --quick` on a bench voice: a saturation run against
// the outside ceiling, with the service's CPU read per thread role and its
// stages from /metrics. Checks that every part is measured and adds up, not
// what the machine's figures are.

import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runBenchCommand } from '../../bench/cli.js'
import type { ProfileResults } from '../../bench/profile.js'
import { BENCH_VOICES } from '../helpers/voices.js'
import { captureIo } from '../bench/helpers.js'

t.test('profile --quick places the time against the outside ceiling', async t => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-profile-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const io = captureIo()
  const code = await runBenchCommand(['profile', '--voices', BENCH_VOICES, '--voice', 'en_US-bench-x_low', '--quick', '--out', dir], io)
  t.equal(code, 0, io.err())
  const results = JSON.parse(await readFile(join(dir, 'results.json'), 'utf8')) as ProfileResults
  t.equal(results.ratios.length, 1)
  t.ok(results.ratios[0] > 0, 'the service made audio in the window')
  t.ok(results.ceiling.cpuSecondsPerAudioSecond > 0 && results.service.cpuSecondsPerAudioSecond > 0)
  const roles = results.service.coresByRole
  t.ok(roles['inference on the libuv pool (chorus-uv)'] > 0, 'inference ran on threads the addon named')
  t.ok(roles['main thread (HTTP, scheduling, WAV)'] > 0)
  t.ok(results.service.perRequest['encoder runs'] > 0 && results.service.perRequest['flow runs (staged cut)'] > 0 && results.service.perRequest['decoder chunks'] > 0, 'the split voice\'s stages were counted')
  t.match(io.out(), /^throughput vs the outside ceiling \(median of runs\)\s+[\d.]+×/m)
  t.match(await readFile(join(dir, 'report.md'), 'utf8'), /^\| Threads \| Share of the cores \|$/m)
})
