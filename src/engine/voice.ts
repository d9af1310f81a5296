// One loaded Piper voice: config + ONNX session, and the synthesis pipeline
// phonemize → phoneme ids → infer → 16-bit PCM, one sentence at a time.

import { basename } from 'node:path'
import { SynthesisCancelledError, VoiceLoadError } from '../errors.js'
import { floatToPcm16, joinSentences, silenceLength } from './audio.js'
import { toTypedError, type NativePhonemeIdMap, type NativeVoice } from './native.js'
import { sentencePhonemes } from './phonemes.js'
import { initRuntime, type Runtime, type RuntimeOptions } from './runtime.js'
import type { SynthesisConfig } from './synthesis-config.js'
import { loadVoiceConfig, type VoiceConfig } from './voice-config.js'

export interface SessionOptions {
  /** ONNX Runtime intra-op threads; 1 by default (the pool parallelises). */
  intraOpThreads?: number
  interOpThreads?: number
  /** 0 none, 1 basic, 2 extended, 3 all (default). */
  optimizationLevel?: number
}

export interface LoadVoiceOptions extends RuntimeOptions {
  /** Default: the model path + ".json". */
  configPath?: string
  /** An already parsed and validated config; configPath is then not read. */
  config?: VoiceConfig
  session?: SessionOptions
  /** Run one short inference after loading (default true). */
  warmUp?: boolean
}

export interface SentenceAudio {
  pcm: Int16Array
  /** Phonemes that were not in the voice's map and were skipped. */
  missingPhonemes: number
}

export interface SynthesisResult {
  pcm: Int16Array
  sampleRate: number
  sentences: number
  missingPhonemes: number
}

/** The voice name from its model file: `en_US-lessac-medium.onnx` → `en_US-lessac-medium`. */
export function voiceNameOf (modelPath: string): string {
  return basename(modelPath).replace(/\.onnx$/, '')
}

export class PiperVoice {
  private closed = false

  private constructor (
    readonly name: string,
    readonly modelPath: string,
    readonly config: VoiceConfig,
    private readonly runtime: Runtime,
    private readonly session: NativeVoice,
    private readonly idMap: NativePhonemeIdMap
  ) {}

  /** Loads config and model. Rejects with VoiceConfigError or VoiceLoadError. */
  static async load (modelPath: string, options: LoadVoiceOptions = {}): Promise<PiperVoice> {
    const config = options.config ?? await loadVoiceConfig(options.configPath ?? `${modelPath}.json`)
    const runtime = initRuntime(options)
    let session: NativeVoice
    try {
      session = await runtime.binding.loadVoice(modelPath, options.session ?? {})
    } catch (error) {
      throw new VoiceLoadError((toTypedError(error) as Error).message, { cause: error })
    }
    if (config.numSpeakers > 1 && !session.hasSpeakerInput) {
      session.close()
      throw new VoiceLoadError(`Model ${modelPath} has no sid input but its config declares ${config.numSpeakers} speakers`)
    }
    const voice = new PiperVoice(voiceNameOf(modelPath), modelPath, config, runtime, session,
      new runtime.binding.PhonemeIdMap(config.phonemeIdMap))
    if (options.warmUp !== false) await voice.warmUp()
    return voice
  }

  /** The first run of a session allocates and plans; do it before real work. */
  private async warmUp (): Promise<void> {
    const { ids } = this.phonemeIds(Uint32Array.from('ə.', c => c.codePointAt(0) as number))
    await this.infer(ids, { ...this.config.inference, speakerId: 0, sentenceSilence: 0 })
  }

  /** Per-sentence phoneme codepoints. Synchronous; holds the espeak lock. */
  phonemize (text: string): Uint32Array[] {
    return sentencePhonemes(this.runtime.binding, text, this.config)
  }

  phonemeIds (phonemes: Uint32Array): { ids: BigInt64Array, missing: number } {
    return this.idMap.toIds(phonemes)
  }

  /** Raw float output for one sentence's ids. Runs on the libuv thread pool;
   * several calls may run at once. Aborting `signal` stops the run. */
  async infer (ids: BigInt64Array, settings: SynthesisConfig, signal?: AbortSignal): Promise<Float32Array> {
    if (this.closed) throw new VoiceLoadError(`Voice ${this.name} has been closed`)
    if (signal?.aborted === true) throw new SynthesisCancelledError()
    const sid = this.session.hasSpeakerInput ? settings.speakerId : 0
    const token = signal === undefined ? undefined : new this.runtime.binding.CancelToken()
    const cancel = () => token?.cancel()
    signal?.addEventListener('abort', cancel, { once: true })
    try {
      return await this.session.infer(ids, settings.noiseScale, settings.lengthScale, settings.noiseW, sid, token)
    } catch (error) {
      throw toTypedError(error)
    } finally {
      signal?.removeEventListener('abort', cancel)
    }
  }

  /** One sentence (phoneme codepoints) to 16-bit PCM. */
  async synthesizeSentence (phonemes: Uint32Array, settings: SynthesisConfig, signal?: AbortSignal): Promise<SentenceAudio> {
    const { ids, missing } = this.phonemeIds(phonemes)
    const samples = await this.infer(ids, settings, signal)
    return { pcm: floatToPcm16(samples), missingPhonemes: missing }
  }

  /** Whole text, sentence by sentence on this thread, joined with silence. */
  async synthesize (text: string, settings: SynthesisConfig, signal?: AbortSignal): Promise<SynthesisResult> {
    const sentences = this.phonemize(text)
    const pcm: Int16Array[] = []
    let missingPhonemes = 0
    for (const phonemes of sentences) {
      if (signal?.aborted === true) throw new SynthesisCancelledError()
      const audio = await this.synthesizeSentence(phonemes, settings, signal)
      pcm.push(audio.pcm)
      missingPhonemes += audio.missingPhonemes
    }
    return {
      pcm: joinSentences(pcm, silenceLength(this.config.sampleRate, settings.sentenceSilence)),
      sampleRate: this.config.sampleRate,
      sentences: sentences.length,
      missingPhonemes
    }
  }

  /** Releases the session once runs in flight finish. */
  close (): void {
    this.closed = true
    this.session.close()
  }
}
