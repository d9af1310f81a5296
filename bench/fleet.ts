// `chorus bench fleet`: the figures of a fleet of voices, each against its
// reference in one run.
//   0. The outside ceiling (onnxruntime-node on the unmodified model, one
//      worker per core) on the corpus, before any service starts: the mix and
//      the one voice are reported as shares of it too.
//   1. Throughput and p99: one service serves the voice under its own name
//      and under N more (hard links of one model); closed loops of C clients
//      alternate between the one voice and round-robin over the N (one, N,
//      N, one, …), so the machine's drift hits both; medians are quoted.
//   2. RSS of one voice: a `chorus serve` process of its own with no voice
//      loaded, then one request to the voice; the RSS it added against the
//      model file.
//   3. RSS after churn: a process with room for two voices is sent K
//      requests round-robin over the N (every one a load and an unload),
//      then left idle; a fresh process loads only the last two. Idle RSS of
//      one against the other.

import { existsSync } from 'node:fs'
import { mkdir, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ChorusError, ConfigError } from '../src/errors.js'
import { CORES } from '../src/shared/config-values.js'
import { expectedMessage } from '../src/validate.js'
import { summariseLevel } from './aggregate.js'
import { outsideCeiling } from './ceiling.js'
import { startChildService, type ChildService } from './child-service.js'
import { BenchClient } from './client.js'
import { runClosedLoop } from './closed-loop.js'
import type { FleetConfig } from './config.js'
import type { BenchIo } from './io.js'
import { MetricsScraper, parsePrometheus } from './metrics-scrape.js'
import { resultsHeader } from './output.js'
import { Progress } from './progress.js'
import type { FleetResults, TargetFigure } from './results.js'
import { startInProcess } from './service.js'
import { median } from './stats.js'
import { targetsTable } from './summary.js'
import { num } from './table.js'
import { figure } from './targets.js'
import { makeVoiceCopies, type VoiceCopies } from './voice-copies.js'
import { requestBody, Workload, type WorkItem, type WorkloadSpec } from './workload.js'

interface Plan {
  /** Rounds of (one voice, N voices), the order alternating. */
  rounds: number
  /** The outside ceiling: repeats of seconds each (median). */
  ceiling: { seconds: number, repeats: number }
  warmupMs: number
  durationMs: number
  /** Waits for the allocator and the pools to settle before an idle RSS is read. */
  settleMs: number
}

const FULL: Plan = { rounds: 2, ceiling: { seconds: 8, repeats: 3 }, warmupMs: 5000, durationMs: 30_000, settleMs: 3000 }
const QUICK: Plan = { rounds: 1, ceiling: { seconds: 1, repeats: 1 }, warmupMs: 300, durationMs: 2000, settleMs: 200 }

/** Nothing loads at start-up in the memory phases: the built-in voice is the default. */
const NO_VOICE = { TTS_DEFAULT_VOICE: 'en_US-espeak-low', TTS_PRELOAD_VOICES: '', TTS_CACHE_BYTES: '0', CHORUS_INSTALL_BUNDLED: '0' }

const MB = (v: number) => `${(v / 1e6).toFixed(1)} MB`
const ms = (v: number) => `${num(v)} ms`
const audio = (v: number) => `${num(v)} audio s/s`

function item (text: string, voice: string): WorkItem {
  return { text, voice, repeated: false, body: requestBody(text, voice, { synthesis: {}, stream: false, multiSpeaker: new Set() }) }
}

async function speak (client: BenchClient, voice: string, text: string): Promise<void> {
  const sample = await client.synthesize(item(text, voice))
  if (sample.error !== undefined) throw new ChorusError('ERR_BENCH_RUN', `POST /tts with ${voice} failed with ${sample.error}${sample.message === undefined ? '' : `: ${sample.message}`}`)
}

async function rss (client: BenchClient): Promise<number> {
  const value = parsePrometheus(await client.getText('/metrics')).get('process_resident_memory_bytes')
  if (value === undefined) throw new ChorusError('ERR_BENCH_RUN', `${client.baseUrl}/metrics has no process_resident_memory_bytes`)
  return value
}

interface MixRun { audio: number, p99: number | null, loads: number | null, evictions: number | null, errors: number }

interface MixFigures { one: MixRun[], fleet: MixRun[], workers: number }

