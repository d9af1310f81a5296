// `chorus bench targets`: the README's figures, each measured side by side
// with its reference in one run on one machine, and checked against its
// target. On a shared machine the load drifts over minutes, so each figure
// and its reference are measured in alternation (bare run, service run,
// service run, bare run, …), as scripts/bench-engine.ts does, and quoted as
// medians. The order:
//   1. the service starts in-process with the phrase cache off and loads
//      the voice;
//   2. bare-engine workers start beside it: onnxruntime-node's own
//      InferenceSession on the unmodified model (the outside reference, which
//      holds nothing of Chorus), Chorus's engine alone (whole graph) and
//      split as the service runs it; idle latencies
//      alternate with onnxruntime-node runs of the same texts, then
//      saturation runs with ceiling runs of the three engines (each side idle
//      while the other runs);
//   3. the open loop, the uncached phrase rate and GET /health;
//   4. memory: a service in a process of its own (its RSS is then its own),
//      at start-up, under the corpus and on the unpunctuated text;
//   5. a second service with the cache on answers the repeated phrase.

import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { ChorusError, ConfigError } from '../src/errors.js'
import { CORES } from '../src/shared/config-values.js'
import { expectedMessage } from '../src/validate.js'
import { summariseLevel } from './aggregate.js'
import { EngineBench, type TextRange, type ThroughputRun } from './ceiling.js'
import { startChildService } from './child-service.js'
import { BenchClient, type Sample } from './client.js'
import { runClosedLoop } from './closed-loop.js'
import type { WindowSpec } from './loop.js'
import type { TargetsConfig } from './config.js'
import { Corpus, Rng, STOCK_PHRASES } from './corpus.js'
import type { BenchIo } from './io.js'
import { MetricsScraper } from './metrics-scrape.js'
import { runOpenLoop } from './open-loop.js'
import { resultsHeader, writeOutputs } from './output.js'
import { Progress } from './progress.js'
import type { CeilingResult, TargetFigure, TargetsResults } from './results.js'
import { describeService, startInProcess, type ServedVoice } from './service.js'
import { residentBytes } from './soak/processes.js'
import { median } from './stats.js'
import { targetsSummary } from './summary.js'
import { num } from './table.js'
import { requestBody, Workload, type WorkItem, type WorkloadSpec } from './workload.js'

interface Phase {
  warmupMs: number
  durationMs: number
}

interface Plan {
  /** Bare and service runs of each idle figure. */
  idleRepeats: number
  /** Rounds of ceiling and saturation runs, alternated. */
  throughputRepeats: number
  /** Corpus texts per round, the same for the ceiling and the service. */
  batchTexts: number
  /** The service's memory under the corpus; its clients also drive the rounds. */
  saturation: Phase & { clientsPerWorker: number }
  openLoop: Phase & { share: number }
  uncached: Phase
  cached: Phase
  health: Phase & { concurrency: number }
}

// About four minutes on two cores; --quick is a smoke run of the same steps.
const FULL: Plan = {
  idleRepeats: 7,
  throughputRepeats: 3,
  // ~250 s of audio: about 17 s per side and round on two cores.
  batchTexts: 40,
  saturation: { warmupMs: 3000, durationMs: 12_000, clientsPerWorker: 4 },
  openLoop: { warmupMs: 3000, durationMs: 40_000, share: 0.7 },
  uncached: { warmupMs: 2000, durationMs: 8000 },
  cached: { warmupMs: 1000, durationMs: 5000 },
  health: { warmupMs: 500, durationMs: 3000, concurrency: 32 }
}

const QUICK: Plan = {
  idleRepeats: 2,
  throughputRepeats: 1,
  batchTexts: 2,
  saturation: { warmupMs: 300, durationMs: 2000, clientsPerWorker: 2 },
  openLoop: { warmupMs: 300, durationMs: 2000, share: 0.7 },
  uncached: { warmupMs: 300, durationMs: 1000 },
  cached: { warmupMs: 200, durationMs: 800 },
  health: { warmupMs: 200, durationMs: 800, concurrency: 16 }
}

const CEILING_TEXTS = 200

