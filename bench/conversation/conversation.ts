// `chorus bench conversation` (issue 30): N bots, each told replies token by
// token and handing them to the service as they arrive, their listeners
// playing at real time after a jitter buffer. Per level of N, per scheduler
// (TTS_SCHEDULER) and per transport (POST /tts?stream=1 per sentence, or
// stream-input token by token), each pair on a fresh in-process service,
// cache off: first audio after the first sentence end (p50, p95), underruns
// (replies, gaps, their length), audio heard per second, and the capacity:
// the largest N whose listeners never ran dry. Beside it, the bare ONNX
// Runtime ceiling (onnxruntime-node on the unmodified model, no Chorus code
// on its path), measured in the same run while no service runs.

import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ChorusError } from '../../src/errors.js'
import type { SchedulerMode } from '../../src/pool/schedule.js'
import { BenchClient } from '../client.js'
import type { BenchIo } from '../io.js'
import { machineInfo } from '../output.js'
import type { CeilingResult, MachineInfo } from '../results.js'
import { startInProcess } from '../service.js'
import { markdownTable, num } from '../table.js'
import { outsideCeiling } from '../ceiling.js'
import type { ConversationConfig } from './config.js'
import { httpStreamTransport } from './http-transport.js'
import { talk, type GroupFigures } from './level.js'
import { replyTimeline, ReplySource } from './replies.js'
import type { SpeechTransport, TransportName } from './transport.js'
import { streamInputTransport } from './websocket-transport.js'

/** A guard against a service that never answers: the service's own
 * TTS_TIMEOUT_SECONDS decides when a slow reply fails. */
const REPLY_TIMEOUT_MS = 600_000

export interface ConversationLevel extends GroupFigures {
  scheduler: SchedulerMode
  transport: TransportName
}

/** The largest N with no underrun and no error (0: none), per scheduler and transport. */
export interface ConversationCapacity {
  scheduler: SchedulerMode
  transport: TransportName
  bots: number
  /** The same counting only replies after each bot's first (a start burst left out). */
  steadyBots: number
}

export interface ConversationResults {
  kind: 'conversation'
  machine: MachineInfo
  config: ConversationConfig
  ceiling: CeilingResult | null
  levels: ConversationLevel[]
  capacity: ConversationCapacity[]
}

export function note (io: BenchIo, enabled: boolean, message: string): void {
  if (enabled) io.stderr.write(`${message}\n`)
}

/** The largest bot count below the first level that `fails` (0: none), levels in any order. */
function largestPassing<L extends { bots: number }> (levels: readonly L[], fails: (level: L) => boolean): number {
  let capacity = 0
  for (const level of [...levels].sort((a, b) => a.bots - b.bots)) {
    if (fails(level)) break
    capacity = level.bots
  }
  return capacity
}

/** The largest bot count whose level had no underrun and no failed reply, below the first that had one. */
export function capacityOf (levels: ReadonlyArray<Pick<GroupFigures, 'bots' | 'underruns' | 'errors' | 'replies'>>): number {
  return largestPassing(levels, level => level.underruns > 0 || level.errors > 0 || level.replies === 0)
}

/** The largest bot count with no underrun after each bot's first reply
 * (and no failed reply), below the first that had one: the capacity once
 * the bots are under way (with a short --ramp, past the start burst). */
export function steadyCapacityOf (levels: ReadonlyArray<Pick<GroupFigures, 'bots' | 'laterUnderrunReplies' | 'laterReplies' | 'errors'>>): number {
  return largestPassing(levels, level => level.laterUnderrunReplies > 0 || level.errors > 0 || level.laterReplies === 0)
}

/** TTS_MAX_PENDING's default: what the service admits at once. */
const DEFAULT_MAX_PENDING = 64

/**
 * TTS_MAX_PENDING for the service under test: over HTTP each sentence is a
 * request, asked for when its text ends and open until its audio is sent, so
 * a bot has up to a reply's sentences in flight; at the default (64) some 20
 * bots of 4-sentence replies were refused with 503 before the cores were
 * busy. An operator serving that many bots sets it so, as the bench does.
 */
export function pendingRequestsFor (levels: readonly number[], sentencesPerReply: number): number {
  return Math.max(DEFAULT_MAX_PENDING, Math.ceil(Math.max(0, ...levels) * sentencesPerReply))
}

/** The voice's own sample rate, as GET /voices tells it: stream-input asks for PCM at it. */
async function voiceSampleRate (url: string, voice: string): Promise<number> {
  const client = new BenchClient(url, 10_000)
  try {
    const listing = await client.getJson('/voices') as { details?: Array<{ name?: unknown, sample_rate?: unknown }> }
    const rate = listing.details?.find(detail => detail.name === voice)?.sample_rate
    if (typeof rate !== 'number') throw new ChorusError('ERR_BENCH_HTTP', `GET /voices gives no sample_rate for ${voice}`)
    return rate
  } finally {
    client.close()
  }
}

export async function openTransport (name: TransportName, url: string, voice: string): Promise<SpeechTransport> {
  return name === 'http'
    ? httpStreamTransport(url, REPLY_TIMEOUT_MS)
    : streamInputTransport(url, await voiceSampleRate(url, voice), REPLY_TIMEOUT_MS)
}

/** A first reply before any level, so a voice's first load is not measured (and a transport that cannot work stops the run). */
export async function warmUp (transport: SpeechTransport, speaker: { voice: string, apiKey?: string }): Promise<void> {
  await transport.speak(replyTimeline('Warming up.', 1000), performance.now(), speaker)
}

