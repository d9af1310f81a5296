// `chorus bench mixed` (issue 43): streaming bots and whole answers on one
// service. Per scheduler and transport, on a fresh in-process service (cache
// off): short whole answers (one sentence) are timed one by one on the idle
// service; then the bots talk (conversation benchmark, --scenario) while
// closed-loop clients send whole answers (WAV, not streamed), short and
// long (--long-sentences) in turn. Reported: the short answers' latency
// under the load over their idle latency, the long ones', and what the
// bots' listeners heard.

import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SchedulerMode } from '../../src/pool/schedule.js'
import { BenchClient } from '../client.js'
import { openTransport, pendingRequestsFor, warmUp } from '../conversation/conversation.js'
import { talk, type GroupFigures, type Scenario } from '../conversation/level.js'
import type { SpeechTransport, TransportName } from '../conversation/transport.js'
import { note, type BenchIo } from '../io.js'
import { machineInfo } from '../output.js'
import type { MachineInfo } from '../results.js'
import { startInProcess } from '../service.js'
import { quantile } from '../stats.js'
import type { MixedConfig } from './config.js'
import { idleLatency, type IdleLatency } from './idle-latency.js'
import { mixedReport } from './mixed-report.js'
import { clientTimeoutMs, wholeAnswerOverrides } from './service-settings.js'
import { wholeItem, WholeTexts } from './texts.js'
import { runWholeLoad, type WholeKind, type WholeSample } from './whole-load.js'

/** Whole answers of one kind under the load. */
export interface WholeFigures {
  requests: number
  errors: number
  firstError: string | null
  /** Latency of the answers that succeeded (ms); null without any. */
  p50Ms: number | null
  p95Ms: number | null
}

export interface MixedLevel {
  scheduler: SchedulerMode
  transport: TransportName
  scenario: Scenario
  bots: GroupFigures
  idleShort: IdleLatency
  short: WholeFigures
  long: WholeFigures
  /** The short answers' p50 and p95 under the load over their idle median. */
  shortP50Ratio: number | null
  shortP95Ratio: number | null
}

export interface MixedResults {
  kind: 'mixed'
  machine: MachineInfo
  config: MixedConfig
  levels: MixedLevel[]
}

export function wholeFigures (samples: readonly WholeSample[], kind: WholeKind): WholeFigures {
  const mine = samples.filter(s => s.kind === kind).map(s => s.sample)
  const ok = mine.filter(s => s.error === undefined).map(s => s.latencyMs)
  const failed = mine.find(s => s.error !== undefined)
  return {
    requests: mine.length,
    errors: mine.length - ok.length,
    firstError: failed === undefined ? null : `${failed.error ?? ''}${failed.message === undefined ? '' : `: ${failed.message}`}`,
    p50Ms: ok.length === 0 ? null : quantile(ok, 0.5),
    p95Ms: ok.length === 0 ? null : quantile(ok, 0.95)
  }
}

/** Long answers drawn before the run, so the service's text limit can take the longest; they cycle (the cache is off). */
const LONG_ANSWERS = 64

/** The bots and the whole-answer clients for the same `durationMs`. */
async function underLoad (config: MixedConfig, client: BenchClient, transport: SpeechTransport, texts: { short: () => string, long: readonly string[] }): Promise<{ bots: GroupFigures, samples: WholeSample[] }> {
  const stop = new AbortController()
  const timer = setTimeout(() => stop.abort(), config.durationMs)
  let longs = 0
  const next = (kind: WholeKind) => wholeItem(kind === 'short' ? texts.short() : texts.long[longs++ % texts.long.length], config.voice)
  const [figures, samples] = await Promise.all([
    talk(transport, [{ name: 'bots', bots: config.bots }], { ...config, scenario: config.scenario }),
    runWholeLoad(client, { clients: config.wholeClients, next, stop: stop.signal })
  ])
  clearTimeout(timer)
  return { bots: figures.get('bots') as GroupFigures, samples }
}

async function runPair (config: MixedConfig, io: BenchIo, scheduler: SchedulerMode, transportName: TransportName): Promise<MixedLevel> {
  const texts = new WholeTexts(config.seed, config.longSentences)
  const long = Array.from({ length: LONG_ANSWERS }, () => texts.longText())
  const maxPending = String(pendingRequestsFor([config.bots], config.sentences.max) + config.wholeClients)
  const overrides = { ...wholeAnswerOverrides(io.env, long), TTS_SCHEDULER: scheduler, TTS_STREAM_JITTER_MS: String(config.jitterMs), TTS_MAX_PENDING: maxPending }
  const service = await startInProcess({ voiceDir: config.voiceDir, defaultVoice: config.voice, env: io.env, logFile: join(config.outDir, 'service.log'), overrides })
  const client = new BenchClient(service.url, clientTimeoutMs(io.env))
  let transport: SpeechTransport | undefined
  try {
    transport = await openTransport(transportName, service.url, config.voice)
    await warmUp(transport, { voice: config.voice })
    const idleShort = await idleLatency(client, Array.from({ length: config.idleRepeats }, () => wholeItem(texts.short(), config.voice)))
    const { bots, samples } = await underLoad(config, client, transport, { short: () => texts.short(), long })
    const short = wholeFigures(samples, 'short')
    const over = (ms: number | null) => ms === null ? null : ms / idleShort.medianMs
    return { scheduler, transport: transportName, scenario: config.scenario, bots, idleShort, short, long: wholeFigures(samples, 'long'), shortP50Ratio: over(short.p50Ms), shortP95Ratio: over(short.p95Ms) }
  } finally {
    transport?.close()
    client.close()
    await service.close()
  }
}

export async function runMixed (config: MixedConfig, io: BenchIo): Promise<MixedResults> {
  const progress = config.progress || io.stderrIsTTY
  await mkdir(config.outDir, { recursive: true })
  const levels: MixedLevel[] = []
  for (const scheduler of config.schedulers) {
    for (const transport of config.transports) {
      note(io, progress, `TTS_SCHEDULER=${scheduler}, ${transport}: ${config.idleRepeats} short answers idle, then ${config.bots} bots (${config.scenario}) and ${config.wholeClients} whole-answer clients for ${config.durationMs / 1000} s`)
      levels.push(await runPair(config, io, scheduler, transport))
    }
  }
  const results: MixedResults = { kind: 'mixed', machine: machineInfo(), config, levels }
  const report = mixedReport(results)
  await writeFile(join(config.outDir, 'results.json'), JSON.stringify(results, null, 2) + '\n')
  await writeFile(join(config.outDir, 'report.md'), report)
  io.stdout.write(report)
  return results
}
