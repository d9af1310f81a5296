// A sweep: the service (started here or already running), the bare-engine
// ceiling while the service is idle, then each load level in turn with a
// warm-up, /metrics sampled throughout, and the files written at the end.

import { existsSync } from 'node:fs'
import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ConfigError } from '../src/errors.js'
import { levelLabel, summariseLevel } from './aggregate.js'
import { EngineBench, type ThroughputRun } from './ceiling.js'
import { BenchClient, type Sample } from './client.js'
import { runClosedLoop } from './closed-loop.js'
import type { LoadLevel, RunConfig } from './config.js'
import { Rng } from './corpus.js'
import type { LoopResult, WindowSpec } from './loop.js'
import { MetricsScraper } from './metrics-scrape.js'
import { runOpenLoop } from './open-loop.js'
import { resultsHeader, writeOutputs } from './output.js'
import type { BenchIo } from './io.js'
import { Progress } from './progress.js'
import type { CeilingResult, LevelResult, ServerFigures, SweepResults } from './results.js'
import { checkVoices, describeService, startInProcess, type InProcessService, type ServiceInfo } from './service.js'
import { sweepSummary } from './summary.js'
import { makeVoiceCopies, type VoiceCopies } from './voice-copies.js'
import { Workload, type TextSource, type VoiceWeight, type WorkloadSpec } from './workload.js'

/** Texts the ceiling runs: the start of the first level's own sequence. */
const CEILING_TEXTS = 200

async function readTexts (path: string | null): Promise<TextSource> {
  if (path === null) return { kind: 'corpus' }
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new ConfigError(`Cannot read --text-file ${path}: ${(error as Error).message}`)
  }
  const lines = text.split('\n').map(line => line.trim()).filter(line => line !== '')
  if (lines.length === 0) throw new ConfigError(`Expected at least one line of text in --text-file ${path}`)
  return { kind: 'file', path, lines }
}

function workloadSpec (config: RunConfig, texts: TextSource, info: ServiceInfo, copies: VoiceCopies | undefined): WorkloadSpec {
  const voices = copies?.names.map(name => ({ name, weight: 1 })) ?? config.voices ?? [{ name: info.defaultVoice, weight: 1 }]
  checkVoices(voices.map(v => v.name), info)
  return {
    texts,
    seed: config.seed,
    voices,
    multiSpeaker: new Set(voices.filter(v => (info.voices.get(v.name)?.numSpeakers ?? 1) > 1).map(v => v.name)),
    synthesis: config.synthesis,
    stream: config.stream,
    repeatRatio: config.repeatRatio,
    roundRobin: copies !== undefined
  }
}

interface Ceilings {
  /** onnxruntime-node on the unmodified model: the reference the levels are measured against. */
  ceiling: CeilingResult
  /** Chorus's engine alone, on the same ids in the same run. */
  engineCeiling: CeilingResult
}