// The open loop is held for its duration or this many requests, whichever
// comes first (its warm-up for a tenth of them): a voice so fast that 70 % of
// its ceiling means thousands of requests a second would otherwise flood the
// loopback for the whole phase.
const OPEN_LOOP_MAX_REQUESTS = 2000

/** The fixed texts of the figures, drawn from the corpus with the run's seed. */
interface Texts {
  short: string
  reply6: string
  stream10First: string
  stream10: string
  open: string
  phrase: string
  /** One sentence of about 45 words without an inner full stop. */
  long: string
}

/** 4,998 characters with no punctuation: one huge sentence for the engine. */
const UNPUNCTUATED = 'hello '.repeat(833).trim()
/** The memory child's TTS_TIMEOUT_SECONDS unless one is set: the text is
 * ~5 minutes of audio, which took longer than the default 60 s to
 * synthesise on this machine when it ran at a fifth of its speed. */
const UNPUNCTUATED_TIMEOUT_SECONDS = 900
const LONG_WORDS = 45

function pickTexts (seed: number): Texts {
  const corpus = new Corpus(new Rng(seed).fork(7))
  const stream10 = Array.from({ length: 10 }, () => corpus.sentence())
  return {
    short: corpus.sentence(),
    reply6: corpus.sentences(6),
    stream10First: stream10[0],
    stream10: stream10.join(' '),
    open: corpus.sentences(2),
    phrase: STOCK_PHRASES[3],
    long: corpus.sentences(8).replace(/[.!?]+/g, ',').split(/\s+/).slice(0, LONG_WORDS).join(' ').replace(/,$/, '') + '.'
  }
}

// Prepared in the engine workers in this order, the corpus texts after them.
const BARE_TEXTS: ReadonlyArray<[keyof Texts, number]> = [['short', 1], ['reply6', 6], ['stream10First', 1], ['open', 2], ['long', 1]]

function item (text: string, voice: string, stream = false): WorkItem {
  return { text, voice, repeated: false, body: requestBody(text, voice, { synthesis: {}, stream, multiSpeaker: new Set() }) }
}

async function request (client: BenchClient, work: WorkItem): Promise<Sample> {
  const sample = await client.synthesize(work)
  if (sample.error !== undefined) {
    throw new ChorusError('ERR_BENCH_RUN', `POST /tts failed with ${sample.error} on an idle service${sample.message === undefined ? '' : `: ${sample.message}`}`)
  }
  return sample
}

interface Paired {
  bareMs: number
  bareAudioSeconds: number
  service: number
}

/** Medians of `repeats` bare runs of a prepared text and as many service requests, alternated. */
async function paired (client: BenchClient, bench: EngineBench, bareText: number, work: WorkItem, pick: (s: Sample) => number, repeats: number): Promise<Paired> {
  const bare: Array<{ ms: number, audio: number }> = []
  const service: number[] = []
  const runBare = async () => {
    const [run] = await bench.sequential(bareText, 1)
    bare.push({ ms: run.sentenceMs.reduce((a, b) => a + b, 0), audio: run.audioSeconds })
  }
  const runService = async () => { service.push(pick(await request(client, work))) }
  for (let r = 0; r < repeats; r++) {
    // Alternate which goes first, so neither always runs on a warmer cache.
    if (r % 2 === 0) await runBare().then(runService)
    else await runService().then(runBare)
  }
  return { bareMs: median(bare.map(b => b.ms)), bareAudioSeconds: median(bare.map(b => b.audio)), service: median(service) }
}

interface IdleFigures {
  short: Paired
  reply6: Paired
  stream10: Paired
  open: Paired
  long: Paired
  /** The long sentence streamed (first audio) and not (last byte), alternated. */
  longStream: { firstAudioMs: number, wholeMs: number }
}

/** Medians of the streamed long sentence's first audio and the non-streamed answer, alternated. */
async function streamedVsWhole (client: BenchClient, text: string, voice: string, repeats: number): Promise<IdleFigures['longStream']> {
  const first: number[] = []
  const whole: number[] = []
  for (let r = 0; r < repeats; r++) {
    first.push((await request(client, item(text, voice, true))).ttfbMs ?? Number.NaN)
    whole.push((await request(client, item(text, voice))).latencyMs)
  }
  return { firstAudioMs: median(first), wholeMs: median(whole) }
}

