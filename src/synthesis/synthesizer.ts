// Turns a checked TtsRequest into audio: picks the voice (default rules
// included) and settings, then phonemizes off the event loop, spreads the
// sentences (and long sentences' decoder chunks) over the voice's workers
// and hands them back in order (sentence-pipeline.ts).

import type { Logger } from '../shared/logger.js'
import { encoderRuns, espeakHasVoice, type Runtime, type SentenceWord, type SynthesisConfig } from '../engine/index.js'
import { sentencePhonemesAsync, sentencePhonemesWithWordsAsync } from '../engine/phonemes.js'
import { voiceBroken } from '../voices/errors.js'
import { overloaded, voiceNotFound } from './errors.js'
import type { PoolManager } from '../pool/pool-manager.js'
import type { ChunkingSettings } from '../engine/chunking.js'
import { BUILTIN_VOICE, splitSentences, synthesizeBuiltin, type BuiltinClause } from '../voices/builtin.js'
import type { InstalledVoice, VoiceRegistry } from '../voices/registry.js'
import { isValidVoiceName } from '../voices/voice-name.js'
import { defaultVoiceStatus, type DefaultVoiceChoice, type DefaultVoiceStatus } from './default-voice.js'
import { requestSettings, type SettingsRequest } from './settings.js'
import type { TtsRequest } from './tts-request.js'
import { LookAhead } from './look-ahead.js'
import { runSentences, type ChunkSink, type WholeSentenceSink, type TimingSink } from './sentence-pipeline.js'
import { unchanged, type SpokenText } from '../text/normalize/index.js'
import { pronounce } from '../text/pronounce.js'
import { plainText, scriptKey, type ScriptPart, type ScriptStyle } from '../text/script.js'
import { looksLikeSsml } from '../text/ssml/ssml.js'
import type { LexiconSource } from './lexicon-source.js'
import { checkLexiconPhonemes } from './lexicon-check.js'
import type { Lexicon } from '../text/lexicon/lexicon.js'
import { planScript, type ScriptStep } from './script/plan.js'
import { runScript } from './script/run-script.js'
import type { TimedPiece } from './timing.js'
import { originalWords, pieceWords } from './timing/words.js'
import { builtinPiece } from './timing/builtin-piece.js'
import { AnswerClock, type PlaybackQueue } from '../pool/schedule-clock.js'
import type { Share } from '../pool/share.js'

export type { DefaultVoiceStatus }

/** A voice ready to speak. `version` changes when its files do (the phrase
 * cache keys on it); the built-in voice, part of the addon, has one version. */
export type ResolvedVoice =
  | { kind: 'piper', name: string, version: string, voice: InstalledVoice }
  | { kind: 'builtin', name: string, version: 'builtin' }

/**
 * The voice a name stands for: the built-in voice, an installed voice, or a
 * typed error (ERR_VOICE_BROKEN for files the folder scan left out,
 * ERR_VOICE_NOT_FOUND otherwise, naming `folder` when the user is on this
 * machine). The one place the built-in voice is told apart by name.
 */
export function resolveVoice (registry: VoiceRegistry, name: string, folder?: string): ResolvedVoice {
  if (name === BUILTIN_VOICE) return { kind: 'builtin', name, version: 'builtin' }
  // A name is never a path: anything that is not a valid name is simply not installed.
  const voice = isValidVoiceName(name) ? registry.get(name) : undefined
  if (voice === undefined) {
    const unusable = isValidVoiceName(name) ? registry.leftOut().get(name) : undefined
    if (unusable !== undefined) throw voiceBroken(name, unusable)
    throw voiceNotFound(name, [...registry.names(), BUILTIN_VOICE].sort(), folder)
  }
  return { kind: 'piper', name, version: voice.version, voice }
}

/** A request's settings for a voice: its overrides checked, the voice's defaults for the rest. */
function voiceSettings (voice: ResolvedVoice, request: SettingsRequest): SynthesisConfig {
  return requestSettings(request, voice.kind === 'builtin' ? 'builtin' : voice.voice.config)
}