/** The ceilings, or why there are none (a note for the report). */
async function measureCeilings (config: RunConfig, spec: WorkloadSpec, env: BenchIo['env'], progress: Progress): Promise<Ceilings | string> {
  if (config.ceiling === null) return 'the ceiling was not measured (--no-ceiling or GET /health)'
  if (config.voiceDir === null) return 'the ceiling was not measured: pass --voices DIR with the models the service uses'
  const voices = spec.voices.map(v => ({ name: v.name, modelPath: join(config.voiceDir as string, `${v.name}.onnx`) }))
  const missing = voices.filter(v => !existsSync(v.modelPath))
  if (missing.length > 0) return `the ceiling was not measured: no model ${missing.map(v => v.modelPath).join(', ')}`
  const { seconds, repeats, workers } = config.ceiling
  progress.note(`measuring the ceilings (onnxruntime-node, then Chorus's engine, alternating): ${workers} workers, ${repeats} × ${seconds} s each`)
  const options = { voices, synthesis: config.synthesis, workers, ortLibrary: env.CHORUS_ORT_LIBRARY, espeakData: env.CHORUS_ESPEAK_DATA }
  const engine = await EngineBench.start({ ...options, engine: 'chorus' })
  let outside: EngineBench | undefined
  try {
    await engine.prepare(new Workload(spec).take(CEILING_TEXTS).map(item => ({ voice: item.voice, text: item.text })))
    outside = await EngineBench.start({ ...options, engine: 'onnxruntime' })
    await outside.prepareLike(engine)
    // Alternated, so a machine that gets busier part-way weighs on both alike.
    const runs: { outside: ThroughputRun[], engine: ThroughputRun[] } = { outside: [], engine: [] }
    for (let r = 0; r < repeats; r++) {
      const order = r % 2 === 0 ? ['outside', 'engine'] as const : ['engine', 'outside'] as const
      for (const which of order) runs[which].push(await (which === 'outside' ? outside : engine).throughput(seconds * 1000))
    }
    return { ceiling: outside.ceilingOf(runs.outside, seconds), engineCeiling: engine.ceilingOf(runs.engine, seconds) }
  } finally {
    await Promise.all([engine.close(), outside?.close()])
  }
}

/** A level's rate in requests per second; a share of the ceiling becomes one through audio per text. */
function levelLoad (level: LoadLevel, ceiling: CeilingResult | null): number {
  if (level.kind !== 'ceiling-share') return level.value
  if (ceiling === null || ceiling.audioSecondsPerText <= 0) throw new ConfigError('A share of the ceiling for --rate needs a measured ceiling')
  return level.value * ceiling.audioSecondsPerSecond / ceiling.audioSecondsPerText
}

interface LevelContext {
  config: RunConfig
  client: BenchClient
  spec: WorkloadSpec | null
  ceiling: CeilingResult | null
  seen: Set<string>
  progress: Progress
}

async function runLevel (ctx: LevelContext, level: LoadLevel, index: number): Promise<LevelResult> {
  const { config, client, spec, progress } = ctx
  const workload = spec === null ? null : new Workload(spec, index, ctx.seen)
  const send = async (due?: number): Promise<Sample> => workload === null ? await client.health(due) : await client.synthesize(workload.next(), due)
  const load = levelLoad(level, ctx.ceiling)
  const window: WindowSpec = {
    warmupMs: config.warmupSeconds * 1000,
    ...(config.durationSeconds !== null ? { durationMs: config.durationSeconds * 1000 } : { requests: config.requests as number })
  }
  const scraper = new MetricsScraper(client, config.scrapeIntervalMs)
  await scraper.start()
  progress.begin(levelLabel({ model: config.model, load }), window.durationMs !== undefined ? { ms: window.warmupMs + window.durationMs } : { requests: window.requests as number }, () => scraper.latest)
  const onSample = (sample: Sample) => progress.sample(sample)
  let loop: LoopResult
  let server: ServerFigures | null
  try {
    loop = config.model === 'closed'
      ? await runClosedLoop({ ...window, concurrency: load, send, onSample })
      : await runOpenLoop({ ...window, rate: load, arrivals: config.arrivals, rng: new Rng(config.seed).fork(1000 + index), send, maxInFlight: config.maxInFlight, onSample })
  } finally {
    progress.end()
    server = await scraper.stop()
  }
  return summariseLevel({ model: config.model, load, loop, server, ceiling: ctx.ceiling?.audioSecondsPerSecond ?? null })
}

interface SweepParts {
  config: RunConfig
  texts: TextSource
  spec: WorkloadSpec | null
  url: string
  service: InProcessService | undefined
  ceiling: CeilingResult | null
  engineCeiling: CeilingResult | null
  levels: LevelResult[]
  notes: string[]
  startedAt: string
}