async function measureIdle (client: BenchClient, bench: EngineBench, plan: Plan, texts: Texts, voice: string, progress: Progress): Promise<IdleFigures> {
  progress.note(`idle latencies against bare runs, ${plan.idleRepeats} each`)
  await request(client, item(texts.open, voice))
  const latency = (s: Sample) => s.latencyMs
  return {
    short: await paired(client, bench, 0, item(texts.short, voice), latency, plan.idleRepeats),
    reply6: await paired(client, bench, 1, item(texts.reply6, voice), latency, plan.idleRepeats),
    stream10: await paired(client, bench, 2, item(texts.stream10, voice, true), s => s.ttfbMs ?? Number.NaN, plan.idleRepeats),
    open: await paired(client, bench, 3, item(texts.open, voice), latency, plan.idleRepeats),
    long: await paired(client, bench, 4, item(texts.long, voice), latency, plan.idleRepeats),
    longStream: await streamedVsWhole(client, texts.long, voice, plan.idleRepeats)
  }
}

async function closedRate (phase: WindowSpec, concurrency: number, send: () => Promise<Sample>): Promise<{ rps: number, audio: number, errors: number }> {
  const loop = await runClosedLoop({ warmupMs: phase.warmupMs, durationMs: phase.durationMs, requests: phase.requests, concurrency, send })
  const level = summariseLevel({ model: 'closed', load: concurrency, loop, server: null, ceiling: null })
  return { rps: level.requestsPerSecond, audio: level.audioSecondsPerSecond, errors: level.requests - level.ok }
}

interface Throughput {
  ceiling: CeilingResult
  /** Chorus's engine alone on the same ids, alternated with the ceiling. */
  engineCeiling: CeilingResult
  /** Chorus's engine split and chunked as the service runs it, on the same ids. */
  splitCeiling: CeilingResult
  saturation: number[]
  saturationRps: number
}

/** Ceiling runs and saturation runs, alternated. Each round gives both
 * engines and the service the same batch of corpus texts (the same phoneme
 * ids), each text once: its mix of short and long sentences, which moves a
 * run's audio seconds per second by several percent, is then the same on
 * both sides of the ratio. */
async function measureThroughput (client: BenchClient, bench: EngineBench, engine: EngineBench, split: EngineBench, plan: Plan, works: WorkItem[], range: TextRange, workers: number, progress: Progress): Promise<Throughput> {
  const concurrency = workers * plan.saturation.clientsPerWorker
  progress.note(`ceiling and saturation on the same ${plan.batchTexts} texts (${concurrency} clients), ${plan.throughputRepeats} rounds`)
  const ceilingRuns: ThroughputRun[] = []
  const engineRuns: ThroughputRun[] = []
  const splitRuns: ThroughputRun[] = []
  const saturation: number[] = []
  const rps: number[] = []
  let errors = 0
  for (let r = 0; r < plan.throughputRepeats; r++) {
    const offset = (r * plan.batchTexts) % range.count
    const batch = { first: range.first + offset, count: Math.min(plan.batchTexts, range.count - offset) }
    const runCeiling = async () => {
      ceilingRuns.push(await bench.batch(batch))
      engineRuns.push(await engine.batch(batch))
      splitRuns.push(await split.batch(batch))
    }
    const runSaturation = async () => {
      // Each text once, from the first request to the last byte of the last.
      const batchWorks = works.slice(offset, offset + batch.count)
      let next = 0
      const run = await closedRate({ warmupMs: 0, requests: batchWorks.length }, concurrency, async () => await client.synthesize(batchWorks[next++]))
      saturation.push(run.audio)
      rps.push(run.rps)
      errors += run.errors
    }
    if (r % 2 === 0) await runCeiling().then(runSaturation)
    else await runSaturation().then(runCeiling)
  }
  if (errors > 0) throw new ChorusError('ERR_BENCH_SERVICE', `${errors} saturation requests failed (see the service log)`)
  const seconds = Math.round(median(ceilingRuns.map(run => run.wallMs)) / 1000)
  const texts = { first: range.first, count: Math.min(range.count, plan.batchTexts * plan.throughputRepeats) }
  return {
    ceiling: bench.ceilingOf(ceilingRuns, seconds, texts),
    engineCeiling: engine.ceilingOf(engineRuns, seconds, texts),
    splitCeiling: split.ceilingOf(splitRuns, seconds, texts),
    saturation,
    saturationRps: median(rps)
  }
}

