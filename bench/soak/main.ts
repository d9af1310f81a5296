// npm run soak [-- --minutes N --fraction F --rate R --tools-fraction F --tools-rate R]
// A long steady run of both servers at a fixed fraction of their capacity,
// to show what a unit test cannot: memory that creeps, an event loop that
// stalls, errors that only come after thousands of requests. Prints the RSS
// drift after warm-up, errors, p99 latencies and event-loop delays, and
// writes them as JSON to bench-results/. Targets (issue 12): RSS drift < 5 %
// after warm-up, 0 errors, event-loop delay p99 < 20 ms.

import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { BenchClient } from '../client.js'
import { Rng } from '../corpus.js'
import { parsePrometheus } from '../metrics-scrape.js'
import { parseSoakConfig, SOAK_USAGE, type SoakConfig } from './config.js'
import { LOOP_RESOLUTION_MS } from './protocol.js'
import { holdRate, probeCapacity, ttsFigures, ttsSender, type TtsFigures } from './load.js'
import { residentBytes, startHostChild, startTtsChild, type HostChild, type TtsChild } from './processes.js'
import { fillPhraseCache } from './cache.js'
import { rssDrift, warmupSeconds, type Drift } from './stats.js'
import { ToolsDriver } from './tools.js'
import { median } from '../stats.js'
import { Workload, type VoiceWeight } from '../workload.js'
import { ChorusError, ConfigError } from '../../src/errors.js'
import { BUILTIN_VOICE } from '../../src/voices/builtin.js'
import { CORES } from '../../src/shared/config-values.js'

/** The voice mix, by share of requests; the multi-speaker voice gets speaker 3. */
const MIX: VoiceWeight[] = [
  { name: 'en_US-bench-medium', weight: 0.5 },
  { name: 'en_GB-benchmulti-medium', weight: 0.3 },
  { name: 'en_US-bench-x_low', weight: 0.2 }
]
const MULTI_SPEAKER = new Set(['en_GB-benchmulti-medium'])
const TTS_TIMEOUT_MS = 60_000

interface Sample {
  t: number
  ttsRss: number
  /** Audio bytes in the TTS service's phrase cache: bounded (TTS_CACHE_BYTES), and filled over the run. */
  ttsCacheBytes: number
  /** The TTS service's main-thread V8 heap in use. */
  ttsHeapUsed: number
  hostRss: number
  ttsLoopP99: number
  hostLoopP99: number
  harnessLoopP99: number
}

/** The corpus avoids repeats by remembering texts; over a long run that memory is the harness's leak. */
class Forgetful extends Set<string> {
  override add (): this {
    return this
  }
}

async function main (argv: string[]): Promise<number> {
  let config: SoakConfig | 'help'
  try {
    config = parseSoakConfig(argv)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    console.error(`soak: ${error.message}`)
    return 2
  }
  if (config === 'help') {
    process.stdout.write(SOAK_USAGE)
    return 0
  }
  const voices = MIX.filter((voice) => existsSync(join(config.voiceDir, `${voice.name}.onnx`)))
  if (voices.length === 0) {
    console.error(`soak: no bench voice (${MIX.map((voice) => voice.name).join(', ')}) in ${config.voiceDir}; pass --voices <dir>`)
    return 2
  }
  await mkdir(config.outDir, { recursive: true })
  const stamp = new Date().toISOString().replace(/[:.]/g, '-')
  const tts = await startTtsChild(process.env, config.voiceDir, voices[0].name, join(config.outDir, `soak-${stamp}-tts.log`))
  let host: HostChild | undefined
  try {
    host = await startHostChild(join(config.outDir, `soak-${stamp}-tools.log`))
    const results = await soak(config, voices, tts, host)
    const file = join(config.outDir, `soak-${stamp}.json`)
    await writeFile(file, JSON.stringify(results, null, 2) + '\n')
    console.log(`results: ${file}`)
    return 0
  } finally {
    await host?.stop()
    await tts.stop()
  }
}

/** What drives the load: the TTS client and sender, and the tools driver; figures are swapped after the probes. */
interface Traffic {
  client: BenchClient
  send: (dueMs?: number) => Promise<{ error?: string }>
  tts: TtsFigures
  tools: ToolsDriver
  /** Names of tool cycles must not repeat: bots of a failed cycle may remain. */
  nextCycle: number
  rng: Rng
}