export async function runConversation (config: ConversationConfig, io: BenchIo): Promise<ConversationResults> {
  const progress = config.progress || io.stderrIsTTY
  await mkdir(config.outDir, { recursive: true })
  let ceiling: CeilingResult | null = null
  if (config.ceiling !== null) {
    note(io, progress, `bare ONNX Runtime ceiling: ${config.ceiling.workers} workers, ${config.ceiling.repeats} × ${config.ceiling.seconds} s`)
    const source = new ReplySource(config.seed, config.sentences, config.tokensPerSecond)
    const texts = Array.from({ length: 40 }, () => source.next().sentences.map(s => s.text).join(' '))
    ceiling = await outsideCeiling(config, texts, config.ceiling, io.env)
  }
  const levels: ConversationLevel[] = []
  const maxPending = String(pendingRequestsFor(config.levels, config.sentences.max))
  for (const scheduler of config.schedulers) {
    for (const transportName of config.transports) {
      note(io, progress, `TTS_SCHEDULER=${scheduler}, ${transportName}: starting the service (phrase cache off, TTS_MAX_PENDING=${maxPending})`)
      const service = await startInProcess({ voiceDir: config.voiceDir, defaultVoice: config.voice, env: io.env, logFile: join(config.outDir, 'service.log'), overrides: { TTS_CACHE_BYTES: '0', TTS_SCHEDULER: scheduler, TTS_STREAM_JITTER_MS: String(config.jitterMs), TTS_MAX_PENDING: maxPending } })
      let transport: SpeechTransport | undefined
      try {
        transport = await openTransport(transportName, service.url, config.voice)
        await warmUp(transport, { voice: config.voice })
        for (const bots of config.levels) {
          note(io, progress, `  ${bots} bot(s) for ${config.durationMs / 1000} s`)
          const figures = await talk(transport, [{ name: 'bots', bots }], config)
          const level = figures.get('bots') as GroupFigures
          levels.push({ scheduler, transport: transportName, ...level })
          if (level.errors > 0) note(io, progress, `  ${level.errors} failed: ${level.firstError ?? ''}`)
        }
      } finally {
        transport?.close()
        await service.close()
      }
    }
  }
  const capacity = config.schedulers.flatMap(scheduler => config.transports.map(transport => {
    const group = levels.filter(l => l.scheduler === scheduler && l.transport === transport)
    return { scheduler, transport, bots: capacityOf(group), steadyBots: steadyCapacityOf(group) }
  }))
  const results: ConversationResults = { kind: 'conversation', machine: machineInfo(), config, ceiling, levels, capacity }
  const report = conversationReport(results)
  await writeFile(join(config.outDir, 'results.json'), JSON.stringify(results, null, 2) + '\n')
  await writeFile(join(config.outDir, 'report.md'), report)
  io.stdout.write(report)
  return results
}

/** How each transport sends a reply, for the report's first line. */
const TRANSPORT_TEXT: Record<TransportName, string> = {
  http: 'each sentence as POST /tts?stream=1 once its end arrived (http)',
  websocket: 'each token over stream-input as it arrived, PCM at the voice\'s rate (websocket)'
}

const ms = (value: number | null): string => value === null ? '–' : num(value)

function conversationReport (results: ConversationResults): string {
  const { ceiling, config } = results
  const rows = results.levels.map(l => [
    l.scheduler, l.transport, String(l.bots), String(l.replies), ms(l.firstAudioP50Ms), ms(l.firstAudioP95Ms), `${ms(l.laterFirstAudioP50Ms)} / ${ms(l.laterFirstAudioP95Ms)}`,
    `${l.underrunReplies}/${l.replies}`, `${l.laterUnderrunReplies}/${l.laterReplies}`, String(l.underruns), num(l.underrunMs), num(l.maxUnderrunMs), num(l.audioSecondsPerSecond),
    ceiling === null ? '–' : num(l.audioSecondsPerSecond / ceiling.audioSecondsPerSecond), String(l.errors)
  ])
  const lines = [
    `# Conversation benchmark (${config.voice})`,
    '',
    `Bots told replies of ${config.sentences.min}–${config.sentences.max} sentences at ${config.tokensPerSecond.min}–${config.tokensPerSecond.max} tokens/s, ` +
      `sent ${config.transports.map(t => TRANSPORT_TEXT[t]).join(', or ')}; listeners play after a ${config.jitterMs} ms jitter buffer; ` +
      `pauses of up to ${config.maxPauseMs / 1000} s; first replies started within ${config.rampMs / 1000} s; ${config.durationMs / 1000} s per level.`,
    '',
    markdownTable(['scheduler', 'transport', 'bots', 'replies', 'first audio p50 ms', 'p95 ms', 'p50 / p95 after the first reply', 'replies with underrun', 'after the first reply', 'underruns', 'underrun ms', 'worst reply ms', 'audio s/s', '× ceiling', 'errors']
      .map((header, i) => ({ header, align: i < 2 ? 'left' as const : 'right' as const })), rows),
    '',
    ...results.levels.filter(l => l.firstError !== null).map(l => `${l.scheduler}, ${l.transport}, ${l.bots} bot(s): ${l.errors} replies failed, the first with "${l.firstError ?? ''}".`),
    ...results.capacity.map(c => `Capacity with ${c.scheduler} over ${c.transport}: ${c.bots} bot(s) without an underrun; ` +
      `${c.steadyBots} without one after each bot's first reply (the first replies start within ${config.rampMs / 1000} s).`),
    ceiling === null ? 'The ceiling was not measured.' : `Bare ONNX Runtime ceiling: ${num(ceiling.audioSecondsPerSecond)} audio s/s (${ceiling.workers} workers, median of ${ceiling.repeatResults.length}).`,
    ''
  ]
  return lines.join('\n')
}