/** Every RSS sample of process `pid`, every `everyMs`, while `during` runs (one before, one after). */
async function sampleRss<T> (pid: number, everyMs: number, during: () => Promise<T>): Promise<{ result: T, samples: number[] }> {
  const samples = [await residentBytes(pid)]
  let running = true
  const sampling = (async () => {
    while (running) {
      await new Promise(resolve => setTimeout(resolve, everyMs))
      if (running) samples.push(await residentBytes(pid))
    }
  })()
  try {
    return { result: await during(), samples }
  } finally {
    running = false
    await sampling
    samples.push(await residentBytes(pid))
  }
}

interface MemoryFigures {
  /** RSS at start-up, no voice loaded. */
  baselineBytes: number
  /** Median RSS while the corpus runs at saturation. */
  steadyBytes: number
  unpunctuated: { peakBytes: number, ok: boolean, failure?: string }
}

/** The service's own memory, in a process of its own (an in-process
 * service would share its RSS with the harness and the bare engine): at
 * start-up, under the corpus at saturation, and at its peak while it
 * answers the unpunctuated text. */
async function measureMemory (config: TargetsConfig, plan: Plan, spec: WorkloadSpec, workers: number, io: BenchIo, progress: Progress): Promise<MemoryFigures> {
  progress.note('memory: the service in a process of its own, under the corpus, then the unpunctuated text')
  // The figure is memory, not time: the unpunctuated text gets the time it
  // needs (minutes of audio; a slow or shared machine passes the default 60 s)
  // unless the operator set a limit.
  const timeoutSeconds = io.env.TTS_TIMEOUT_SECONDS ?? String(UNPUNCTUATED_TIMEOUT_SECONDS)
  const overrides = { TTS_VOICE_DIR: config.voiceDir, TTS_DEFAULT_VOICE: config.voice, TTS_PRELOAD_VOICES: '', TTS_CACHE_BYTES: '0', TTS_TIMEOUT_SECONDS: timeoutSeconds }
  const child = await startChildService(io.env, overrides, join(config.outDir, 'service-memory.log'))
  const client = new BenchClient(child.url, (Number(timeoutSeconds) + 30) * 1000)
  try {
    const baselineBytes = await residentBytes(child.pid)
    await request(client, item('Warming up.', config.voice))
    const workload = new Workload(spec, 99)
    const concurrency = workers * plan.saturation.clientsPerWorker
    const { samples } = await sampleRss(child.pid, 250, async () => {
      await closedRate(plan.saturation, concurrency, async () => await client.synthesize(workload.next()))
    })
    progress.note(`${UNPUNCTUATED.length} characters without punctuation, peak RSS`)
    const peak = await sampleRss(child.pid, 20, async () => await client.synthesize(item(UNPUNCTUATED, config.voice)))
    return {
      baselineBytes,
      // Samples from the measured window on (the warm-up's first quarter is the voice loading).
      steadyBytes: median(samples.slice(Math.floor(samples.length * plan.saturation.warmupMs / (plan.saturation.warmupMs + plan.saturation.durationMs)))),
      unpunctuated: {
        peakBytes: Math.max(...peak.samples),
        ok: peak.result.error === undefined,
        ...(peak.result.error !== undefined ? { failure: `${peak.result.error}${peak.result.message !== undefined ? `: ${peak.result.message}` : ''}` } : {})
      }
    }
  } finally {
    client.close()
    await child.stop()
  }
}

interface LoadFigures {
  openP99Ms: number | null
  openErrors: number
  openRate: number
  openSendLagP99: number | null
  uncachedRps: number
  healthRps: number
}

