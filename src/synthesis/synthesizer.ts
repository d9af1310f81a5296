// Turns a checked TtsRequest into audio: picks the voice (default rules
// included) and settings, then phonemizes on this thread, spreads the
// sentences over the voice's workers in parallel and hands them back in order.

import type { Logger } from 'pino'
import type { Runtime, SynthesisConfig } from '../engine/index.js'
import { sentencePhonemes } from '../engine/phonemes.js'
import { OverloadedError, VoiceNotFoundError } from '../errors.js'
import type { PoolManager } from '../pool/pool-manager.js'
import type { ServiceConfig } from '../service/config.js'
import { BUILTIN_VOICE, synthesizeBuiltin } from '../voices/builtin.js'
import type { InstalledVoice, VoiceRegistry } from '../voices/registry.js'
import { isValidVoiceName } from '../voices/voice-name.js'
import { defaultVoiceStatus, type DefaultVoiceStatus } from './default-voice.js'
import { requestSettings } from './settings.js'
import type { TtsRequest } from './tts-request.js'

export type { DefaultVoiceStatus }

export type ResolvedVoice = { kind: 'piper', name: string, voice: InstalledVoice } | { kind: 'builtin', name: string }

export interface PreparedSynthesis {
  voice: ResolvedVoice
  sampleRate: number
  settings: SynthesisConfig
}

export type SentenceSink = (pcm: Int16Array, index: number) => void

export class Synthesizer {
  private pendingCount = 0

  constructor (
    private readonly config: ServiceConfig,
    private readonly registry: VoiceRegistry,
    private readonly pools: PoolManager,
    private readonly runtime: Runtime,
    private readonly log: Logger
  ) {}

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
    const name = requested ?? this.defaultVoice().effective
    if (name === BUILTIN_VOICE) return { kind: 'builtin', name }
    // A name is never a path: anything that is not a valid name is simply not installed.
    const voice = isValidVoiceName(name) ? this.registry.get(name) : undefined
    if (voice === undefined) throw new VoiceNotFoundError(name, this.voiceNames())
    return { kind: 'piper', name, voice }
  }

  /** Everything that can fail on bad input, before any work is queued.
   * Cheap: a cache hit is decided on what this returns. */
  prepare (request: TtsRequest): PreparedSynthesis {
    const voice = this.resolveVoice(request.voice)
    if (voice.kind === 'builtin') {
      return { voice, sampleRate: this.runtime.espeakSampleRate, settings: requestSettings(request, 'builtin') }
    }
    return { voice, sampleRate: voice.voice.config.sampleRate, settings: requestSettings(request, voice.voice.config) }
  }

  /** Admits one more request or refuses at once with 503. Call the returned
   * function when the request is done. */
  admit (): () => void {
    if (this.pendingCount >= this.config.maxPending) {
      throw new OverloadedError(Math.max(1, Math.ceil(this.config.timeoutMs / 1000 / 10)))
    }
    this.pendingCount++
    let released = false
    return () => {
      if (!released) {
        released = true
        this.pendingCount--
      }
    }
  }

  /** Synthesises every sentence; `onSentence` receives them in order, each
   * as soon as it and all earlier ones are ready. */
  async run (prepared: PreparedSynthesis, text: string, signal: AbortSignal, onSentence?: SentenceSink): Promise<Int16Array[]> {
    if (prepared.voice.kind === 'builtin') {
      return await synthesizeBuiltin(this.runtime.binding, text, prepared.settings, signal, onSentence)
    }
    const phonemes = sentencePhonemes(this.runtime.binding, text, prepared.voice.voice.config)
    const { pool, release } = await this.pools.acquire(prepared.voice.voice)
    const sentences: Int16Array[] = []
    let missing = 0
    try {
      // All sentences are queued at once so they spread over the workers.
      const pending = phonemes.map(sentence => pool.run(sentence, prepared.settings, signal))
      // Keep a later failure from surfacing as an unhandled rejection while we
      // wait on an earlier sentence; each is awaited in order below.
      for (const p of pending) p.catch(() => {})
      for (const [index, p] of pending.entries()) {
        const result = await p
        missing += result.missingPhonemes
        sentences.push(result.pcm)
        onSentence?.(result.pcm, index)
      }
    } finally {
      release()
    }
    if (missing > 0) this.log.warn({ voice: prepared.voice.name, missingPhonemes: missing }, 'phonemes missing from the voice\'s map were skipped')
    return sentences
  }
}