export interface PreparedSynthesis {
  voice: ResolvedVoice
  sampleRate: number
  settings: SynthesisConfig
  /** The request's text as sent: word timing indexes it. */
  text: string
  /** The text to synthesise (the request's, trimmed and normalized if
   * asked, lexicon respellings written in) and its map back to the
   * request's text. With a script, the request's text as sent. */
  spoken: SpokenText
  /** Set when the text needs more than plain reading (SSML, inline
   * phonemes, lexicon phonemes): what to speak, step by step. */
  script?: ScriptStep[]
  /** What the phrase cache keys the text as: the spoken text, or the script. */
  cacheText: string
}

/** The language a voice's phonemizer reads, which picks the normalizer's rules
 * ('' for voices that take characters, not espeak phonemes: left unchanged). */
function voiceLanguage (voice: ResolvedVoice): string {
  if (voice.kind === 'builtin') return 'en-us'
  return voice.voice.config.phonemeType === 'espeak' ? voice.voice.config.espeakVoice : ''
}

/** Receives streamed PCM in order; chunk 0 of a sentence starts it. */
export type SentenceSink = ChunkSink

export interface RunOptions {
  /** Streamed: receives the PCM in order, chunk by chunk, as it is made. */
  onChunk?: SentenceSink
  /** Unstreamed: receives each sentence's PCM (normalised as Piper does) in
   * order, as soon as it and every earlier sentence are made; awaited. */
  onSentence?: WholeSentenceSink
  /** Told the sentence count before any audio is made; may throw to refuse. */
  onSentences?: (count: number) => void
  /** Told each sentence's index as its work is queued (Piper voices). */
  onStart?: (sentence: number) => void
  /** Whose share of the inference slots the work counts in (default: the common share). */
  tenant?: Share
  /** Each piece's timing before its audio (split Piper voices; the built-in voice, a piece a clause). */
  onTiming?: (timing: TimedPiece, sentence: number, piece: number) => void | Promise<void>
  /** With onTiming: each piece's words too (ranges of the request's text). */
  words?: boolean
  /** The answer's playback clock (clockFor), made when the request arrived;
   * default: one made now, heard after no other answer. */
  clock?: AnswerClock
}

/** The settings the synthesizer reads: the default voice, admission and bounds on one run. */
export interface SynthesizerSettings extends DefaultVoiceChoice {
  /** Requests admitted at once; beyond it, 503. */
  maxPending: number
  /** The voice folder a missing voice's error names: set only where the user
   * is on this machine (chorus say), never for an HTTP answer. */
  voiceFolder?: string
  /** A request's time; Retry-After is a tenth of it. */
  timeoutMs: number
  chunking: ChunkingSettings
  /** Streamed: sentences started ahead of the one being read (sentence-pipeline.ts). */
  sentenceWindow: number
  /** TTS_STREAM_JITTER_MS: a streamed answer's listener starts playing this
   * long after its first audio (schedule-clock.ts). */
  streamJitterMs: number
}

export class Synthesizer {
  private pendingCount = 0
  private requests = 0
  /** How far a stream's work runs ahead of its listener, for every protocol (look-ahead.ts). */
  readonly lookAhead: LookAhead

  constructor (
    private readonly config: SynthesizerSettings,
    private readonly registry: VoiceRegistry,
    private readonly pools: PoolManager,
    private readonly runtime: Runtime,
    private readonly log: Logger,
    /** Installed lexicons (src/lexicons); none: only what a request's text says. */
    private readonly lexicons?: LexiconSource
  ) {
    this.lookAhead = new LookAhead(config.sentenceWindow)
  }

  get pending (): number {
    return this.pendingCount
  }

  /** Installed voice names plus the built-in voice, sorted. */
  voiceNames (): string[] {
    return [...this.registry.names(), BUILTIN_VOICE].sort()
  }

  /** Which voice a request without `voice` gets (see default-voice.ts). */
  defaultVoice (): DefaultVoiceStatus {
    return defaultVoiceStatus(this.config, name => this.registry.get(name) !== undefined)
  }

  resolveVoice (requested: string | undefined): ResolvedVoice {
    return resolveVoice(this.registry, requested ?? this.defaultVoice().effective, this.config.voiceFolder)
  }

  /** Checks a lexicon's phonemes at its install: against `voice` alone for
   * a voice's own lexicon, else against every voice of its language. */
  checkLexicon (lexicon: Lexicon, voice?: string): void {
    const voices = voice === undefined ? this.voiceNames().map(name => this.resolveVoice(name)) : [this.resolveVoice(voice)]
    checkLexiconPhonemes(lexicon, voices, this.runtime.binding)
  }