/** The open loop's request at a share of the ceiling, then the uncached phrase and GET /health rates. */
async function measureLoad (client: BenchClient, plan: Plan, texts: Texts, voice: string, rate: number, concurrency: number, progress: Progress): Promise<LoadFigures> {
  progress.note(`open loop: ${rate.toFixed(2)} requests/s (${plan.openLoop.share * 100} % of the ceiling) for ${plan.openLoop.durationMs / 1000} s`)
  const openWork = item(texts.open, voice)
  const loop = await runOpenLoop({
    warmupMs: Math.min(plan.openLoop.warmupMs, OPEN_LOOP_MAX_REQUESTS / 10 / rate * 1000),
    requests: Math.min(OPEN_LOOP_MAX_REQUESTS, Math.max(1, Math.round(rate * plan.openLoop.durationMs / 1000))),
    rate,
    arrivals: 'constant',
    rng: new Rng(1),
    maxInFlight: 1024,
    send: async due => await client.synthesize(openWork, due)
  })
  const open = summariseLevel({ model: 'open', load: rate, loop, server: null, ceiling: null })
  progress.note('uncached phrase rate, GET /health rate')
  const phrase = item(texts.phrase, voice)
  const uncached = await closedRate(plan.uncached, concurrency, async () => await client.synthesize(phrase))
  const health = await closedRate(plan.health, plan.health.concurrency, async () => await client.health())
  return {
    openP99Ms: open.latencyMs?.p99 ?? null,
    openErrors: open.requests - open.ok,
    openRate: rate,
    openSendLagP99: open.sendLagMs?.p99 ?? null,
    uncachedRps: uncached.rps,
    healthRps: health.rps
  }
}

/** The repeated phrase on a service with its phrase cache on (TTS_CACHE_BYTES as configured). */
async function measureCached (config: TargetsConfig, plan: Plan, texts: Texts, io: BenchIo, notes: string[]): Promise<number> {
  const service = await startInProcess({ voiceDir: config.voiceDir, defaultVoice: config.voice, env: io.env, logFile: join(config.outDir, 'service-cached.log') })
  const client = new BenchClient(service.url, 60_000)
  try {
    const phrase = item(texts.phrase, config.voice)
    await request(client, phrase)
    const scraper = new MetricsScraper(client, 1000)
    await scraper.start()
    const run = await closedRate(plan.cached, 16, async () => await client.synthesize(phrase))
    const server = await scraper.stop()
    if ((server?.cacheHits ?? 0) === 0) notes.push('the cached phase saw no cache hits in /metrics: is the phrase cache on (TTS_CACHE_BYTES > 0)?')
    if (run.errors > 0) notes.push(`the cached phase had ${run.errors} failed requests`)
    return run.rps
  } finally {
    client.close()
    await service.close()
  }
}

interface Measured {
  served: ServedVoice
  workers: number
  idle: IdleFigures
  throughput: Throughput
  load: LoadFigures
  /** The corpus workload of the saturation runs. */
  spec: WorkloadSpec
}

