// `chorus bench profile`: where the time goes at saturation, against the
// outside ceiling. A `chorus serve` of its own (its threads are then only the
// service's) takes a closed loop of the corpus over HTTP, alternated with
// runs of onnxruntime-node on the same texts' phoneme ids (bench/ceiling.ts).
// For each saturation run it reads every thread's CPU time from /proc by the
// names the addon gives them (engine/task-times.ts) and the service's stage
// totals from /metrics, so a loss against the ceiling is placed: more CPU per
// audio second (which thread), or cores left idle (docs/engine.md, "Where the
// time goes").

import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { ChorusError } from '../src/errors.js'
import { CORES } from '../src/shared/config-values.js'
import { THREAD_NAMES } from '../src/engine/task-times.js'
import { summariseLevel } from './aggregate.js'
import { EngineBench, type ThroughputRun } from './ceiling.js'
import { startChildService } from './child-service.js'
import { BenchClient } from './client.js'
import { runClosedLoop } from './closed-loop.js'
import type { ProfileConfig } from './config.js'
import type { BenchIo } from './io.js'
import { Progress } from './progress.js'
import { median } from './stats.js'
import { markdownTable, textTable, type Column } from './table.js'
import { Workload, type WorkloadSpec } from './workload.js'

/** Corpus texts the ceiling runs through (as the sweep's). */
const CEILING_TEXTS = 200

/** Threads by role: the names the addon and the workers give them. */
const ROLES: Array<{ role: string, match: (name: string, main: boolean) => boolean }> = [
  { role: 'main thread (HTTP, scheduling, WAV)', match: (_, main) => main },
  { role: 'inference on the libuv pool (chorus-uv)', match: name => name === THREAD_NAMES.libuv },
  { role: 'ONNX Runtime intra-op helpers (chorus-ort)', match: name => name === 'chorus-ort' },
  { role: 'voice worker threads, their JS (chorus-voice)', match: name => name === THREAD_NAMES.voiceWorker },
  { role: 'encoder worker threads (chorus-encode)', match: name => name === THREAD_NAMES.encoderWorker },
  { role: 'other threads (V8, libuv idle, Node)', match: () => true }
]

/** Seconds of CPU per thread name (the main thread apart), from /proc/PID/task. */
async function threadCpu (pid: number): Promise<Map<string, number>> {
  const clockTicks = 100
  const byRole = new Map<string, number>()
  for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [])) {
    try {
      const [stat, comm] = await Promise.all([readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8'), readFile(`/proc/${pid}/task/${tid}/comm`, 'utf8')])
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const seconds = (Number(fields[11]) + Number(fields[12])) / clockTicks
      const role = ROLES.find(r => r.match(comm.trim(), Number(tid) === pid))?.role as string
      byRole.set(role, (byRole.get(role) ?? 0) + seconds)
    } catch {
      // The thread ended between the listing and the read: its time is lost with it.
    }
  }
  return byRole
}

/** `name{labels} value` lines with their labels, for the totals the profile needs. */
function metricValues (text: string): Array<{ name: string, labels: Record<string, string>, value: number }> {
  const out: Array<{ name: string, labels: Record<string, string>, value: number }> = []
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line)
    if (match === null || line.startsWith('#')) continue
    const labels: Record<string, string> = {}
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]] = pair[2]
    out.push({ name: match[1], labels, value: Number(match[3]) })
  }
  return out
}

interface Stages {
  requests: number
  httpSeconds: number
  audioSeconds: number
  slotSeconds: number
  waitSeconds: number
  /** Per native task kind (chorus:encode, …): wall and calling-thread CPU seconds, and count. */
  tasks: Map<string, { wall: number, cpu: number, count: number }>
}