  /** The settings a request with no overrides gets from this voice. */
  defaultSettings (voice: ResolvedVoice): SynthesisConfig {
    return voiceSettings(voice, {})
  }

  private sampleRateOf (voice: ResolvedVoice): number {
    return voice.kind === 'builtin' ? this.runtime.espeakSampleRate : voice.voice.config.sampleRate
  }

  /** Everything that can fail on bad input, before any work is queued.
   * Cheap: a cache hit is decided on what this returns. `key` is the API
   * key's name the request speaks for (its lexicons apply). */
  prepare (request: TtsRequest, key?: string): PreparedSynthesis {
    const voice = this.resolveVoice(request.voice)
    const sampleRate = this.sampleRateOf(voice)
    const lengthScale = request.speed === undefined ? request.lengthScale : this.defaultSettings(voice).lengthScale / request.speed
    const settings = voiceSettings(voice, { ...request, lengthScale })
    // The one place a request's text is read (SSML, inline phonemes), trimmed,
    // normalized and given its lexicons, for every protocol (text/pronounce.ts).
    const parts = pronounce(request.text, {
      ssml: request.ssml === true || looksLikeSsml(request.text),
      trim: request.trim === true,
      normalize: request.normalize === true,
      language: voiceLanguage(voice),
      lexicon: style => this.lexiconFor(style, voice, request, key)
    })
    const plain = plainText(parts)
    if (plain !== undefined) return { voice, sampleRate, settings, text: request.text, spoken: plain.spoken, cacheText: plain.spoken.text }
    return { voice, sampleRate, settings, text: request.text, spoken: unchanged(request.text), ...this.scripted(parts, voice, settings, sampleRate, request) }
  }

  private lexiconFor (style: ScriptStyle, voice: ResolvedVoice, request: TtsRequest, key: string | undefined): ReturnType<LexiconSource['matcher']> {
    if (this.lexicons === undefined) return undefined
    const speaker = style.voice === undefined ? voice : this.resolveVoice(style.voice)
    return this.lexicons.matcher({ voice: speaker.name, language: style.language ?? voiceLanguage(speaker), ...(key === undefined ? {} : { key }), named: request.lexicons ?? [] })
  }

  /** The steps of a script, planned and checked, and its cache text (which names every voice's version). */
  private scripted (parts: ScriptPart[], voice: ResolvedVoice, settings: SynthesisConfig, sampleRate: number, request: TtsRequest): { script: ScriptStep[], cacheText: string } {
    const script = planScript(parts, {
      binding: this.runtime.binding,
      voice,
      settings,
      sampleRate,
      otherVoice: name => {
        const other = this.resolveVoice(name)
        const lengthScale = request.speed === undefined ? request.lengthScale : this.defaultSettings(other).lengthScale / request.speed
        return { voice: other, settings: voiceSettings(other, { ...request, speaker: undefined, lengthScale }), sampleRate: this.sampleRateOf(other) }
      },
      hasEspeakVoice: name => espeakHasVoice(name) === true
    })
    const voices = [...new Set(script.flatMap(step => step.kind === 'passage' ? [`${step.voice.name}@${step.voice.version}`] : []))]
    return { script, cacheText: JSON.stringify([scriptKey(parts), voices]) }
  }

  /** A timing sink that adds each piece's words: its place in its sentence
   * is where encoderRuns cut it, as the pipeline does. */
  private withWords (prepared: PreparedSynthesis, phonemes: Uint32Array[], words: SentenceWord[][],
    sink: NonNullable<RunOptions['onTiming']>, streamed: boolean): TimingSink {
    const offsets: number[][] = []
    return async (timing, sentence, piece) => {
      if (offsets[sentence] === undefined) {
        let at = 0
        offsets[sentence] = encoderRuns(phonemes[sentence], this.config.chunking, streamed && sentence === 0).map(cut => { at += cut.length; return at - cut.length })
      }
      const offset = offsets[sentence][piece] ?? 0
      const inPiece = pieceWords(words[sentence] ?? [], offset, timing.phonemes.length - 2)
      await sink({ ...timing, words: inPiece.map(w => ({ ...w, word: prepared.text.slice(w.textStart, w.textEnd) })) }, sentence, piece)
    }
  }