/** Everything but the cached phrase: the service with its cache off, and the bare engine beside it. */
async function measureUncached (config: TargetsConfig, plan: Plan, texts: Texts, io: BenchIo, progress: Progress, notes: string[]): Promise<Measured> {
  const spec: WorkloadSpec = { texts: { kind: 'corpus' }, seed: config.seed, voices: [{ name: config.voice, weight: 1 }], multiSpeaker: new Set(), synthesis: {}, stream: false, repeatRatio: 0 }
  progress.note(`starting the service (phrase cache off) over ${config.voiceDir}`)
  // The cache off: every request of the uncached figures must reach the engine.
  const service = await startInProcess({ voiceDir: config.voiceDir, defaultVoice: config.voice, env: io.env, logFile: join(config.outDir, 'service.log'), overrides: { TTS_CACHE_BYTES: '0' } })
  const client = new BenchClient(service.url, 60_000)
  try {
    const served = (await describeService(client)).voices.get(config.voice)
    if (served === undefined) throw new ConfigError(`Voice ${config.voice} is not in ${config.voiceDir}`)
    progress.note('starting the bare-engine workers: onnxruntime-node (the ceiling) and Chorus\'s engine alone')
    const options = {
      voices: [{ name: config.voice, modelPath: join(config.voiceDir, `${config.voice}.onnx`) }],
      synthesis: {},
      workers: CORES,
      ortLibrary: io.env.CHORUS_ORT_LIBRARY,
      espeakData: io.env.CHORUS_ESPEAK_DATA
    }
    const engine = await EngineBench.start({ ...options, engine: 'chorus' })
    let outside: EngineBench | undefined
    let split: EngineBench | undefined
    let idle: IdleFigures
    let throughput: Throughput
    try {
      // The ceiling runs on the sweep's corpus texts, as `chorus bench` does;
      // Chorus's engine phonemizes every text and onnxruntime-node runs its ids.
      const corpus = new Workload(spec).take(CEILING_TEXTS)
      const corpusTexts = corpus.map(work => work.text)
      const counts = await engine.prepare([...BARE_TEXTS.map(([key]) => texts[key]), ...corpusTexts].map(text => ({ voice: config.voice, text })))
      BARE_TEXTS.forEach(([key, n], i) => { if (counts[i] !== n) notes.push(`the ${key} text phonemizes to ${counts[i]} sentences, not ${n}`) })
      outside = await EngineBench.start({ ...options, engine: 'onnxruntime' })
      await outside.prepareLike(engine)
      split = await EngineBench.start({ ...options, engine: 'chorus-split' })
      await split.prepareLike(engine)
      idle = await measureIdle(client, outside, plan, texts, config.voice, progress)
      throughput = await measureThroughput(client, outside, engine, split, plan, corpus, { first: BARE_TEXTS.length, count: CEILING_TEXTS }, service.workersPerVoice, progress)
    } finally {
      await Promise.all([engine.close(), outside?.close(), split?.close()])
    }
    const rate = plan.openLoop.share * throughput.ceiling.audioSecondsPerSecond / idle.open.bareAudioSeconds
    const load = await measureLoad(client, plan, texts, config.voice, rate, service.workersPerVoice * plan.saturation.clientsPerWorker, progress)
    return { served, workers: service.workersPerVoice, idle, throughput, load, spec }
  } finally {
    client.close()
    await service.close()
  }
}

/** A measured pair, its ratio and whether it meets its target. */
export function figure (id: string, name: string, a: number | null, b: number | null, unit: (v: number) => string, op: '<=' | '>=', value: number): TargetFigure {
  const ratio = a === null || b === null || !(b > 0) ? null : a / b
  return {
    id,
    figure: name,
    measured: a === null || b === null ? 'not measured' : `${unit(a)} vs ${unit(b)}`,
    ratio,
    target: { op, value },
    met: ratio === null ? null : op === '<=' ? ratio <= value : ratio >= value
  }
}

const ms = (v: number) => `${num(v)} ms`
const perSecond = (unit: string) => (v: number) => `${num(v)} ${unit}`

/** Issue 10's bound on one request's memory, whatever its text. */
const PEAK_RSS_LIMIT = 1.5e9