async function measureMix (config: FleetConfig, plan: Plan, copies: VoiceCopies, io: BenchIo, progress: Progress): Promise<MixFigures> {
  progress.note(`starting the service over ${config.voice} and ${copies.names.length} copies (phrase cache off)`)
  const service = await startInProcess({ voiceDir: copies.dir, defaultVoice: config.voice, env: io.env, logFile: join(config.outDir, 'service.log'), overrides: { TTS_CACHE_BYTES: '0' } })
  const client = new BenchClient(service.url, 120_000)
  try {
    progress.note('one warm request per voice')
    for (const name of [config.voice, ...copies.names]) await speak(client, name, 'Warming up.')
    const base = { texts: { kind: 'corpus' } as const, seed: config.seed, multiSpeaker: new Set<string>(), synthesis: {}, stream: false, repeatRatio: 0 }
    const specs: Record<'one' | 'fleet', WorkloadSpec> = {
      one: { ...base, voices: [{ name: config.voice, weight: 1 }] },
      fleet: { ...base, voices: copies.names.map(name => ({ name, weight: 1 })), roundRobin: true }
    }
    const seen = new Set<string>()
    const result: MixFigures = { one: [], fleet: [], workers: service.workersPerVoice }
    let stream = 0
    const run = async (kind: 'one' | 'fleet'): Promise<void> => {
      progress.note(`${kind === 'one' ? 'one voice' : `${copies.names.length} voices round-robin`}, ${config.clients} clients, ${plan.durationMs / 1000} s`)
      const workload = new Workload(specs[kind], stream++, seen)
      const scraper = new MetricsScraper(client, 1000)
      await scraper.start()
      const loop = await runClosedLoop({ warmupMs: plan.warmupMs, durationMs: plan.durationMs, concurrency: config.clients, send: async () => await client.synthesize(workload.next()) })
      const server = await scraper.stop()
      const level = summariseLevel({ model: 'closed', load: config.clients, loop, server, ceiling: null })
      result[kind].push({ audio: level.audioSecondsPerSecond, p99: level.latencyMs?.p99 ?? null, loads: server?.voiceLoads ?? null, evictions: server?.voiceEvictions ?? null, errors: level.requests - level.ok })
    }
    for (let r = 0; r < plan.rounds; r++) {
      if (r % 2 === 0) await run('one').then(async () => await run('fleet'))
      else await run('fleet').then(async () => await run('one'))
    }
    return result
  } finally {
    client.close()
    await service.close()
  }
}

async function withChild<T> (io: BenchIo, overrides: Record<string, string>, logFile: string, use: (client: BenchClient) => Promise<T>): Promise<T> {
  const child: ChildService = await startChildService(io.env, overrides, logFile)
  const client = new BenchClient(child.url, 120_000)
  try {
    return await use(client)
  } finally {
    client.close()
    await child.stop()
  }
}

/** Waits until no pool is retiring and exactly `names` are loaded, then lets the allocator settle. */
async function settled (client: BenchClient, names: readonly string[], settleMs: number): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const details = ((await client.getJson('/voices')) as { details: Array<{ name: string, state?: string, builtin?: boolean }> }).details
    const loaded = details.filter(d => d.builtin !== true && d.state === 'loaded').map(d => d.name).sort()
    if (!details.some(d => d.state === 'retiring' || d.state === 'loading') && loaded.join() === [...names].sort().join()) {
      await new Promise(resolve => setTimeout(resolve, settleMs))
      return
    }
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  throw new ChorusError('ERR_BENCH_RUN', `${client.baseUrl} never settled with ${names.join(', ')} loaded`)
}

interface MemoryFigures {
  empty: number
  /** With the first voice loaded. */
  before: number
  /** RSS after each further voice: the voice measured, then more copies. */
  after: number[]
  reported: number | null
  churned: number
  fresh: number
  lastTwo: string[]
}

/** Further voices whose RSS is read one after another: one load's figure
 * moves by ±15 MB with what the main thread's heap and the allocator happen
 * to hold, so the figure is the median of these loads. */
const FURTHER_VOICES = 3

/** What each further voice added, in load order. */
function addedByEach (memory: MemoryFigures): number[] {
  return memory.after.map((rss, i) => rss - (i === 0 ? memory.before : memory.after[i - 1]))
}

