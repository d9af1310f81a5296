// `chorus bench conversation` (issues 30, 43): N bots, each told replies
// token by token and handing them to the service, their listeners playing at
// real time after a jitter buffer. Per level of N, per scheduler
// (TTS_SCHEDULER), per transport (POST /tts?stream=1 per sentence,
// stream-input token by token, or the whole reply as one POST /tts?stream=1)
// and per scenario (a crowd answering each line within 200 ms, or bots
// spread over a ramp), each scheduler and transport on a fresh in-process
// service, cache off: first audio (p50, p95), underruns (replies, gaps,
// their length), audio heard per second, and the capacity: the largest N
// whose listeners never ran dry. Beside it, the bare ONNX Runtime ceilings
// (onnxruntime-node on the unmodified model, no Chorus code on its path),
// measured in the same run while no service runs (bare-ceiling.ts).

import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ChorusError } from '../../src/errors.js'
import type { SchedulerMode } from '../../src/pool/schedule.js'
import { BenchClient } from '../client.js'
import { note, type BenchIo } from '../io.js'
import { machineInfo } from '../output.js'
import type { CeilingResult, MachineInfo } from '../results.js'
import { startInProcess } from '../service.js'
import { conversationCeilings, type BareFirstSentence } from './bare-ceiling.js'
import { capacityFigures, type ConversationCapacity, type ConversationLevel } from './capacity.js'
import type { ConversationConfig } from './config.js'
import { conversationReport } from './conversation-report.js'
import { httpStreamTransport } from './http-transport.js'
import { talk, type GroupFigures } from './level.js'
import { wholeReplyTransport } from './reply-transport.js'
import { replyTimeline, ReplySource } from './replies.js'
import type { SpeechTransport, TransportName } from './transport.js'
import { streamInputTransport } from './websocket-transport.js'
import { cartesiaTransport, deepgramTransport } from './vendor-transports.js'

/** A guard against a service that never answers: the service's own
 * TTS_TIMEOUT_SECONDS decides when a slow reply fails. */
const REPLY_TIMEOUT_MS = 600_000

export interface ConversationResults {
  kind: 'conversation'
  machine: MachineInfo
  config: ConversationConfig
  ceiling: CeilingResult | null
  /** Bare ONNX Runtime's whole run of a reply's first sentence, one worker; null with --no-ceiling. */
  bareFirstSentence: BareFirstSentence | null
  levels: ConversationLevel[]
  capacity: ConversationCapacity[]
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
  switch (name) {
    case 'http': return httpStreamTransport(url, REPLY_TIMEOUT_MS)
    case 'reply': return wholeReplyTransport(url, REPLY_TIMEOUT_MS)
    case 'websocket': return streamInputTransport(url, await voiceSampleRate(url, voice), REPLY_TIMEOUT_MS)
    case 'cartesia': return cartesiaTransport(url, await voiceSampleRate(url, voice), REPLY_TIMEOUT_MS)
    case 'deepgram': return deepgramTransport(url, await voiceSampleRate(url, voice), REPLY_TIMEOUT_MS)
  }
}

/** A first reply before any level, so a voice's first load is not measured (and a transport that cannot work stops the run). */
export async function warmUp (transport: SpeechTransport, speaker: { voice: string, apiKey?: string }): Promise<void> {
  await transport.speak(replyTimeline('Warming up.', 1000), performance.now(), speaker)
}

/** Replies told to the bare ceilings, and how many first sentences are timed alone. */
const CEILING_REPLIES = 40
const FIRST_SENTENCES = { quick: 5, full: 20 }

async function measureCeilings (config: ConversationConfig, io: BenchIo, progress: boolean): Promise<Pick<ConversationResults, 'ceiling' | 'bareFirstSentence'>> {
  if (config.ceiling === null) return { ceiling: null, bareFirstSentence: null }
  const plan = { ...config.ceiling, firstSentences: config.quick ? FIRST_SENTENCES.quick : FIRST_SENTENCES.full }
  note(io, progress, `bare ONNX Runtime ceilings: ${plan.workers} workers, ${plan.repeats} × ${plan.seconds} s; ${plan.firstSentences} first sentences alone`)
  const source = new ReplySource(config.seed, config.sentences, config.tokensPerSecond)
  const replies = Array.from({ length: CEILING_REPLIES }, () => source.next().sentences.map(s => s.text))
  const { throughput, firstSentence } = await conversationCeilings(config, replies, plan, io.env)
  return { ceiling: throughput, bareFirstSentence: firstSentence }
}

/** Every scenario's levels on one scheduler and transport, on a fresh service. */
async function runPair (config: ConversationConfig, io: BenchIo, progress: boolean, scheduler: SchedulerMode, transportName: TransportName): Promise<ConversationLevel[]> {
  const maxPending = String(pendingRequestsFor(config.levels, config.sentences.max))
  note(io, progress, `TTS_SCHEDULER=${scheduler}, ${transportName}: starting the service (phrase cache off, TTS_MAX_PENDING=${maxPending})`)
  const service = await startInProcess({ voiceDir: config.voiceDir, defaultVoice: config.voice, env: io.env, logFile: join(config.outDir, 'service.log'), overrides: { TTS_CACHE_BYTES: '0', TTS_SCHEDULER: scheduler, TTS_STREAM_JITTER_MS: String(config.jitterMs), TTS_MAX_PENDING: maxPending } })
  const levels: ConversationLevel[] = []
  let transport: SpeechTransport | undefined
  try {
    transport = await openTransport(transportName, service.url, config.voice)
    await warmUp(transport, { voice: config.voice })
    for (const scenario of config.scenarios) {
      for (const bots of config.levels) {
        note(io, progress, `  ${scenario}: ${bots} bot(s) for ${config.durationMs / 1000} s`)
        const figures = await talk(transport, [{ name: 'bots', bots }], { ...config, scenario })
        const level = figures.get('bots') as GroupFigures
        levels.push({ scheduler, transport: transportName, scenario, ...level })
        if (level.errors > 0) note(io, progress, `  ${level.errors} failed: ${level.firstError ?? ''}`)
      }
    }
  } finally {
    transport?.close()
    await service.close()
  }
  return levels
}

export async function runConversation (config: ConversationConfig, io: BenchIo): Promise<ConversationResults> {
  const progress = config.progress || io.stderrIsTTY
  await mkdir(config.outDir, { recursive: true })
  const { ceiling, bareFirstSentence } = await measureCeilings(config, io, progress)
  const levels: ConversationLevel[] = []
  for (const scheduler of config.schedulers) {
    for (const transport of config.transports) levels.push(...await runPair(config, io, progress, scheduler, transport))
  }
  const capacity = config.schedulers.flatMap(scheduler => config.transports.flatMap(transport => config.scenarios.map((scenario): ConversationCapacity => {
    const group = levels.filter(l => l.scheduler === scheduler && l.transport === transport && l.scenario === scenario)
    return { scheduler, transport, scenario, ...capacityFigures(group, ceiling, bareFirstSentence) }
  })))
  const results: ConversationResults = { kind: 'conversation', machine: machineInfo(), config, ceiling, bareFirstSentence, levels, capacity }
  const report = conversationReport(results)
  await writeFile(join(config.outDir, 'results.json'), JSON.stringify(results, null, 2) + '\n')
  await writeFile(join(config.outDir, 'report.md'), report)
  io.stdout.write(report)
  return results
}