  /** Admits one more request or refuses at once with 503. Call the returned
   * function when the request is done. */
  admit (): () => void {
    if (this.pendingCount >= this.config.maxPending) throw overloaded(this.retryAfterSeconds)
    this.pendingCount++
    let released = false
    return () => {
      if (!released) {
        released = true
        this.pendingCount--
      }
    }
  }

  /** What a refused request is told to wait: a tenth of a request's time. */
  get retryAfterSeconds (): number {
    return Math.max(1, Math.ceil(this.config.timeoutMs / 1000 / 10))
  }

  /** Audio seconds per second the inference slots make now, as measured
   * (cost-meter.ts); undefined before any audio was made. */
  streamCapacity (): number | undefined {
    const gate = this.pools.gate
    return gate.cost.capacity(gate.limit)
  }

  /** A playback clock for an answer arriving now: streamed or whole, and
   * heard after the last answer of `queue` when given (schedule-clock.ts). */
  clockFor (prepared: PreparedSynthesis, streamed: boolean, queue?: PlaybackQueue): AnswerClock {
    const now = (): number => performance.now()
    return queue === undefined
      ? new AnswerClock(now, streamed, prepared.sampleRate, this.config.streamJitterMs)
      : queue.next(now, streamed, prepared.sampleRate, this.config.streamJitterMs)
  }

  /** Synthesises every sentence, handing the audio on as it is made:
   * streamed to `options.onChunk`, else whole sentences to `options.onSentence`.
   * Nothing is kept here once handed on. */
  async run (prepared: PreparedSynthesis, text: string, signal: AbortSignal, options: RunOptions = {}): Promise<void> {
    if (prepared.script !== undefined) {
      await runScript(prepared.script, signal, options, {
        binding: this.runtime.binding,
        pools: this.pools,
        chunking: this.config.chunking,
        lookAhead: this.lookAhead,
        request: this.requests++,
        sampleRate: prepared.sampleRate,
        text: prepared.text,
        clock: options.clock ?? this.clockFor(prepared, options.onChunk !== undefined),
        withWords: (sentences, sink) => this.withWords(prepared, sentences.map(s => s.phonemes), sentences.map(s => s.words), sink, options.onChunk !== undefined)
      })
      return
    }
    const { onChunk, onSentence, onSentences, onStart, tenant } = options
    if (prepared.voice.kind === 'builtin') {
      onSentences?.(splitSentences(text).length)
      const timing = options.onTiming
      const onClause = timing === undefined ? undefined : async (clause: BuiltinClause, sentence: number, chunk: number) => {
        const piece = builtinPiece(clause, prepared.spoken, prepared.text)
        await timing(options.words === true ? piece : { ...piece, words: [] }, sentence, chunk)
      }
      await synthesizeBuiltin(this.runtime.binding, text, prepared.settings, signal, { onChunk, onSentence, onClause })
      return
    }
    // The clock starts at arrival, before phonemizing: that wait is the listener's too.
    const clock = options.clock ?? this.clockFor(prepared, onChunk !== undefined)
    const config = prepared.voice.voice.config
    let phonemes: Uint32Array[]
    let onTiming: TimingSink | undefined = options.onTiming
    if (options.onTiming !== undefined && options.words === true) {
      const sentences = await sentencePhonemesWithWordsAsync(this.runtime.binding, text, config)
      phonemes = sentences.map(s => s.phonemes)
      onTiming = this.withWords(prepared, phonemes, sentences.map(s => originalWords(s.words, prepared.spoken)), options.onTiming, onChunk !== undefined)
    } else {
      phonemes = await sentencePhonemesAsync(this.runtime.binding, text, config)
    }
    onSentences?.(phonemes.length)
    const { pool, release } = await this.pools.acquire(prepared.voice.voice, signal)
    try {
      const result = await runSentences(pool, phonemes, prepared.settings, signal, {
        request: this.requests++, chunking: this.config.chunking, onChunk, onSentence, onStart, lookAhead: this.lookAhead, onTiming, clock, tenant
      })
      this.log.debug({ voice: prepared.voice.name, spread: result.spread }, 'sentences decoded')
      if (result.missingPhonemes > 0) this.log.warn({ voice: prepared.voice.name, missingPhonemes: result.missingPhonemes }, 'phonemes missing from the voice\'s map were skipped')
    } finally {
      release()
    }
  }
}