async function soak (config: SoakConfig, voices: VoiceWeight[], tts: TtsChild, host: HostChild): Promise<Record<string, unknown>> {
  const traffic = await prepare(config, voices, tts, host)
  const rates = await measureRates(config, traffic)
  console.log(`soak: ${config.minutes} min; TTS ${rates.ttsRate.toFixed(2)} req/s${describeShare(config.fraction, rates.ttsCapacity, 'req/s')}, ` +
    `tools ${rates.toolsRate.toFixed(2)} cycles/s of 8 calls${describeShare(config.toolsFraction, rates.toolsCapacity, 'cycles/s')}; voices ${voices.map((voice) => voice.name).join(', ')}`)
  // The probes' figures are not the run's.
  traffic.tts = ttsFigures()
  await traffic.tools.close()
  traffic.tools = new ToolsDriver(host.toolsUrl)
  const steady = await runSteady(config, traffic, rates, tts, host)
  await traffic.tools.close()
  traffic.client.close()
  return report(config, { ...rates, ...steady, figures: traffic.tts, tools: traffic.tools })
}

async function prepare (config: SoakConfig, voices: VoiceWeight[], tts: TtsChild, host: HostChild): Promise<Traffic> {
  const client = new BenchClient(tts.url, TTS_TIMEOUT_MS)
  // Every voice of the mix loads before anything is measured: a voice loading
  // mid-run would look like a leak.
  for (const voice of voices) {
    const body = JSON.stringify({ text: 'Warming up.', voice: voice.name })
    const sample = await client.synthesize({ text: 'Warming up.', voice: voice.name, repeated: false, body })
    if (sample.error !== undefined) throw new ChorusError('ERR_SOAK', `voice ${voice.name} does not speak: ${sample.error} ${sample.message ?? ''}`)
  }
  const fill = await fillPhraseCache(client, BUILTIN_VOICE)
  console.log(`soak: phrase cache filled to ${mb(fill.bytes)} MB by ${fill.requests} requests to ${BUILTIN_VOICE}`)
  await ToolsDriver.createRoot(host.spawnerUrl)
  const seen = new Forgetful()
  const spec = { texts: { kind: 'corpus' as const }, seed: config.seed, voices, multiSpeaker: MULTI_SPEAKER, synthesis: { speaker: 3 }, repeatRatio: 0.1 }
  const rng = new Rng(config.seed).fork(7)
  const traffic: Traffic = { client, send: async () => ({}), tts: ttsFigures(), tools: new ToolsDriver(host.toolsUrl), nextCycle: 0, rng }
  traffic.send = ttsSender(client, new Workload({ ...spec, stream: false }, 0, seen), new Workload({ ...spec, stream: true }, 1, seen), rng.fork(1), () => traffic.tts)
  return traffic
}

interface Rates {
  ttsRate: number
  ttsCapacity: number | null
  toolsRate: number
  toolsCapacity: number | null
}

/** The given rates, or the configured fractions of capacities measured now, each alone. */
async function measureRates (config: SoakConfig, traffic: Traffic): Promise<Rates> {
  const probeSeconds = Math.min(20, Math.max(5, config.minutes * 60 / 12))
  const ttsCapacity = config.rate === null
    ? await probeCapacity(2 * CORES, probeSeconds, 6 * CORES, async () => (await traffic.send()).error === undefined)
    : null
  const toolsCapacity = config.toolsRate === null
    ? await probeCapacity(4, probeSeconds, 8, async () => await traffic.tools.cycle(traffic.nextCycle++).then(() => true, () => false))
    : null
  return {
    ttsRate: config.rate ?? config.fraction * (ttsCapacity as number),
    ttsCapacity,
    toolsRate: config.toolsRate ?? config.toolsFraction * (toolsCapacity as number),
    toolsCapacity
  }
}

interface Steady {
  ttsSent: number
  cycles: number
  warmup: number
  samples: Sample[]
}