function sweepResults ({ config, texts, spec, url, service, ceiling, engineCeiling, levels, notes, startedAt }: SweepParts): SweepResults {
  return {
    ...resultsHeader('sweep', config.label, startedAt),
    target: { url, inProcess: service !== undefined, voiceDir: config.voiceDir, workersPerVoice: service?.workersPerVoice ?? null },
    endpoint: config.endpoint,
    workload: {
      texts: texts.kind === 'corpus' ? 'corpus' : { file: texts.path, lines: texts.lines.length },
      seed: config.seed,
      voices: spec?.voices.map(v => ({ ...v })) ?? [],
      synthesis: config.synthesis,
      stream: config.stream,
      repeatRatio: config.repeatRatio
    },
    load: {
      model: config.model,
      arrivals: config.model === 'open' ? config.arrivals : null,
      warmupSeconds: config.warmupSeconds,
      durationSeconds: config.durationSeconds,
      requestsPerLevel: config.requests,
      timeoutSeconds: config.timeoutSeconds
    },
    ceiling,
    engineCeiling,
    levels,
    notes
  }
}

export async function runSweep (config: RunConfig, io: BenchIo): Promise<SweepResults> {
  const startedAt = new Date().toISOString()
  const progress = new Progress({ stream: io.stderr, enabled: io.stderrIsTTY || config.progress, inPlace: io.stderrIsTTY })
  const texts = await readTexts(config.textFile)
  await mkdir(config.outDir, { recursive: true })
  let service: InProcessService | undefined
  let client: BenchClient | undefined
  let copies: VoiceCopies | undefined
  try {
    if (config.voiceCopies !== null) {
      // parseRunConfig made sure of --voices and one --voice.
      const voice = (config.voices as VoiceWeight[])[0].name
      copies = await makeVoiceCopies(config.voiceDir as string, voice, config.voiceCopies, join(config.outDir, 'voice-copies'))
      progress.note(`many voices: ${voice} installed as ${copies.names.length} voices, sent round-robin`)
    }
    if (config.url === null) {
      const voiceDir = copies?.dir ?? config.voiceDir as string
      progress.note(`starting the service in-process over ${voiceDir}`)
      service = await startInProcess({ voiceDir, defaultVoice: copies?.names[0] ?? config.voices?.[0].name, env: io.env, logFile: join(config.outDir, 'service.log') })
    }
    const url = config.url ?? (service as InProcessService).url
    client = new BenchClient(url, config.timeoutSeconds * 1000, config.format)
    const info = await describeService(client)
    const spec = config.endpoint === 'tts' ? workloadSpec(config, texts, info, copies) : null
    const notes: string[] = []
    if (copies !== undefined) notes.push(`many voices: one model under ${copies.names.length} names, sent round-robin; the ceiling is the one voice's`)
    let ceiling: CeilingResult | null = null
    let engineCeiling: CeilingResult | null = null
    if (spec !== null) {
      // The copies are one model: the ceiling runs it once, on the same texts.
      const ceilingSpec = copies === undefined ? spec : { ...spec, voices: config.voices as VoiceWeight[], roundRobin: false }
      const measured = await measureCeilings(config, ceilingSpec, io.env, progress)
      if (typeof measured === 'string') notes.push(measured)
      else ({ ceiling, engineCeiling } = measured)
    }
    const ctx: LevelContext = { config, client, spec, ceiling, seen: new Set(), progress }
    const levels: LevelResult[] = []
    for (const [index, level] of config.levels.entries()) levels.push(await runLevel(ctx, level, index))
    if (levels.some(level => (level.server?.cacheHits ?? 0) > 0)) {
      notes.push('the phrase cache answered some requests (see cache hits): those cost the engine nothing')
    }
    const results = sweepResults({ config, texts, spec, url, service, ceiling, engineCeiling, levels, notes, startedAt })
    await writeOutputs(config.outDir, results)
    io.stdout.write(sweepSummary(results, config.outDir))
    return results
  } finally {
    client?.close()
    await service?.close()
    await copies?.remove()
  }
}
