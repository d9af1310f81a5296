// Runs a planned script (plan.ts) as one answer: every passage is phonemized
// first (so a voice that cannot speak a `<lang>` refuses before any audio),
// the sentence count is told, then the steps run in order, each passage on
// its voice (a Piper voice's pool, or the built-in voice) and each break as
// a sentence of silence, all numbered as one answer's sentences. The sinks
// see what a plain text's run gives them: PCM in order, and each piece's
// timing (silence included) before its audio, so timing tiles the audio.

import { silenceLength, type NativeBinding, type PhonemizedSentence, type ChunkingSettings } from '../../engine/index.js'
import type { SpokenText } from '../../text/normalize/index.js'
import type { PoolManager } from '../../pool/pool-manager.js'
import type { AnswerClock } from '../../pool/schedule-clock.js'
import { builtinSentenceCount, synthesizeBuiltin } from '../../voices/builtin.js'
import { espeakMnemonics } from '../../voices/builtin-phonemes.js'
import { silencePieces } from '../audio-ceiling.js'
import type { LookAhead } from '../look-ahead.js'
import { runSentences, type TimingSink } from '../sentence-pipeline.js'
import type { RunOptions } from '../synthesizer.js'
import type { TimedPiece } from '../timing.js'
import { builtinPiece } from '../timing/builtin-piece.js'
import { builtinTexts } from './builtin-text.js'
import { passageSentences } from './passage-phonemes.js'
import { piperUnknown, unknownPhoneme, type Passage, type ScriptStep } from './plan.js'

type ReadyStep =
  | { kind: 'piper', passage: Passage, sentences: PhonemizedSentence[] }
  | { kind: 'builtin', passage: Passage, texts: SpokenText[], counts: number[] }
  | { kind: 'break', samples: number }

export interface ScriptDeps {
  binding: NativeBinding
  pools: PoolManager
  chunking: ChunkingSettings
  lookAhead: LookAhead
  /** The request's number, ordering its tasks after earlier requests'. */
  request: number
  sampleRate: number
  /** The request's text as sent: words are sliced from it. */
  text: string
  clock: AnswerClock
  /** A timing sink that adds each Piper piece's words (Synthesizer.withWords). */
  withWords: (sentences: PhonemizedSentence[], sink: NonNullable<RunOptions['onTiming']>) => TimingSink
}

const PAUSE = '_'

async function ready (step: ScriptStep, deps: ScriptDeps): Promise<ReadyStep> {
  if (step.kind === 'break') return { kind: 'break', samples: silenceLength(deps.sampleRate, step.seconds) }
  const { voice } = step
  if (voice.kind === 'builtin') {
    const texts = builtinTexts(step.parts, espeakMnemonics(deps.binding, step.espeakVoice), voice.name)
    return { kind: 'builtin', passage: step, texts, counts: texts.map(t => builtinSentenceCount(t.text, { phonemeInput: true })) }
  }
  const config = { ...voice.voice.config, espeakVoice: step.espeakVoice }
  const sentences = await passageSentences(deps.binding, step.parts, config)
  if (step.language !== undefined) {
    for (const sentence of sentences) {
      const unknown = piperUnknown(config, String.fromCodePoint(...sentence.phonemes))
      if (unknown !== undefined) throw unknownPhoneme(voice.name, `<lang xml:lang="${step.language}">`, String.fromCodePoint(...sentence.phonemes), unknown)
    }
  }
  return { kind: 'piper', passage: step, sentences }
}

function countOf (step: ReadyStep): number {
  if (step.kind === 'break') return 1
  return step.kind === 'piper' ? step.sentences.length : step.counts.reduce((a, b) => a + b, 0)
}

/** Breaks not yet handed on: a break's timing goes out only in an answer
 * whose voices give timing, which the first piece after it shows (its
 * timing comes before its audio) or, at the end, the pieces before it did. */
class Silences {
  private readonly pending: Array<{ samples: number, sentence: number }> = []
  private timingSeen = false

  constructor (private readonly options: RunOptions, private readonly clock: AnswerClock) {}

  add (samples: number, sentence: number): void {
    this.pending.push({ samples, sentence })
  }

  /** The sinks for a passage: each hands the breaks before it on first. */
  sinks (): RunOptions {
    const { onTiming, onChunk, onSentence } = this.options
    return {
      ...this.options,
      ...(onTiming !== undefined ? { onTiming: async (piece: TimedPiece, s: number, p: number) => { this.timingSeen = true; await this.flush(true); await onTiming(piece, s, p) } } : {}),
      ...(onChunk !== undefined ? { onChunk: async (pcm: Int16Array, s: number, c: number) => { await this.flush(false); await onChunk(pcm, s, c) } } : {}),
      ...(onSentence !== undefined ? { onSentence: async (pcm: Int16Array, s: number) => { await this.flush(false); await onSentence(pcm, s) } } : {})
    }
  }