/** Both loads at their rates for the whole run, sampled every sampleSeconds. */
async function runSteady (config: SoakConfig, traffic: Traffic, rates: Rates, tts: TtsChild, host: HostChild): Promise<Steady> {
  const totalSeconds = config.minutes * 60
  const warmup = warmupSeconds(totalSeconds)
  const startMs = performance.now()
  const untilMs = startMs + totalSeconds * 1000
  const samples: Sample[] = []
  const harnessDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS })
  harnessDelay.enable()
  const sampling = sampleEvery(config.sampleSeconds, untilMs, async () => {
    samples.push(await takeSample((performance.now() - startMs) / 1000, tts, host, traffic.client, harnessDelay))
  })
  const warmedUp = setTimeout(() => {
    traffic.tts.latency.reset()
    traffic.tts.firstAudio.reset()
    traffic.tools.figures.latency.reset()
    console.log('soak: warm-up over; latencies from here on')
  }, warmup * 1000)
  const progress = setInterval(() => { console.log(progressLine(startMs, traffic.tts, traffic.tools, samples)) }, 60_000)
  const firstCycle = traffic.nextCycle
  const cycle = async (index: number): Promise<void> => {
    await traffic.tools.cycle(firstCycle + index).catch((error: unknown) => {
      traffic.tools.figures.errors++
      traffic.tools.figures.lastError = String(error)
    })
  }
  const [ttsSent, cycles] = await Promise.all([
    holdRate({ rate: rates.ttsRate, untilMs, maxInFlight: 64, rng: traffic.rng.fork(2), send: async (_index, dueMs) => await traffic.send(dueMs) }),
    holdRate({ rate: rates.toolsRate, untilMs, maxInFlight: 16, rng: traffic.rng.fork(3), send: cycle })
  ])
  clearTimeout(warmedUp)
  clearInterval(progress)
  await sampling
  harnessDelay.disable()
  return { ttsSent, cycles, warmup, samples }
}

function describeShare (fraction: number, capacity: number | null, unit: string): string {
  return capacity === null ? ' (given)' : ` (${Math.round(fraction * 100)} % of ${capacity.toFixed(2)} ${unit} measured)`
}

/** Calls `take` every `seconds` until `untilMs`, never two at once. */
async function sampleEvery (seconds: number, untilMs: number, take: () => Promise<void>): Promise<void> {
  for (let next = performance.now(); next < untilMs; next += seconds * 1000) {
    const wait = next - performance.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    await take()
  }
}

async function takeSample (t: number, tts: TtsChild, host: HostChild, client: BenchClient, harness: ReturnType<typeof monitorEventLoopDelay>): Promise<Sample> {
  const metrics = parsePrometheus(await client.getText('/metrics'))
  // prom-client's histogram runs at a 10 ms resolution, which every value includes.
  const ttsLoopP99 = (metrics.get('nodejs_eventloop_lag_p99_seconds') ?? Number.NaN) * 1000 - LOOP_RESOLUTION_MS
  const hostLoop = await host.loopDelay()
  const harnessLoopP99 = harness.percentile(99) / 1e6 - LOOP_RESOLUTION_MS
  harness.reset()
  const ttsCacheBytes = metrics.get('chorus_cache_bytes') ?? Number.NaN
  const ttsHeapUsed = metrics.get('nodejs_heap_size_used_bytes') ?? Number.NaN
  return { t, ttsRss: await residentBytes(tts.pid), ttsCacheBytes, ttsHeapUsed, hostRss: await residentBytes(host.pid), ttsLoopP99, hostLoopP99: hostLoop.p99Ms, harnessLoopP99 }
}

const mb = (bytes: number): string => (bytes / 1e6).toFixed(1)
const signed = (percent: number): string => `${percent >= 0 ? '+' : ''}${percent.toFixed(2)}`

function progressLine (startMs: number, figures: TtsFigures, tools: ToolsDriver, samples: Sample[]): string {
  const last = samples[samples.length - 1]
  const minutes = ((performance.now() - startMs) / 60_000).toFixed(0)
  const memory = last === undefined ? '' : `; RSS TTS ${mb(last.ttsRss)} MB, tools ${mb(last.hostRss)} MB`
  return `soak: ${minutes} min: TTS ${figures.requests} requests (${figures.errors} errors), tools ${tools.figures.calls} calls (${tools.figures.errors} errors)${memory}`
}

interface Outcome extends Rates, Steady {
  figures: TtsFigures
  tools: ToolsDriver
}

function loopFigures (values: number[]): { medianP99Ms: number, maxP99Ms: number } {
  const finite = values.filter(Number.isFinite)
  return { medianP99Ms: median(finite), maxP99Ms: Math.max(...finite) }
}