function figures (m: Measured, memory: MemoryFigures, cachedRps: number, share: number): TargetFigure[] {
  // Steady state under the corpus: what the service's process gained over
  // its start-up, per worker.
  const perWorker = (memory.steadyBytes - memory.baselineBytes) / m.workers
  const { idle, throughput } = m
  const megabytes = (v: number) => `${(v / 1e6).toFixed(0)} MB`
  return [
    figure('saturation', 'throughput at saturation vs the outside ceiling (onnxruntime-node on the unmodified model)', median(throughput.saturation), throughput.ceiling.audioSecondsPerSecond, perSecond('audio s/s'), '>=', 0.95),
    figure('engine-alone', 'Chorus\'s engine alone (whole graph, no service) vs the outside ceiling', throughput.engineCeiling.audioSecondsPerSecond, throughput.ceiling.audioSecondsPerSecond, perSecond('audio s/s'), '>=', 0.95),
    figure('engine-split', 'Chorus\'s engine split as the service runs it (no service) vs the outside ceiling', throughput.splitCeiling.audioSecondsPerSecond, throughput.ceiling.audioSecondsPerSecond, perSecond('audio s/s'), '>=', 0.95),
    figure('short-idle', 'one short sentence, idle: latency vs onnxruntime-node', idle.short.service, idle.short.bareMs, ms, '<=', 1.15),
    figure('reply6-idle', '6-sentence reply, idle: latency vs onnxruntime-node sentence by sentence', idle.reply6.service, idle.reply6.bareMs, ms, '<=', 0.65),
    figure('stream10-ttfb', 'streaming 10 sentences: TTFB vs onnxruntime-node\'s first sentence', idle.stream10.service, idle.stream10.bareMs, ms, '<=', 1.3),
    figure('open70-p99', `open loop at ${share * 100} % of ceiling: p99 vs idle latency`, m.load.openP99Ms, idle.open.service, ms, '<=', 3),
    figure('cache-hit', 'repeated phrase: cached vs uncached requests/s', cachedRps, m.load.uncachedRps, perSecond('req/s'), '>=', 50),
    figure('rss-per-worker', 'steady-state RSS per worker under the corpus vs model file', perWorker, m.served.modelBytes, megabytes, '<=', 2.5),
    figure('long-stream-first', `streamed ${LONG_WORDS}-word sentence: first audio vs the whole non-streamed answer`, idle.longStream.firstAudioMs, idle.longStream.wholeMs, ms, '<=', 0.35),
    figure('long-idle', `one ${LONG_WORDS}-word sentence, idle: latency vs its one-worker time`, idle.long.service, idle.long.bareMs, ms, '<=', 0.65),
    figure('unpunctuated-rss', `${UNPUNCTUATED.length} unpunctuated characters: peak RSS of the service vs ${megabytes(PEAK_RSS_LIMIT)}${memory.unpunctuated.ok ? '' : ` (NOT answered: ${memory.unpunctuated.failure ?? 'no reason given'})`}`,
      memory.unpunctuated.ok ? memory.unpunctuated.peakBytes : null, PEAK_RSS_LIMIT, megabytes, '<=', 1)
  ]
}

export async function runTargets (config: TargetsConfig, io: BenchIo): Promise<TargetsResults> {
  const startedAt = new Date().toISOString()
  const modelPath = join(config.voiceDir, `${config.voice}.onnx`)
  if (!existsSync(modelPath)) throw new ConfigError(expectedMessage(`a voice with a model in ${config.voiceDir} (there is no ${modelPath})`, '--voice', config.voice))
  const plan = config.quick ? QUICK : FULL
  const progress = new Progress({ stream: io.stderr, enabled: io.stderrIsTTY || config.progress, inPlace: io.stderrIsTTY })
  const notes: string[] = config.quick ? ['--quick: short phases, rough figures'] : []
  await mkdir(config.outDir, { recursive: true })
  const texts = pickTexts(config.seed)
  const m = await measureUncached(config, plan, texts, io, progress, notes)
  const memory = await measureMemory(config, plan, m.spec, m.workers, io, progress)
  progress.note('repeated phrase with the phrase cache on')
  const cachedRps = await measureCached(config, plan, texts, io, notes)
  if (m.load.openErrors > 0) notes.push(`the open loop had ${m.load.openErrors} failed requests (not in its p99)`)
  const results: TargetsResults = {
    ...resultsHeader('targets', config.label, startedAt),
    voice: config.voice,
    modelBytes: m.served.modelBytes,
    workersPerVoice: m.workers,
    ceiling: m.throughput.ceiling,
    figures: figures(m, memory, cachedRps, plan.openLoop.share),
    info: [
      { figure: 'saturation runs (audio s/s)', value: m.throughput.saturation.map(num).join(', ') },
      { figure: 'open loop', value: `${num(m.load.openRate)} requests/s of a ${num(m.idle.open.bareAudioSeconds)} s reply, constant arrivals; harness send lag p99 ${num(m.load.openSendLagP99)} ms` },
      { figure: 'service memory', value: `RSS ${(memory.baselineBytes / 1e6).toFixed(0)} MB at start-up (no voice), ${(memory.steadyBytes / 1e6).toFixed(0)} MB under the corpus (median), ${(memory.unpunctuated.peakBytes / 1e6).toFixed(0)} MB peak on the unpunctuated text` },
      { figure: 'harness headroom', value: `GET /health at ${num(m.load.healthRps)} req/s, ${num(m.load.healthRps / m.throughput.saturationRps)}× the synthesis request rate at saturation (${num(m.throughput.saturationRps)} req/s)` }
    ],
    notes
  }
  await writeOutputs(config.outDir, results)
  io.stdout.write(targetsSummary(results, config.outDir))
  return results
}
