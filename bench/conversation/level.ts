// One load level of a conversation benchmark: bots in groups (an API key
// per tenant, or all without keys) talk for a set time on one transport, in
// one scenario; the figures of each group's replies as their listeners
// heard them.

import { Rng } from '../corpus.js'
import { quantile } from '../stats.js'
import { runBot, speakReply, type ReplyResult, type SpeakOptions } from './bot.js'
import { CROWD_SPREAD_MS, REAL_CLOCK, runCrowd } from './crowd.js'
import { ReplySource } from './replies.js'
import type { SpeechTransport } from './transport.js'

/**
 * How the bots' replies start: `crowd`, a group chat, every bot answering
 * each line within 200 ms of the others (crowd.ts); `spread`, each bot on
 * its own, back to back with pauses, first replies spread over the ramp.
 */
export const SCENARIOS = ['crowd', 'spread'] as const
export type Scenario = typeof SCENARIOS[number]

export interface BotGroup {
  /** The group's name in the report (its tenant's, in the fairness benchmark). */
  name: string
  bots: number
  /** Each bot's API key, its tenant's (several tenants may report as one group); none: the service has no keys. */
  apiKey?: (bot: number) => string
}

export interface TalkSettings {
  scenario: Scenario
  voice: string
  durationMs: number
  jitterMs: number
  maxPauseMs: number
  /** Spread: each bot's first reply starts at a random time within this long of the level's start. */
  rampMs: number
  seed: number
  sentences: { min: number, max: number }
  tokensPerSecond: { min: number, max: number }
}

export interface GroupFigures {
  bots: number
  replies: number
  errors: number
  /** The first error's message, to tell what failed. */
  firstError: string | null
  /** From the first sentence's end in the tokens to its first audio (ms); null without replies. */
  firstAudioP50Ms: number | null
  firstAudioP95Ms: number | null
  /** Replies whose listener ran dry at least once, the gaps in all, their length. */
  underrunReplies: number
  underruns: number
  underrunMs: number
  maxUnderrunMs: number
  /** The same after each bot's first reply (the steady state, past the bots' first starts). */
  laterReplies: number
  laterUnderrunReplies: number
  /** First audio after each bot's first reply (ms); null without such replies. */
  laterFirstAudioP50Ms: number | null
  laterFirstAudioP95Ms: number | null
  /** Audio heard per wall second, every bot of the group together. */
  audioSecondsPerSecond: number
}

export function summariseReplies (results: readonly ReplyResult[], bots: number, wallMs: number): GroupFigures {
  const ok = results.filter(r => r.error === undefined)
  const first = ok.map(r => r.firstAudioMs)
  const later = ok.filter(r => !r.first)
  const laterFirst = later.map(r => r.firstAudioMs)
  const failed = results.find(r => r.error !== undefined)
  return {
    bots,
    replies: ok.length,
    errors: results.length - ok.length,
    firstError: failed?.error ?? null,
    firstAudioP50Ms: first.length === 0 ? null : quantile(first, 0.5),
    firstAudioP95Ms: first.length === 0 ? null : quantile(first, 0.95),
    underrunReplies: ok.filter(r => r.underruns > 0).length,
    underruns: ok.reduce((sum, r) => sum + r.underruns, 0),
    underrunMs: ok.reduce((sum, r) => sum + r.underrunMs, 0),
    maxUnderrunMs: ok.reduce((most, r) => Math.max(most, r.underrunMs), 0),
    laterReplies: later.length,
    laterUnderrunReplies: later.filter(r => r.underruns > 0).length,
    laterFirstAudioP50Ms: laterFirst.length === 0 ? null : quantile(laterFirst, 0.5),
    laterFirstAudioP95Ms: laterFirst.length === 0 ? null : quantile(laterFirst, 0.95),
    audioSecondsPerSecond: ok.reduce((sum, r) => sum + r.audioMs, 0) / wallMs
  }
}

/** A bot of a level: its group, and what its replies need. */
interface LevelBot {
  group: string
  speak: SpeakOptions
}

/** The bots talk in the settings' scenario until `stop`; each reply is handed to `onReply`. */
async function runScenario (bots: readonly LevelBot[], settings: TalkSettings, stop: AbortSignal, onReply: (bot: LevelBot, result: ReplyResult) => void): Promise<void> {
  if (settings.scenario === 'spread') {
    await Promise.all(bots.map(async bot => await runBot({ ...bot.speak, maxPauseMs: settings.maxPauseMs, rampMs: settings.rampMs, stop, onReply: result => onReply(bot, result) })))
    return
  }
  await runCrowd({
    bots: bots.map(bot => async first => {
      const result = await speakReply(bot.speak, first)
      onReply(bot, result)
      return result.error === undefined
    }),
    spreadMs: CROWD_SPREAD_MS,
    maxPauseMs: settings.maxPauseMs,
    rng: new Rng(settings.seed).fork(bots.length),
    clock: REAL_CLOCK,
    stop
  })
}

/** Runs every group's bots at once for `durationMs`; replies under way at the end finish and count. */
export async function talk (transport: SpeechTransport, groups: readonly BotGroup[], settings: TalkSettings): Promise<Map<string, GroupFigures>> {
  const stop = new AbortController()
  const results = new Map(groups.map(group => [group.name, [] as ReplyResult[]]))
  let botIndex = 0
  const bots = groups.flatMap(group => Array.from({ length: group.bots }, (_, i): LevelBot => ({
    group: group.name,
    speak: {
      transport,
      speaker: { voice: settings.voice, apiKey: group.apiKey?.(i) },
      replies: new ReplySource(settings.seed * 1000 + botIndex++, settings.sentences, settings.tokensPerSecond),
      jitterMs: settings.jitterMs
    }
  })))
  const started = performance.now()
  const timer = setTimeout(() => stop.abort(), settings.durationMs)
  await runScenario(bots, settings, stop.signal, (bot, result) => results.get(bot.group)?.push(result))
  clearTimeout(timer)
  const wallMs = performance.now() - started
  return new Map(groups.map(group => [group.name, summariseReplies(results.get(group.name) ?? [], group.bots, wallMs)]))
}