function report (config: SoakConfig, outcome: Outcome): Record<string, unknown> {
  const { samples, warmup, figures, tools } = outcome
  const after = samples.filter((sample) => sample.t >= warmup)
  const drift = {
    tts: rssDrift(samples.map((sample) => ({ t: sample.t, bytes: sample.ttsRss })), warmup),
    // The phrase cache filling up to its bound is not drift: shown apart.
    ttsBeyondCache: rssDrift(samples.map((sample) => ({ t: sample.t, bytes: sample.ttsRss - (Number.isFinite(sample.ttsCacheBytes) ? sample.ttsCacheBytes : 0) })), warmup),
    tools: rssDrift(samples.map((sample) => ({ t: sample.t, bytes: sample.hostRss })), warmup)
  }
  const loops = {
    tts: loopFigures(after.map((sample) => sample.ttsLoopP99)),
    tools: loopFigures(after.map((sample) => sample.hostLoopP99)),
    harness: loopFigures(after.map((sample) => sample.harnessLoopP99))
  }
  const p99 = {
    ttsLatencyMs: figures.latency.count === 0 ? null : figures.latency.percentile(99) / 1000,
    ttsFirstAudioMs: figures.firstAudio.count === 0 ? null : figures.firstAudio.percentile(99) / 1000,
    toolCallMs: tools.figures.latency.count === 0 ? null : tools.figures.latency.percentile(99) / 1000
  }
  const errors = figures.errors + tools.figures.errors
  const describeDrift = (name: string, value: Drift | undefined): string => value === undefined
    ? `${name}: too few samples after warm-up`
    : `${name}: ${mb(value.baselineBytes)} → ${mb(value.finalBytes)} MB, drift ${signed(value.percent)} % (medians ${signed(value.medianPercent)} %, ${value.slopeMbPerMinute.toFixed(3)} MB/min)`
  const worstDrift = Math.max(...[drift.tts, drift.tools].map((value) => Math.abs(value?.percent ?? Number.POSITIVE_INFINITY)))
  const worstLoop = Math.max(loops.tts.maxP99Ms, loops.tools.maxP99Ms)
  const verdict = (met: boolean): string => met ? 'met' : 'MISSED'
  console.log([
    `soak: ${config.minutes} min done, warm-up ${(warmup / 60).toFixed(1)} min, ${samples.length} samples every ${config.sampleSeconds} s`,
    '  RSS after warm-up  lower quartiles of the first and last tenths',
    `                     ${describeDrift('TTS service', drift.tts)}`,
    `                     ${describeDrift('TTS service less its phrase cache', drift.ttsBeyondCache)}`,
    `                     ${describeDrift('tool server + spawner', drift.tools)}`,
    `  requests           TTS ${figures.requests} (${figures.errors} errors), tools ${tools.figures.calls} calls in ${tools.figures.cycles} cycles (${tools.figures.errors} errors)`,
    ...(figures.lastError === undefined ? [] : [`  last TTS error     ${figures.lastError}`]),
    ...(tools.figures.lastError === undefined ? [] : [`  last tools error   ${tools.figures.lastError}`]),
    `  p99 after warm-up  TTS answer ${p99.ttsLatencyMs?.toFixed(1) ?? '-'} ms, TTS first audio (streamed) ${p99.ttsFirstAudioMs?.toFixed(1) ?? '-'} ms, tool call ${p99.toolCallMs?.toFixed(1) ?? '-'} ms`,
    `  event-loop delay   p99 per ${config.sampleSeconds} s, median / worst: TTS ${loops.tts.medianP99Ms.toFixed(1)} / ${loops.tts.maxP99Ms.toFixed(1)} ms, ` +
      `tools ${loops.tools.medianP99Ms.toFixed(1)} / ${loops.tools.maxP99Ms.toFixed(1)} ms, harness ${loops.harness.medianP99Ms.toFixed(1)} / ${loops.harness.maxP99Ms.toFixed(1)} ms`,
    `  targets            RSS drift < 5 %: ${verdict(worstDrift < 5)}; 0 errors: ${verdict(errors === 0)}; event-loop delay p99 < 20 ms: ${verdict(worstLoop < 20)}`
  ].join('\n'))
  return {
    config,
    rates: { ttsRequestsPerSecond: outcome.ttsRate, ttsCapacity: outcome.ttsCapacity, toolCyclesPerSecond: outcome.toolsRate, toolsCapacity: outcome.toolsCapacity },
    warmupSeconds: warmup,
    drift,
    errors: { tts: figures.errors, tools: tools.figures.errors, lastTts: figures.lastError ?? null, lastTools: tools.figures.lastError ?? null },
    counts: { ttsRequests: figures.requests, ttsSent: outcome.ttsSent, toolCalls: tools.figures.calls, toolCycles: tools.figures.cycles, cyclesSent: outcome.cycles },
    p99,
    loops,
    samples
  }
}

process.exitCode = await main(process.argv.slice(2))