async function stages (client: BenchClient): Promise<Stages> {
  const values = metricValues(await client.getText('/metrics'))
  const sum = (name: string, where: (labels: Record<string, string>) => boolean = () => true): number =>
    values.filter(v => v.name === name && where(v.labels)).reduce((s, v) => s + v.value, 0)
  const tasks = new Map<string, { wall: number, cpu: number, count: number }>()
  for (const v of values) {
    if (v.name !== 'chorus_engine_task_seconds_total' && v.name !== 'chorus_engine_tasks_total') continue
    const entry = tasks.get(v.labels.task) ?? { wall: 0, cpu: 0, count: 0 }
    if (v.name === 'chorus_engine_tasks_total') entry.count += v.value
    else if (v.labels.clock === 'cpu') entry.cpu += v.value
    else entry.wall += v.value
    tasks.set(v.labels.task, entry)
  }
  const tts = (labels: Record<string, string>) => labels.route === '/tts'
  return {
    requests: sum('chorus_http_request_duration_seconds_count', tts),
    httpSeconds: sum('chorus_http_request_duration_seconds_sum', tts),
    audioSeconds: sum('chorus_audio_seconds_total'),
    slotSeconds: sum('chorus_inference_slot_seconds_total'),
    waitSeconds: sum('chorus_inference_wait_seconds_total'),
    tasks
  }
}

function minus (a: Stages, b: Stages): Stages {
  const tasks = new Map<string, { wall: number, cpu: number, count: number }>()
  for (const [name, t] of a.tasks) {
    const before = b.tasks.get(name) ?? { wall: 0, cpu: 0, count: 0 }
    tasks.set(name, { wall: t.wall - before.wall, cpu: t.cpu - before.cpu, count: t.count - before.count })
  }
  return {
    requests: a.requests - b.requests,
    httpSeconds: a.httpSeconds - b.httpSeconds,
    audioSeconds: a.audioSeconds - b.audioSeconds,
    slotSeconds: a.slotSeconds - b.slotSeconds,
    waitSeconds: a.waitSeconds - b.waitSeconds,
    tasks
  }
}

interface SaturationRun {
  audioSecondsPerSecond: number
  wallSeconds: number
  /** CPU seconds by thread role over the run. */
  cpu: Map<string, number>
  stages: Stages
}

export interface ProfileResults {
  label: string
  date: string
  cores: number
  clients: number
  /** Ratio of each saturation run to the ceiling run beside it. */
  ratios: number[]
  ceiling: { audioSecondsPerSecond: number[], cpuSecondsPerAudioSecond: number }
  service: {
    audioSecondsPerSecond: number[]
    cpuSecondsPerAudioSecond: number
    /** Median share of the machine's cores (CPU seconds / wall / cores) per role. */
    coresByRole: Record<string, number>
    idleShare: number
    /** Per request (medians over runs), seconds. */
    perRequest: Record<string, number>
  }
}

/** The harness process's CPU during a ceiling run is the ceiling's: its workers are its threads. */
async function ceilingRun (bench: EngineBench, seconds: number): Promise<{ run: ThroughputRun, cpuSeconds: number }> {
  const before = process.cpuUsage()
  const run = await bench.throughput(seconds * 1000)
  const used = process.cpuUsage(before)
  return { run, cpuSeconds: (used.user + used.system) / 1e6 }
}