async function measureMemory (config: FleetConfig, plan: Plan, copies: VoiceCopies, io: BenchIo, progress: Progress): Promise<MemoryFigures> {
  // The voice's own cost is what it adds to a service that already runs
  // one: the first voice of a process also pays once for ONNX Runtime's code
  // and buffers, which the next voices share. Both are reported.
  const first = copies.names[0]
  progress.note(`RSS of ${config.voice} and more copies loaded after ${first}, in a process of their own`)
  const one = await withChild(io, { ...NO_VOICE, TTS_VOICE_DIR: copies.dir }, join(config.outDir, 'service-one-voice.log'), async client => {
    await settled(client, [], plan.settleMs)
    const empty = await rss(client)
    await speak(client, first, 'Hello there.')
    await settled(client, [first], plan.settleMs)
    const before = await rss(client)
    const after: number[] = []
    const further = [config.voice, ...copies.names.slice(1, FURTHER_VOICES)]
    for (const [i, name] of further.entries()) {
      await speak(client, name, 'Hello there.')
      await settled(client, [first, ...further.slice(0, i + 1)], plan.settleMs)
      after.push(await rss(client))
    }
    const details = ((await client.getJson('/voices')) as { details: Array<{ name: string, memory_bytes?: unknown }> }).details
    const reported = details.find(d => d.name === config.voice)?.memory_bytes
    return { empty, before, after, reported: typeof reported === 'number' ? reported : null }
  })
  const cap = { ...NO_VOICE, TTS_VOICE_DIR: copies.dir, TTS_MAX_LOADED_VOICES: '2' }
  const order = Array.from({ length: config.cycles }, (_, i) => copies.names[i % copies.names.length])
  const lastTwo = order.slice(-2)
  progress.note(`${config.cycles} load/unload cycles over ${copies.names.length} voices, room for 2`)
  const churned = await withChild(io, cap, join(config.outDir, 'service-churn.log'), async client => {
    for (const [i, name] of order.entries()) await speak(client, name, `Cycle ${i + 1}.`)
    await settled(client, lastTwo, plan.settleMs)
    return await rss(client)
  })
  progress.note(`a fresh process loading ${lastTwo.join(' and ')}`)
  const fresh = await withChild(io, cap, join(config.outDir, 'service-fresh.log'), async client => {
    for (const [i, name] of lastTwo.entries()) await speak(client, name, `Cycle ${config.cycles - 1 + i}.`)
    await settled(client, lastTwo, plan.settleMs)
    return await rss(client)
  })
  return { ...one, churned, fresh, lastTwo }
}

function fleetFigures (config: FleetConfig, mix: MixFigures, memory: MemoryFigures, modelBytes: number): TargetFigure[] {
  const p99 = (runs: MixRun[]) => runs.some(r => r.p99 === null) ? null : median(runs.map(r => r.p99 as number))
  const n = config.count
  return [
    figure('fleet-throughput', `${n}-voice round-robin mix vs one voice, ${config.clients} clients: audio s/s`, median(mix.fleet.map(r => r.audio)), median(mix.one.map(r => r.audio)), audio, '>=', 0.9),
    figure('fleet-p99', `p99 latency of the ${n}-voice mix vs one voice at ${config.clients} clients`, p99(mix.fleet), p99(mix.one), ms, '<=', 1.5),
    figure('voice-rss', `RSS added by a further voice with ${mix.workers} workers (median of ${memory.after.length}) vs its model file`, median(addedByEach(memory)), modelBytes, MB, '<=', 1.5),
    figure('churn-rss', `idle RSS after ${config.cycles} load/unload cycles vs the same voices freshly loaded`, memory.churned, memory.fresh, MB, '<=', 1.1)
  ]
}

function fleetReport (r: FleetResults): string {
  return [
    `# Chorus fleet: ${r.label}`,
    '',
    `Run from ${r.startedAt} to ${r.finishedAt} on ${r.machine.cpus} cores (${r.machine.cpuModel}); load average ${r.machine.loadAverage.map(v => v.toFixed(2)).join(', ')} at the start.`,
    `Voice ${r.voice} (model ${MB(r.modelBytes)}) and ${r.voiceCount} copies of it, ${r.workersPerVoice} workers per voice, ${r.clients} clients.`,
    '',
    targetsTable(r, 'markdown'),
    '',
    ...r.info.map(i => `- ${i.figure}: ${i.value}`),
    ...(r.notes.length > 0 ? ['', '## Notes', '', ...r.notes.map(note => `- ${note}`)] : []),
    ''
  ].join('\n')
}

