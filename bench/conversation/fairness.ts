// `chorus bench fairness` (issue 27): one tenant with many bots against
// several tenants with one bot each. The quiet tenants' first-audio p95 when
// they talk alone, and beside the busy tenant, in alternated rounds (alone,
// shared, shared, alone, …) so the machine's drift weighs on both; the
// figure is the median of the rounds' ratios, per scheduler.
//
// Tenants are what API keys make them: the bench writes a keys file (one key
// per tenant, equal weights, no quotas) into its output folder, starts the
// service with TTS_API_KEYS_FILE, and each bot sends its tenant's key as a
// Bearer token on POST /tts?stream=1.

import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SchedulerMode } from '../../src/pool/schedule.js'
import { note, type BenchIo } from '../io.js'
import { machineInfo } from '../output.js'
import type { MachineInfo } from '../results.js'
import { startInProcess } from '../service.js'
import { median } from '../stats.js'
import { markdownTable, num } from '../table.js'
import type { FairnessConfig } from './config.js'
import { openTransport, warmUp } from './conversation.js'
import { talk, type BotGroup, type GroupFigures } from './level.js'
import { keyOf, writeTenantKeys } from './tenant-keys.js'
import type { SpeechTransport } from './transport.js'

export interface FairnessRound {
  scheduler: SchedulerMode
  phase: 'alone' | 'shared'
  quiet: GroupFigures
  busy: GroupFigures | null
}

export interface FairnessResults {
  kind: 'fairness'
  machine: MachineInfo
  config: FairnessConfig
  rounds: FairnessRound[]
  /** Per scheduler: median over rounds of the quiet tenants' first-audio p95, shared / alone. */
  ratio: Record<string, number | null>
}

/** Shared over alone, paired round by round in the order they ran; the median of the pairs. A pair
 * where a quiet reply failed has no figure: a failed reply's first audio is unknown, not fast. */
export function fairnessRatio (rounds: readonly FairnessRound[]): number | null {
  const p95 = (r: FairnessRound) => r.quiet.errors > 0 ? null : r.quiet.firstAudioP95Ms
  const alone = rounds.filter(r => r.phase === 'alone').map(p95)
  const shared = rounds.filter(r => r.phase === 'shared').map(p95)
  const ratios: number[] = []
  for (let i = 0; i < Math.min(alone.length, shared.length); i++) {
    const a = alone[i]
    const s = shared[i]
    if (a !== null && s !== null && a > 0) ratios.push(s / a)
  }
  return ratios.length === 0 ? null : median(ratios)
}

export async function runFairness (config: FairnessConfig, io: BenchIo): Promise<FairnessResults> {
  const progress = config.progress || io.stderrIsTTY
  await mkdir(config.outDir, { recursive: true })
  const quietNames = Array.from({ length: config.quietTenants }, (_, i) => `quiet-${i + 1}`)
  const keys = await writeTenantKeys(config.outDir, [...quietNames, 'busy'])
  const quiet: BotGroup = { name: 'quiet', bots: config.quietTenants, apiKey: i => keyOf(keys, quietNames[i]) }
  const busy: BotGroup = { name: 'busy', bots: config.busyBots, apiKey: () => keyOf(keys, 'busy') }
  const rounds: FairnessRound[] = []
  for (const scheduler of config.schedulers) {
    note(io, progress, `TTS_SCHEDULER=${scheduler}: starting the service (phrase cache off)`)
    const service = await startInProcess({ voiceDir: config.voiceDir, defaultVoice: config.voice, env: io.env, logFile: join(config.outDir, 'service.log'), overrides: { TTS_CACHE_BYTES: '0', TTS_SCHEDULER: scheduler, TTS_STREAM_JITTER_MS: String(config.jitterMs), TTS_MAX_PENDING: String(Math.max(64, 8 * (config.busyBots + config.quietTenants))), TTS_API_KEYS_FILE: keys.file } })
    let transport: SpeechTransport | undefined
    try {
      transport = await openTransport('http', service.url, config.voice)
      await warmUp(transport, { voice: config.voice, apiKey: keyOf(keys, quietNames[0]) })
      for (let r = 0; r < config.rounds; r++) {
        const phases = r % 2 === 0 ? ['alone', 'shared'] as const : ['shared', 'alone'] as const
        for (const phase of phases) {
          note(io, progress, `  round ${r + 1}: ${phase === 'alone' ? `${config.quietTenants} quiet tenants alone` : `beside ${config.busyBots} bots of one tenant`}, ${config.durationMs / 1000} s`)
          // Spread, as before the crowd scenario existed: its phases compare quiet tenants, not starts.
          const figures = await talk(transport, phase === 'alone' ? [quiet] : [quiet, busy], { ...config, scenario: 'spread' })
          rounds.push({ scheduler, phase, quiet: figures.get('quiet') as GroupFigures, busy: figures.get('busy') ?? null })
        }
      }
    } finally {
      transport?.close()
      await service.close()
    }
  }
  const ratio = Object.fromEntries(config.schedulers.map(s => [s, fairnessRatio(rounds.filter(r => r.scheduler === s))]))
  const results: FairnessResults = { kind: 'fairness', machine: machineInfo(), config, rounds, ratio }
  const report = fairnessReport(results)
  await writeFile(join(config.outDir, 'results.json'), JSON.stringify(results, null, 2) + '\n')
  await writeFile(join(config.outDir, 'report.md'), report)
  io.stdout.write(report)
  return results
}

function fairnessReport (results: FairnessResults): string {
  const { config } = results
  const rows = results.rounds.map(r => [
    r.scheduler, r.phase, num(r.quiet.firstAudioP50Ms), num(r.quiet.firstAudioP95Ms), `${r.quiet.underrunReplies}/${r.quiet.replies}`,
    r.busy === null ? '–' : num(r.busy.firstAudioP95Ms), r.busy === null ? '–' : `${r.busy.underrunReplies}/${r.busy.replies}`, String(r.quiet.errors + (r.busy?.errors ?? 0))
  ])
  return [
    `# Fairness benchmark (${config.voice})`,
    '',
    `${config.quietTenants} tenants with one bot each, alone and beside one tenant with ${config.busyBots} bots, each tenant an API key of equal weight ` +
      `(POST /tts?stream=1 per sentence, the key as a Bearer token); replies of ` +
      `${config.sentences.min}–${config.sentences.max} sentences at ${config.tokensPerSecond.min}–${config.tokensPerSecond.max} tokens/s, ${config.durationMs / 1000} s per phase, ${config.rounds} round(s) alternated.`,
    '',
    markdownTable(['scheduler', 'phase', 'quiet first audio p50 ms', 'quiet p95 ms', 'quiet replies with underrun', 'busy p95 ms', 'busy replies with underrun', 'errors']
      .map((header, i) => ({ header, align: i < 2 ? 'left' as const : 'right' as const })), rows),
    '',
    ...results.rounds.flatMap(r => [r.quiet, r.busy].filter(g => g !== null && g.firstError !== null)
      .map(g => `${r.scheduler}, ${r.phase}: ${g?.errors ?? 0} replies failed, the first with "${g?.firstError ?? ''}".`)),
    ...Object.entries(results.ratio).map(([scheduler, value]) => `With ${scheduler}: the quiet tenants' first-audio p95 beside the busy tenant is ${value === null ? '–' : `${num(value)}×`} what they get alone (issue 27's target: ≤ 1.5×).`),
    ''
  ].join('\n')
}
