// The conversation benchmark's two outside ceilings, both bare
// onnxruntime-node on the unmodified model (bench/ceiling.ts), measured
// first while no service runs:
// - throughput: every worker on the run's replies, audio seconds per wall
//   second; capacity in bots is reported against it (a bot back to back
//   hears about one audio second per second);
// - a first sentence: one worker runs a reply's first sentence whole, the
//   others idle; first audio is reported against its median. A service
//   that streams a sentence's first chunk can come in under it (ratio < 1).

import type { Env } from '../../src/shared/config-values.js'
import { withOutsideEngine, type EngineBench } from '../ceiling.js'
import type { CeilingResult } from '../results.js'
import { median } from '../stats.js'

export interface BareFirstSentence {
  /** The median over the first sentences of each one's median run (ms). */
  ms: number
  sentences: number
  repeats: number
}

export interface ConversationCeilings {
  throughput: CeilingResult
  firstSentence: BareFirstSentence
}

export interface CeilingPlan {
  seconds: number
  repeats: number
  workers: number
  /** How many replies' first sentences are timed alone. */
  firstSentences: number
}

/** The median whole run of each first sentence (prepared after the replies, from index `from`), then their median. */
async function timeFirstSentences (outside: EngineBench, from: number, count: number, repeats: number): Promise<number> {
  const each: number[] = []
  for (let i = 0; i < count; i++) {
    const runs = await outside.sequential(from + i, repeats)
    each.push(median(runs.map(run => run.sentenceMs.reduce((sum, ms) => sum + ms, 0))))
  }
  return median(each)
}

/** Both ceilings on `replies` (each a reply's sentences). */
export async function conversationCeilings (target: { voiceDir: string, voice: string }, replies: ReadonlyArray<readonly string[]>,
  plan: CeilingPlan, env: Env): Promise<ConversationCeilings> {
  const firsts = replies.slice(0, plan.firstSentences).map(sentences => sentences[0])
  const texts = [...replies.map(sentences => sentences.join(' ')), ...firsts]
  return await withOutsideEngine(target, texts, plan.workers, env, async outside => {
    const throughput = await outside.ceiling(plan.seconds, plan.repeats, { first: 0, count: replies.length })
    const ms = await timeFirstSentences(outside, replies.length, firsts.length, plan.repeats)
    return { throughput, firstSentence: { ms, sentences: firsts.length, repeats: plan.repeats } }
  })
}