export async function runFleet (config: FleetConfig, io: BenchIo): Promise<FleetResults> {
  const startedAt = new Date().toISOString()
  const modelPath = join(config.voiceDir, `${config.voice}.onnx`)
  if (!existsSync(modelPath)) throw new ConfigError(expectedMessage(`a voice with a model in ${config.voiceDir} (there is no ${modelPath})`, '--voice', config.voice))
  const modelBytes = (await stat(modelPath)).size
  const plan = config.quick ? QUICK : FULL
  const progress = new Progress({ stream: io.stderr, enabled: io.stderrIsTTY || config.progress, inPlace: io.stderrIsTTY })
  await mkdir(config.outDir, { recursive: true })
  const copies = await makeVoiceCopies(config.voiceDir, config.voice, config.count, join(config.outDir, 'voice-copies'), true)
  try {
    // Before any service starts, on the corpus the mix sends: one voice's
    // model, since every copy is the same file.
    progress.note(`the outside ceiling (onnxruntime-node, ${CORES} workers, ${plan.ceiling.repeats} × ${plan.ceiling.seconds} s)`)
    const corpus = new Workload({ texts: { kind: 'corpus' }, seed: config.seed, multiSpeaker: new Set(), synthesis: {}, stream: false, repeatRatio: 0, voices: [{ name: config.voice, weight: 1 }] }).take(200).map(work => work.text)
    const ceiling = await outsideCeiling(config, corpus, { ...plan.ceiling, workers: CORES }, io.env)
    const mix = await measureMix(config, plan, copies, io, progress)
    const memory = await measureMemory(config, plan, copies, io, progress)
    const notes = config.quick ? ['--quick: short phases, rough figures'] : []
    const errors = [...mix.one, ...mix.fleet].reduce((sum, r) => sum + r.errors, 0)
    if (errors > 0) notes.push(`${errors} requests failed in the mix runs (not in the figures)`)
    const results: FleetResults = {
      ...resultsHeader('fleet', config.label, startedAt),
      voice: config.voice,
      modelBytes,
      voiceCount: config.count,
      clients: config.clients,
      workersPerVoice: mix.workers,
      figures: fleetFigures(config, mix, memory, modelBytes),
      info: [
        { figure: 'outside ceiling (onnxruntime-node on the unmodified model, one worker per core)', value: `${audio(ceiling.audioSecondsPerSecond)}; one voice ${num(median(mix.one.map(r => r.audio)) / ceiling.audioSecondsPerSecond)}×, the N-voice mix ${num(median(mix.fleet.map(r => r.audio)) / ceiling.audioSecondsPerSecond)}× of it (measured before the service started)` },
        { figure: 'mix runs (audio s/s, one voice | N voices)', value: `${mix.one.map(r => num(r.audio)).join(', ')} | ${mix.fleet.map(r => num(r.audio)).join(', ')}` },
        { figure: 'voice loads and evictions during the N-voice runs', value: mix.fleet.map(r => `${num(r.loads)} loads, ${num(r.evictions)} evictions`).join('; ') },
        { figure: `${config.voice} memory_bytes as /voices reports it`, value: memory.reported === null ? 'not reported' : MB(memory.reported) },
        { figure: `RSS with no voice, with a first voice (${copies.names[0]}), then with each further voice (${config.voice} first)`, value: [memory.empty, memory.before, ...memory.after].map(MB).join(', ') },
        { figure: 'RSS added by each further voice', value: addedByEach(memory).map(MB).join(', ') },
        { figure: 'RSS added by the first voice of a process (its share of ONNX Runtime included) vs its model file', value: `${MB(memory.before - memory.empty)}, ${num((memory.before - memory.empty) / modelBytes)}×` },
        { figure: 'voices loaded when the idle RSS was read', value: memory.lastTwo.join(', ') }
      ],
      notes
    }
    await writeFile(join(config.outDir, 'results.json'), JSON.stringify(results, null, 2) + '\n')
    await writeFile(join(config.outDir, 'report.md'), fleetReport(results))
    io.stdout.write([`chorus bench fleet: ${config.voice} as ${config.count} voices, ${config.clients} clients`, '', targetsTable(results, 'text'), '',
      ...results.info.map(i => `${i.figure}: ${i.value}`), ...notes.map(note => `note: ${note}`), '', `results: ${config.outDir}/results.json, report.md`].join('\n') + '\n')
    return results
  } finally {
    await copies.remove()
  }
}