  /** Hands the pending breaks on, with their timing when the answer has timing. */
  async flush (timing = this.timingSeen): Promise<void> {
    const { onTiming, onChunk, onSentence } = this.options
    while (this.pending.length > 0) {
      const { samples, sentence } = this.pending.shift() as { samples: number, sentence: number }
      if (timing) await onTiming?.({ phonemes: Uint32Array.of(PAUSE.codePointAt(0) as number), samples: Uint32Array.of(samples), names: [PAUSE], words: [] }, sentence, 0)
      this.clock.advance(samples)
      if (onChunk === undefined) {
        await onSentence?.(new Int16Array(samples), sentence)
        continue
      }
      let chunk = 0
      for (const piece of silencePieces(samples)) await onChunk(piece, sentence, chunk++)
    }
  }
}

export async function runScript (steps: readonly ScriptStep[], signal: AbortSignal, options: RunOptions, deps: ScriptDeps): Promise<void> {
  const readied: ReadyStep[] = []
  for (const step of steps) readied.push(await ready(step, deps))
  options.onSentences?.(readied.reduce((sum, step) => sum + countOf(step), 0))
  const silences = new Silences(options, deps.clock)
  let offset = 0
  try {
    for (const step of readied) {
      if (step.kind === 'break') silences.add(step.samples, offset)
      else if (step.kind === 'piper') await runPiper(step, offset, signal, silences.sinks(), deps)
      else await runBuiltin(step, offset, signal, silences.sinks(), deps)
      offset += countOf(step)
    }
    await silences.flush()
  } finally {
    deps.clock.finish()
  }
}

async function runPiper (step: Extract<ReadyStep, { kind: 'piper' }>, offset: number, signal: AbortSignal, options: RunOptions, deps: ScriptDeps): Promise<void> {
  const { passage, sentences } = step
  if (passage.voice.kind !== 'piper') return
  const { onChunk, onSentence, onStart, onTiming } = options
  // The pipeline numbers this passage's sentences from 0; the answer's sinks from `offset`.
  const shifted = onTiming === undefined ? undefined : async (piece: TimedPiece, s: number, p: number) => await onTiming(piece, offset + s, p)
  const timing = shifted === undefined ? undefined : options.words === true ? deps.withWords(sentences, shifted) : shifted
  const { pool, release } = await deps.pools.acquire(passage.voice.voice, signal)
  try {
    await runSentences(pool, sentences.map(s => s.phonemes), passage.settings, signal, {
      request: deps.request,
      chunking: deps.chunking,
      lookAhead: deps.lookAhead,
      clock: deps.clock,
      keepClock: true,
      ...(options.tenant !== undefined ? { tenant: options.tenant } : {}),
      ...(onChunk !== undefined ? { onChunk: async (pcm, s, c) => await onChunk(pcm, offset + s, c) } : {}),
      ...(onSentence !== undefined ? { onSentence: async (pcm, s) => await onSentence(pcm, offset + s) } : {}),
      ...(onStart !== undefined ? { onStart: s => onStart(offset + s) } : {}),
      ...(timing !== undefined ? { onTiming: timing } : {})
    })
  } finally {
    release()
  }
}

async function runBuiltin (step: Extract<ReadyStep, { kind: 'builtin' }>, offset: number, signal: AbortSignal, options: RunOptions, deps: ScriptDeps): Promise<void> {
  const { passage, texts, counts } = step
  let at = offset
  for (const [i, spoken] of texts.entries()) {
    const base = at
    const { onChunk, onSentence, onTiming } = options
    await synthesizeBuiltin(deps.binding, spoken.text, passage.settings, signal, {
      ...(onChunk !== undefined ? { onChunk: async (pcm, s, c) => await onChunk(pcm, base + s, c) } : {}),
      ...(onSentence !== undefined ? { onSentence: async (pcm, s) => await onSentence(pcm, base + s) } : {}),
      ...(onTiming !== undefined
        ? {
            onClause: async (clause, s, c) => {
              const piece = builtinPiece(clause, spoken, deps.text)
              await onTiming(options.words === true ? piece : { ...piece, words: [] }, base + s, c)
            }
          }
        : {})
    }, { espeakVoice: passage.espeakVoice, phonemeInput: true })
    at += counts[i]
  }
}
