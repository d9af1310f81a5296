// `chorus bench backlog` (issue 43's probe): is a short request stuck
// behind long ones? On a fresh in-process service (cache off), a
// one-sentence whole answer is timed on the idle service (the median of a
// few); then four whole answers of 250 short sentences are sent at once
// and, half a second later, the same one-sentence request: its latency, and
// that over its idle latency. Without API keys (each connection its own
// client), then with every request under one key (a keys file with one
// tenant). Issue 43 measured 21.2 s, 156 × idle; its target is ≤ 3 ×.

import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { BenchClient, type Sample } from '../client.js'
import { note, type BenchIo } from '../io.js'
import { machineInfo } from '../output.js'
import type { MachineInfo } from '../results.js'
import { startInProcess } from '../service.js'
import { keyOf, writeTenantKeys } from '../conversation/tenant-keys.js'
import { backlogReport } from './backlog-report.js'
import type { BacklogConfig, KeyMode } from './config.js'
import { idleLatency, mustSynthesize, type IdleLatency } from './idle-latency.js'
import { clientTimeoutMs, wholeAnswerOverrides } from './service-settings.js'
import { stockPhraseText, wholeItem, WholeTexts } from './texts.js'

/** One long answer of the backlog, as the harness saw it. */
export interface LongAnswer {
  status: number
  latencyMs: number
  audioSeconds: number
  error: string | null
}

export interface BacklogProbe {
  keys: KeyMode
  idle: IdleLatency
  /** The short request's latency behind the backlog; null if it failed. */
  shortMs: number | null
  shortError: string | null
  /** shortMs over the idle median. */
  ratio: number | null
  /** Long answers that were still under way when the short one was answered. */
  longAfterShort: number
  long: LongAnswer[]
}

export interface BacklogResults {
  kind: 'backlog'
  machine: MachineInfo
  config: BacklogConfig
  shortText: string
  probes: BacklogProbe[]
}

/** The texts of a run: the short one, a warm-up, and the long answers. */
function backlogTexts (config: BacklogConfig): { short: string, warmUp: string, long: string[] } {
  const texts = new WholeTexts(config.seed, { min: 1, max: 1 })
  return { short: texts.short(), warmUp: texts.short(), long: Array.from({ length: config.longRequests }, (_, k) => stockPhraseText(config.longSentences, k)) }
}

function failure (sample: Sample): string | null {
  return sample.error === undefined ? null : `${sample.error}${sample.message === undefined ? '' : `: ${sample.message}`}`
}

/** The long answers at once, the short one `delayMs` later; waits for them all. */
async function probe (client: BenchClient, config: BacklogConfig, texts: ReturnType<typeof backlogTexts>): Promise<Omit<BacklogProbe, 'keys' | 'idle' | 'ratio'>> {
  const long = texts.long.map(async text => await client.synthesize(wholeItem(text, config.voice)))
  await sleep(config.delayMs)
  const short = await client.synthesize(wholeItem(texts.short, config.voice))
  const answers = await Promise.all(long)
  return {
    shortMs: short.error === undefined ? short.latencyMs : null,
    shortError: failure(short),
    longAfterShort: answers.filter(answer => answer.endMs > short.endMs).length,
    long: answers.map(answer => ({ status: answer.status, latencyMs: answer.latencyMs, audioSeconds: answer.audioSeconds, error: failure(answer) }))
  }
}

/** One key mode on a fresh service: warm-up, the idle median, the probe. */
async function runMode (config: BacklogConfig, io: BenchIo, keys: KeyMode, texts: ReturnType<typeof backlogTexts>): Promise<BacklogProbe> {
  const tenants = keys === 'one' ? await writeTenantKeys(config.outDir, ['probe']) : undefined
  const overrides = { ...wholeAnswerOverrides(io.env, texts.long), ...(tenants === undefined ? {} : { TTS_API_KEYS_FILE: tenants.file }) }
  const service = await startInProcess({ voiceDir: config.voiceDir, defaultVoice: config.voice, env: io.env, logFile: join(config.outDir, 'service.log'), overrides })
  const client = new BenchClient(service.url, clientTimeoutMs(io.env), 'wav', tenants === undefined ? undefined : keyOf(tenants, 'probe'))
  try {
    await mustSynthesize(client, wholeItem(texts.warmUp, config.voice))
    const idle = await idleLatency(client, Array.from({ length: config.idleRepeats }, () => wholeItem(texts.short, config.voice)))
    const result = await probe(client, config, texts)
    return { keys, idle, ...result, ratio: result.shortMs === null ? null : result.shortMs / idle.medianMs }
  } finally {
    client.close()
    await service.close()
  }
}

export async function runBacklog (config: BacklogConfig, io: BenchIo): Promise<BacklogResults> {
  const progress = config.progress || io.stderrIsTTY
  await mkdir(config.outDir, { recursive: true })
  const texts = backlogTexts(config)
  const probes: BacklogProbe[] = []
  for (const keys of config.keyModes) {
    note(io, progress, `${keys === 'none' ? 'without API keys' : 'under one API key'}: ${config.idleRepeats} idle requests, then ${config.longRequests} × ${config.longSentences} sentences and the short one`)
    probes.push(await runMode(config, io, keys, texts))
  }
  const results: BacklogResults = { kind: 'backlog', machine: machineInfo(), config, shortText: texts.short, probes }
  const report = backlogReport(results)
  await writeFile(join(config.outDir, 'results.json'), JSON.stringify(results, null, 2) + '\n')
  await writeFile(join(config.outDir, 'report.md'), report)
  io.stdout.write(report)
  return results
}