export async function runProfile (config: ProfileConfig, io: BenchIo): Promise<ProfileResults> {
  const progress = new Progress({ stream: io.stderr, enabled: io.stderrIsTTY || config.progress, inPlace: io.stderrIsTTY })
  await mkdir(config.outDir, { recursive: true })
  const spec: WorkloadSpec = { texts: { kind: 'corpus' }, seed: config.seed, voices: [{ name: config.voice, weight: 1 }], multiSpeaker: new Set(), synthesis: {}, stream: false, repeatRatio: 0 }
  const modelPath = join(config.voiceDir, `${config.voice}.onnx`)
  const options = { voices: [{ name: config.voice, modelPath }], synthesis: {}, workers: CORES, ortLibrary: io.env.CHORUS_ORT_LIBRARY, espeakData: io.env.CHORUS_ESPEAK_DATA }
  progress.note('phonemizing the ceiling\'s texts and loading onnxruntime-node')
  const phonemizer = await EngineBench.start({ ...options, engine: 'chorus', workers: 1 })
  let outside: EngineBench | undefined
  try {
    await phonemizer.prepare(new Workload(spec).take(CEILING_TEXTS).map(item => ({ voice: item.voice, text: item.text })))
    outside = await EngineBench.start({ ...options, engine: 'onnxruntime' })
    await outside.prepareLike(phonemizer)
  } finally {
    await phonemizer.close()
  }
  progress.note('starting chorus serve (the phrase cache off)')
  const service = await startChildService(io.env, { TTS_VOICE_DIR: config.voiceDir, TTS_DEFAULT_VOICE: config.voice, TTS_CACHE_BYTES: '0', TTS_TIMEOUT_SECONDS: '3600' }, join(config.outDir, 'service.log'))
  const client = new BenchClient(service.url, 3_600_000)
  const ceilings: Array<{ run: ThroughputRun, cpuSeconds: number }> = []
  const saturations: SaturationRun[] = []
  try {
    const warm = new Workload(spec, 1000)
    for (let i = 0; i < CORES; i++) await client.synthesize(warm.next())
    await outside.throughput(2000)
    for (let r = 0; r < config.rounds; r++) {
      const saturation = async (): Promise<void> => {
        progress.note(`round ${r + 1} of ${config.rounds}: saturation, ${config.clients} clients, ${config.durationSeconds} s`)
        const workload = new Workload(spec, r + 1)
        const looping = runClosedLoop({
          warmupMs: config.warmupSeconds * 1000,
          durationMs: config.durationSeconds * 1000,
          concurrency: config.clients,
          send: async () => await client.synthesize(workload.next())
        })
        // Readings at the loop's measured window, not after it drains.
        await sleep(config.warmupSeconds * 1000)
        const cpuBefore = await threadCpu(service.pid)
        const stagesBefore = await stages(client)
        const startMs = performance.now()
        await sleep(config.durationSeconds * 1000)
        const cpuAfter = await threadCpu(service.pid)
        const stagesAfter = await stages(client)
        const wallSeconds = (performance.now() - startMs) / 1000
        const level = summariseLevel({ model: 'closed', load: config.clients, loop: await looping, server: null, ceiling: null })
        if (level.requests === 0) throw new ChorusError('ERR_BENCH_PROFILE', 'No request finished in the saturation window: lengthen --duration')
        const cpu = new Map<string, number>()
        for (const [role, seconds] of cpuAfter) cpu.set(role, seconds - (cpuBefore.get(role) ?? 0))
        saturations.push({ audioSecondsPerSecond: level.audioSecondsPerSecond, wallSeconds, cpu, stages: minus(stagesAfter, stagesBefore) })
      }
      const ceiling = async (): Promise<void> => {
        progress.note(`round ${r + 1} of ${config.rounds}: ceiling, ${config.ceilingSeconds} s`)
        ceilings.push(await ceilingRun(outside as EngineBench, config.ceilingSeconds))
      }
      if (r % 2 === 0) await ceiling().then(saturation)
      else await saturation().then(ceiling)
    }
  } finally {
    client.close()
    await service.stop()
    await outside.close()
  }
  const results = summarise(config, ceilings, saturations)
  io.stdout.write(formatText(results))
  await writeFile(join(config.outDir, 'results.json'), JSON.stringify(results, null, 2) + '\n')
  await writeFile(join(config.outDir, 'report.md'), formatMarkdown(results))
  io.stdout.write(`\nresults: ${join(config.outDir, 'results.json')}, report.md\n`)
  return results
}

