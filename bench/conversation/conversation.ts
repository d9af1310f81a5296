// `chorus bench conversation` (issue 30): N bots, each told replies token by
// token and speaking each sentence as soon as its end arrives, their
// listeners playing at real time after a jitter buffer. Per level of N and
// per scheduler (TTS_SCHEDULER, a fresh in-process service each, cache off):
// first audio after the first sentence end (p50, p95), underruns (replies,
// gaps, their length), audio heard per second, and the capacity: the largest
// N whose listeners never ran dry. Beside it, the bare ONNX Runtime ceiling
// (onnxruntime-node on the unmodified model, no Chorus code on its path),
// measured in the same run while no service runs.

import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { SchedulerMode } from '../../src/pool/schedule.js'
import type { BenchIo } from '../io.js'
import { machineInfo } from '../output.js'
import type { CeilingResult, MachineInfo } from '../results.js'
import { startInProcess } from '../service.js'
import { markdownTable, num } from '../table.js'
import { outsideCeiling } from './ceiling.js'
import type { ConversationConfig } from './config.js'
import { talk, type GroupFigures } from './level.js'
import { ReplySource } from './replies.js'
import { httpStreamTransport } from './transport.js'

export interface ConversationLevel extends GroupFigures {
  scheduler: SchedulerMode
}

export interface ConversationResults {
  kind: 'conversation'
  machine: MachineInfo
  config: ConversationConfig
  ceiling: CeilingResult | null
  levels: ConversationLevel[]
  /** Per scheduler: the largest N with no underrun and no error (0: none). */
  capacity: Record<string, number>
}

export function note (io: BenchIo, enabled: boolean, message: string): void {
  if (enabled) io.stderr.write(`${message}\n`)
}

/** The largest bot count whose level had no underrun and no failed reply, below the first that had one. */
export function capacityOf (levels: ReadonlyArray<Pick<GroupFigures, 'bots' | 'underruns' | 'errors' | 'replies'>>): number {
  let capacity = 0
  for (const level of [...levels].sort((a, b) => a.bots - b.bots)) {
    if (level.underruns > 0 || level.errors > 0 || level.replies === 0) break
    capacity = level.bots
  }
  return capacity
}

export async function runConversation (config: ConversationConfig, io: BenchIo): Promise<ConversationResults> {
  const progress = config.progress || io.stderrIsTTY
  await mkdir(config.outDir, { recursive: true })
  let ceiling: CeilingResult | null = null
  if (config.ceiling !== null) {
    note(io, progress, `bare ONNX Runtime ceiling: ${config.ceiling.workers} workers, ${config.ceiling.repeats} × ${config.ceiling.seconds} s`)
    const source = new ReplySource(config.seed, config.sentences, config.tokensPerSecond)
    const texts = Array.from({ length: 40 }, () => source.next().map(s => s.text).join(' '))
    ceiling = await outsideCeiling(config, texts, config.ceiling, io.env)
  }
  const levels: ConversationLevel[] = []
  for (const scheduler of config.schedulers) {
    note(io, progress, `TTS_SCHEDULER=${scheduler}: starting the service (phrase cache off)`)
    const service = await startInProcess({ voiceDir: config.voiceDir, defaultVoice: config.voice, env: io.env, logFile: join(config.outDir, 'service.log'), overrides: { TTS_CACHE_BYTES: '0', TTS_SCHEDULER: scheduler, TTS_STREAM_JITTER_MS: String(config.jitterMs) } })
    const transport = httpStreamTransport(service.url, 120_000)
    try {
      await transport.speak('Warming up.', config.voice, undefined)
      for (const bots of config.levels) {
        note(io, progress, `  ${bots} bot(s) for ${config.durationMs / 1000} s`)
        const figures = await talk(transport, [{ name: 'bots', bots }], config)
        const level = figures.get('bots') as GroupFigures
        levels.push({ scheduler, ...level })
        if (level.errors > 0) note(io, progress, `  ${level.errors} failed: ${level.firstError ?? ''}`)
      }
    } finally {
      transport.close()
      await service.close()
    }
  }
  const capacity = Object.fromEntries(config.schedulers.map(s => [s, capacityOf(levels.filter(l => l.scheduler === s))]))
  const results: ConversationResults = { kind: 'conversation', machine: machineInfo(), config, ceiling, levels, capacity }
  const report = conversationReport(results)
  await writeFile(join(config.outDir, 'results.json'), JSON.stringify(results, null, 2) + '\n')
  await writeFile(join(config.outDir, 'report.md'), report)
  io.stdout.write(report)
  return results
}

const ms = (value: number | null): string => value === null ? '–' : num(value)

function conversationReport (results: ConversationResults): string {
  const { ceiling, config } = results
  const rows = results.levels.map(l => [
    l.scheduler, String(l.bots), String(l.replies), ms(l.firstAudioP50Ms), ms(l.firstAudioP95Ms),
    `${l.underrunReplies}/${l.replies}`, String(l.underruns), num(l.underrunMs), num(l.maxUnderrunMs), num(l.audioSecondsPerSecond),
    ceiling === null ? '–' : num(l.audioSecondsPerSecond / ceiling.audioSecondsPerSecond), String(l.errors)
  ])
  const lines = [
    `# Conversation benchmark (${config.voice})`,
    '',
    `Bots told replies of ${config.sentences.min}–${config.sentences.max} sentences at ${config.tokensPerSecond.min}–${config.tokensPerSecond.max} tokens/s, ` +
      `each sentence sent as POST /tts?stream=1 once its end arrived; listeners play after a ${config.jitterMs} ms jitter buffer; ` +
      `pauses of up to ${config.maxPauseMs / 1000} s; ${config.durationMs / 1000} s per level.`,
    '',
    markdownTable(['scheduler', 'bots', 'replies', 'first audio p50 ms', 'p95 ms', 'replies with underrun', 'underruns', 'underrun ms', 'worst reply ms', 'audio s/s', '× ceiling', 'errors']
      .map((header, i) => ({ header, align: i === 0 ? 'left' as const : 'right' as const })), rows),
    '',
    ...results.levels.filter(l => l.firstError !== null).map(l => `${l.scheduler}, ${l.bots} bot(s): ${l.errors} replies failed, the first with "${l.firstError ?? ''}".`),
    ...Object.entries(results.capacity).map(([scheduler, n]) => `Capacity with ${scheduler}: ${n} bot(s) without an underrun.`),
    ceiling === null ? 'The ceiling was not measured.' : `Bare ONNX Runtime ceiling: ${num(ceiling.audioSecondsPerSecond)} audio s/s (${ceiling.workers} workers, median of ${ceiling.repeatResults.length}).`,
    ''
  ]
  return lines.join('\n')
}