function summarise (config: ProfileConfig, ceilings: Array<{ run: ThroughputRun, cpuSeconds: number }>, saturations: SaturationRun[]): ProfileResults {
  const ratios = saturations.map((s, i) => s.audioSecondsPerSecond / ceilings[i].run.audioSecondsPerSecond)
  const roles = ROLES.map(r => r.role)
  const coresByRole: Record<string, number> = {}
  for (const role of roles) coresByRole[role] = median(saturations.map(s => (s.cpu.get(role) ?? 0) / s.wallSeconds / CORES))
  const busy = saturations.map(s => [...s.cpu.values()].reduce((a, b) => a + b, 0) / s.wallSeconds / CORES)
  const perRequest = (value: (s: Stages) => number) => median(saturations.map(s => s.stages.requests > 0 ? value(s.stages) / s.stages.requests : 0))
  const task = (s: Stages, name: string, clock: 'wall' | 'cpu') => s.tasks.get(name)?.[clock] ?? 0
  const inference = (s: Stages) => ['chorus:encode', 'chorus:flow', 'chorus:decode', 'chorus:infer'].reduce((sum, name) => sum + task(s, name, 'wall'), 0)
  return {
    label: config.label,
    date: new Date().toISOString(),
    cores: CORES,
    clients: config.clients,
    ratios,
    ceiling: {
      audioSecondsPerSecond: ceilings.map(c => c.run.audioSecondsPerSecond),
      cpuSecondsPerAudioSecond: median(ceilings.map(c => c.cpuSeconds / c.run.audioSeconds))
    },
    service: {
      audioSecondsPerSecond: saturations.map(s => s.audioSecondsPerSecond),
      cpuSecondsPerAudioSecond: median(saturations.map(s => [...s.cpu.values()].reduce((a, b) => a + b, 0) / (s.audioSecondsPerSecond * s.wallSeconds))),
      coresByRole,
      idleShare: 1 - median(busy),
      perRequest: {
        'latency (arrival to last byte)': perRequest(s => s.httpSeconds),
        'phonemize (espeak-ng, libuv pool)': perRequest(s => task(s, 'chorus:phonemize', 'wall')),
        'waiting for an inference slot (sum over sentences)': perRequest(s => s.waitSeconds),
        'encoder runs': perRequest(s => task(s, 'chorus:encode', 'wall')),
        'flow runs (staged cut)': perRequest(s => task(s, 'chorus:flow', 'wall')),
        'decoder chunks': perRequest(s => task(s, 'chorus:decode', 'wall')),
        'whole-graph runs': perRequest(s => task(s, 'chorus:infer', 'wall')),
        'slot held around its run (hand-off to a worker and back)': perRequest(s => s.slotSeconds - inference(s)),
        'audio seconds': perRequest(s => s.audioSeconds)
      }
    }
  }
}

const NUMBER: Column = { header: '', align: 'right' }
const LABEL: Column = { header: '', align: 'left' }

function rows (results: ProfileResults): { head: string[][], roles: string[][], stages: string[][] } {
  const s = results.service
  const f = (v: number, d = 3) => v.toFixed(d)
  return {
    head: [
      ['throughput vs the outside ceiling (median of runs)', `${f(median(results.ratios))}× [${results.ratios.map(r => f(r, 2)).join(', ')}]`],
      ['ceiling, audio s/s (onnxruntime-node, one worker per core)', results.ceiling.audioSecondsPerSecond.map(v => f(v, 2)).join(', ')],
      ['service, audio s/s', s.audioSecondsPerSecond.map(v => f(v, 2)).join(', ')],
      ['CPU seconds per audio second: service vs ceiling', `${f(s.cpuSecondsPerAudioSecond, 4)} vs ${f(results.ceiling.cpuSecondsPerAudioSecond, 4)} (${f(s.cpuSecondsPerAudioSecond / results.ceiling.cpuSecondsPerAudioSecond)}×)`],
      ['cores left idle by the service', `${f(s.idleShare * 100, 1)} %`]
    ],
    roles: Object.entries(s.coresByRole).map(([role, share]) => [role, `${f(share * 100, 1)} %`]),
    stages: Object.entries(s.perRequest).map(([stage, seconds]) => [stage, stage === 'audio seconds' ? f(seconds, 2) : `${f(seconds * 1000, 1)} ms`])
  }
}

function formatText (results: ProfileResults): string {
  const r = rows(results)
  return [
    textTable([{ ...LABEL, header: `profile, ${results.clients} clients, ${results.cores} cores` }, { ...NUMBER, header: '' }], r.head),
    '',
    textTable([{ ...LABEL, header: 'CPU by thread role' }, { ...NUMBER, header: 'share of the cores' }], r.roles),
    '',
    textTable([{ ...LABEL, header: 'per request (medians over runs)' }, { ...NUMBER, header: 'time' }], r.stages)
  ].join('\n') + '\n'
}

function formatMarkdown (results: ProfileResults): string {
  const r = rows(results)
  return [
    `# Profile: ${results.label}`,
    '',
    `${results.date}, ${results.cores} cores, ${results.clients} clients.`,
    '',
    markdownTable([{ header: 'Figure' }, { ...NUMBER, header: 'Value' }], r.head),
    '',
    markdownTable([{ header: 'Threads' }, { ...NUMBER, header: 'Share of the cores' }], r.roles),
    '',
    markdownTable([{ header: 'Per request' }, { ...NUMBER, header: 'Time' }], r.stages),
    ''
  ].join('\n')
}
