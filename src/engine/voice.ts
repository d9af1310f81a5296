// One loaded Piper voice: config + ONNX session, and the synthesis pipeline
// phonemize → phoneme ids → infer → 16-bit PCM, one sentence at a time.

import { readFile, realpath, stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { setTimeout } from 'node:timers/promises'
import { SynthesisCancelledError, VoiceLoadError } from './errors.js'
import { discardBytes } from './memory/index.js'
import { concatSamples, floatToPcm16, joinSentences, peakOf, silenceLength } from './audio.js'
import { capPhonemes, DEFAULT_CHUNKING, marginFor, planChunks, sliceLatent, withMargin, type ChunkingSettings, type FrameRange } from './chunking.js'
import { toTypedError, type NativeBinding, type NativeCancelToken, type NativeLoadOptions, type NativeSessionOptions, type NativePhonemeIdMap, type NativeTensor, type NativeVoice } from './native.js'
import type { SplitCut, SplitInfo } from './onnx/decoder-split.js'
import { cutBytes, ModelCutter } from './onnx/model-cutter.js'
import { phonemeFrames, totalFrames, type PhonemeFrames } from './phoneme-frames.js'
import { sentencePhonemes, sentencePhonemesAsync } from './phonemes.js'
import { initRuntime, type Runtime, type RuntimeOptions } from './runtime.js'
import type { SynthesisConfig } from './synthesis-config.js'
import { loadVoiceConfig, type VoiceConfig } from './voice-config.js'

export interface SessionOptions extends NativeSessionOptions {
  /** Run a split voice's 1-D convolutions as 2-D ones of height 1 (default
   * true): the same audio, ~20 % less decoder time (docs/engine.md). */
  liftConvolutions?: boolean
  /** Compute the text encoder's relative-position attention over its window
   * only (default false): the same audio (bit for bit, or within float
   * rounding at some lengths), ~20 % less encoder time for a 45-word
   * sentence, but a higher memory peak on long texts (docs/engine.md). */
  bandAttention?: boolean
}

export interface LoadVoiceOptions extends RuntimeOptions {
  /** Default: the model path + ".json". */
  configPath?: string
  /** An already parsed and validated config; configPath is then not read. */
  config?: VoiceConfig
  session?: SessionOptions
  /** Run one short inference after loading (default true). */
  warmUp?: boolean
  /** Cut the graph into encoder and decoder when its shape allows (default true). */
  split?: boolean
  /** Only this cut (default: the earliest the graph allows, then the next). */
  cut?: SplitCut
}

/** Another frame-aligned input of the chunked part ([1, channels, frames]). */
export interface FramedTensor {
  data: Float32Array
  channels: number
}

/** A sentence's latent, ready to be decoded in chunks. */
export interface SentenceEncoding {
  latent: Float32Array
  channels: number
  frames: number
  /** Sliced with the latent for every chunk (the flow's mask). */
  framed: FramedTensor[]
  /** Passed whole to every chunk (speaker conditioning). */
  side: NativeTensor[]
  /** Each phoneme id's length in frames (they sum to `frames`), when the
   * split has them (see phoneme-frames.ts). */
  durations?: Float32Array
  /** Staged voices: the latent is the flow's output already (no framed
   * tensors then), not the encoder's. */
  flowed?: boolean
}

/** The arrays of an encoding that are sliced per chunk: the latent and the framed inputs. */
export function frameAlignedArrays (encoding: SentenceEncoding): Float32Array[] {
  return [encoding.latent, ...encoding.framed.map(t => t.data)]
}

/** How a voice runs: `split` (encoder + chunked part) or `whole`. */
export interface VoiceMode {
  mode: 'split' | 'whole'
  /** Split voices: `flow` when the flow runs in the chunks with the decoder,
   * `decoder` when only the decoder does, `staged` when the flow runs on its
   * own between encoder and decoder. */
  cut?: SplitCut
  /** Why a voice runs whole or at the later cut; set by the thread that loaded the model. */
  reason?: string
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
function voiceNameOf (modelPath: string): string {
  return basename(modelPath).replace(/\.onnx$/, '')
}

export class PiperVoice {
  private closed = false
  /** Output samples per latent frame, measured at warm-up (split voices). */
  hopLength = 0
  /** Peak of the warm-up sentence: a first guess at the voice's typical peak. */
  referencePeak = 0
  private readonly info: SplitInfo
  /** Staged voices: the flow's wall time per frame, a moving average of its
   * runs over enough frames that the run's fixed cost does not dominate. */
  private flowMsPerFrame = 0

  private constructor (
    readonly name: string,
    readonly modelPath: string,
    readonly config: VoiceConfig,
    private readonly runtime: Runtime,
    private readonly session: NativeVoice,
    private readonly idMap: NativePhonemeIdMap,
    readonly mode: VoiceMode
  ) {
    this.info = splitInfoOf(session)
  }

  /** Loads config and model. Rejects with VoiceConfigError or VoiceLoadError.
   * The model is loaded once per process: another thread's load of the same
   * file (same size and time) with the same settings is shared. */
  static async load (modelPath: string, options: LoadVoiceOptions = {}): Promise<PiperVoice> {
    const config = options.config ?? await loadVoiceConfig(options.configPath ?? `${modelPath}.json`)
    const runtime = initRuntime(options)
    const settings = options.session ?? {}
    const split = options.split !== false
    let session: NativeVoice
    let mode: VoiceMode
    try {
      const key = await modelKey(modelPath, settings, split, options.cut)
      const shared = await sharedLoad(runtime.binding, key)
      if (shared !== null) {
        session = shared
        mode = modeOf(shared)
      } else {
        try {
          const rewrites = { lift: settings.liftConvolutions !== false, band: settings.bandAttention === true }
          const loaded = await loadModel(runtime, key, { ...settings, label: modelPath }, modelPath, split, options.cut, rewrites)
          session = loaded.session
          mode = { ...modeOf(session), ...(loaded.reason !== undefined ? { reason: loaded.reason } : {}) }
        } finally {
          runtime.binding.releaseClaim(key)
        }
      }
    } catch (error) {
      throw new VoiceLoadError(loadMessage(modelPath, toTypedError(error)), { cause: error })
    }
    if (config.numSpeakers > 1 && !session.hasSpeakerInput) {
      session.close()
      throw new VoiceLoadError(`Model ${modelPath} has no sid input but its config declares ${config.numSpeakers} speakers`)
    }
    const voice = new PiperVoice(voiceNameOf(modelPath), modelPath, config, runtime, session,
      new runtime.binding.PhonemeIdMap(config.phonemeIdMap), mode)
    if (options.warmUp !== false || mode.mode === 'split') await voice.warmUp()
    return voice
  }

  /** Heap bytes of the model's sessions, once per process however many threads hold it. */
  get memoryBytes (): number {
    return this.session.memoryBytes
  }

  /** Its encoder runs on a session shared with the voices of its architecture. */
  get encoderShared (): boolean {
    return this.session.encoderShared
  }

  /** A busy encode runs on one thread (the encoder has more, and is shared). */
  get hasBusyEncoder (): boolean {
    return this.session.hasBusyEncoder
  }

  /** The first run of a session allocates and plans; do it before real work. */
  private async warmUp (): Promise<void> {
    const { ids } = this.phonemeIds(Uint32Array.from('ə.', c => c.codePointAt(0) as number))
    const settings = { ...this.config.inference, speakerId: 0, sentenceSilence: 0 }
    if (this.mode.mode === 'whole') {
      this.referencePeak = peakOf(await this.infer(ids, settings))
      return
    }
    // Also measures samples per frame, which the chunking needs.
    const encoding = await this.encode(ids, settings)
    const samples = await this.decodeFrames(encoding, { start: 0, end: encoding.frames })
    if (encoding.frames === 0 || samples.length % encoding.frames !== 0) {
      throw new VoiceLoadError(`Model ${this.modelPath}: its decoder made ${samples.length} samples from ${encoding.frames} frames`)
    }
    this.hopLength = samples.length / encoding.frames
    this.referencePeak = peakOf(samples)
  }

  /** Per-sentence phoneme codepoints. Synchronous; holds the espeak lock. */
  phonemize (text: string): Uint32Array[] {
    return sentencePhonemes(this.runtime.binding, text, this.config)
  }

  /** The same, off this thread: the event loop never waits for espeak. */
  async phonemizeAsync (text: string): Promise<Uint32Array[]> {
    return await sentencePhonemesAsync(this.runtime.binding, text, this.config)
  }

  phonemeIds (phonemes: Uint32Array): { ids: BigInt64Array, missing: number } {
    return this.idMap.toIds(phonemes)
  }

  /** Raw float output for one sentence's ids: the whole graph (or encoder
   * then decoder in one piece). Runs on the libuv thread pool; several calls
   * may run at once. Aborting `signal` stops the run. */
  async infer (ids: BigInt64Array, settings: SynthesisConfig, signal?: AbortSignal): Promise<Float32Array> {
    return await this.call(signal, token =>
      this.session.infer(ids, settings.noiseScale, settings.lengthScale, settings.noiseW, this.speakerId(settings), token))
  }

  /** Split voices: the latent of one sentence. `busy`: other runs hold the
   * cores, so the encoder takes one thread (same result; see hasBusyEncoder). */
  async encode (ids: BigInt64Array, settings: SynthesisConfig, signal?: AbortSignal, busy = false): Promise<SentenceEncoding> {
    const { latent, side, durations } = await this.call(signal, token =>
      this.session.encode(ids, settings.noiseScale, settings.lengthScale, settings.noiseW, this.speakerId(settings), token, busy))
    const [, channels, frames] = latent.shape
    const framed = side.slice(0, this.info.framed).map(tensor => {
      // Checked on every sentence: a cut that misjudged a tensor's frame axis
      // must fail loudly, not decode misaligned chunks.
      if (tensor.shape.length !== 3 || tensor.shape[2] !== frames) {
        throw new VoiceLoadError(`Model ${this.modelPath}: a frame-aligned input of its chunked part has shape [${tensor.shape.join(', ')}], not [1, c, ${frames}]`)
      }
      return { data: tensor.data, channels: tensor.shape[1] }
    })
    return { latent: latent.data, channels, frames, framed, side: side.slice(this.info.framed), ...(durations !== undefined ? { durations: durations.data } : {}) }
  }

  /** Each phoneme's frames in an encoded sentence, or undefined when the
   * voice gives no durations or they do not add up to its frames (Piper
   * makes at least one frame of a sentence whose lengths round to none). */
  phonemeFrames (phonemes: Uint32Array, encoding: SentenceEncoding): PhonemeFrames | undefined {
    if (encoding.durations === undefined) return undefined
    const result = phonemeFrames(phonemes, this.config.phonemeIdMap, encoding.durations)
    return result !== undefined && totalFrames(result.frames) === encoding.frames ? result : undefined
  }

  /** The margin decoded on each side of a chunk: the operator's, or what this
   * voice's cut needs (staged: the decoder's own; the flow's context is
   * added where the flow runs, see flowContextFrames). */
  marginFrames (chunking: ChunkingSettings): number {
    return marginFor(chunking, this.staged ? 0 : this.info.contextFrames)
  }

  /** Staged voices: the frames of context the flow needs on each side of the
   * frames it makes exactly; 0 for other voices. */
  get flowContextFrames (): number {
    return this.staged ? this.info.contextFrames : 0
  }

  /** Staged voices: how long the flow over `frames` frames should take on
   * this thread, from the flow runs it made so far (Infinity before any). */
  flowEstimateMs (frames: number): number {
    return this.flowMsPerFrame === 0 ? Number.POSITIVE_INFINITY : this.flowMsPerFrame * frames
  }

  private get staged (): boolean {
    return this.info.cut === 'staged'
  }

  /** Staged voices: the encoding with its flow run over every frame (its
   * chunks then decode only their margins; for non-staged voices, the
   * encoding as it is), in `parts` windows run at once when a sentence is
   * long enough (each on a thread of the libuv pool: cores that would stay
   * idle, for the flow's context again at each cut). The arrays of
   * `encoding` are left as they were. */
  async flowed (encoding: SentenceEncoding, signal?: AbortSignal, parts = 1): Promise<SentenceEncoding> {
    if (!this.staged || encoding.flowed === true) return encoding
    const { frames } = encoding
    const count = Math.max(1, Math.min(parts, Math.floor(frames / (FLOW_PART_MIN_CONTEXTS * this.info.contextFrames || 1))))
    const ranges = Array.from({ length: count }, (_, i) => ({ start: Math.round(i * frames / count), end: Math.round((i + 1) * frames / count) }))
    const made = await Promise.all(ranges.map(async range => await this.flowFrames(encoding, range, signal)))
    const channels = made[0].channels
    if (made.length === 1) return flowedEncoding(encoding, made[0])
    const latent = joinFrames(made.map(m => m.data), ranges, channels, frames)
    discardBytes(made.map(m => m.data))
    return flowedEncoding(encoding, { data: latent, channels })
  }

  /** Split voices: the samples of latent frames `range`, decoded with
   * `marginFrames` of context on each side that are then dropped. */
  async decodeChunk (encoding: SentenceEncoding, range: FrameRange, marginFrames: number, signal?: AbortSignal): Promise<Float32Array> {
    const decoded = withMargin(range, encoding.frames, marginFrames)
    const samples = await this.decodeFrames(encoding, decoded, signal)
    const offset = (range.start - decoded.start) * this.hopLength
    return samples.subarray(offset, offset + (range.end - range.start) * this.hopLength)
  }

  /** One sentence's samples through the split pipeline on this thread, chunk
   * by chunk (whole voices: one run). The pool spreads chunks over threads
   * instead; this is the reference it must match. */
  async sentenceSamples (ids: BigInt64Array, settings: SynthesisConfig, chunking: ChunkingSettings = DEFAULT_CHUNKING, signal?: AbortSignal): Promise<Float32Array> {
    if (this.mode.mode === 'whole') return await this.infer(ids, settings, signal)
    const encoding = await this.encode(ids, settings, signal)
    const chunks: Float32Array[] = []
    for (const range of planChunks(encoding.frames, chunking, { stream: false, parallelism: 1, marginFrames: this.marginFrames(chunking) })) {
      chunks.push(await this.decodeChunk(encoding, range, this.marginFrames(chunking), signal))
    }
    return concatSamples(chunks, n => new Float32Array(n))
  }

  /** Staged voices: the flow's output for frames `range` of an encoding not
   * yet flowed, run over the range and the flow's context on each side
   * (exact: what the flow makes of the whole sentence there). */
  private async flowFrames (encoding: SentenceEncoding, range: FrameRange, signal?: AbortSignal): Promise<FramedTensor> {
    const window = withMargin(range, encoding.frames, this.info.contextFrames)
    const frames = window.end - window.start
    const started = performance.now()
    const made = await this.runWindow(encoding, window, (latent, inputs, token) => this.session.flow(latent, inputs, token), signal)
    if (frames >= FLOW_TIMING_MIN_FRAMES) {
      const perFrame = (performance.now() - started) / frames
      this.flowMsPerFrame = this.flowMsPerFrame === 0 ? perFrame : this.flowMsPerFrame * 0.8 + perFrame * 0.2
    }
    const channels = made.length / frames
    if (range.start === window.start && range.end === window.end) return { data: made, channels }
    try {
      return { data: sliceLatent(made, channels, frames, { start: range.start - window.start, end: range.end - window.start }), channels }
    } finally {
      discardBytes([new Uint8Array(made.buffer)])
    }
  }

  private async decodeFrames (encoding: SentenceEncoding, range: FrameRange, signal?: AbortSignal): Promise<Float32Array> {
    const decode = (latent: NativeTensor, inputs: NativeTensor[], token?: NativeCancelToken) => this.session.decode(latent, inputs, token)
    if (!this.staged || encoding.flowed === true) return await this.runWindow(encoding, range, decode, signal)
    // The flow first, over this range only; then the decoder on what it made.
    const made = await this.flowFrames(encoding, range, signal)
    try {
      const flowed = flowedEncoding(encoding, made, range.end - range.start)
      return await this.runWindow(flowed, { start: 0, end: flowed.frames }, decode, signal)
    } finally {
      discardBytes([new Uint8Array(made.data.buffer)])
    }
  }

  /** Runs `run` (the flow, or the decoder) on frames `window` of an
   * encoding's frame-aligned tensors, its side tensors whole. */
  private async runWindow (encoding: SentenceEncoding, window: FrameRange,
    run: (latent: NativeTensor, inputs: NativeTensor[], token?: NativeCancelToken) => Promise<Float32Array>, signal?: AbortSignal): Promise<Float32Array> {
    const whole = window.start === 0 && window.end === encoding.frames
    const slice = (data: Float32Array, channels: number): NativeTensor => ({
      data: whole ? data : sliceLatent(data, channels, encoding.frames, window),
      shape: [1, channels, window.end - window.start]
    })
    const latent = slice(encoding.latent, encoding.channels)
    const framed = encoding.framed.map(t => slice(t.data, t.channels))
    try {
      return await this.call(signal, token => run(latent, [...framed, ...encoding.side], token))
    } finally {
      // The addon copied the slices; freed now rather than at this thread's
      // next collection (see owning() in src/pool/worker.ts).
      if (!whole) discardBytes([latent, ...framed].map(t => new Uint8Array(t.data.buffer)))
    }
  }

  private speakerId (settings: SynthesisConfig): number {
    return this.session.hasSpeakerInput ? settings.speakerId : 0
  }

  /** Runs a native call with a cancel token tied to `signal`, mapping its errors. */
  private async call<T> (signal: AbortSignal | undefined, run: (token?: NativeCancelToken) => Promise<T>): Promise<T> {
    if (this.closed) throw new VoiceLoadError(`Voice ${this.name} has been closed`)
    if (signal?.aborted === true) throw new SynthesisCancelledError()
    const token = signal === undefined ? undefined : new this.runtime.binding.CancelToken()
    const cancel = () => token?.cancel()
    signal?.addEventListener('abort', cancel, { once: true })
    try {
      return await run(token)
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

  /** Whole text, sentence by sentence on this thread, joined with silence
   * (what `chorus say` runs). */
  async synthesize (text: string, settings: SynthesisConfig, signal?: AbortSignal, chunking: ChunkingSettings = DEFAULT_CHUNKING): Promise<SynthesisResult> {
    const sentences = await this.phonemizeAsync(text)
    const pcm: Int16Array[] = []
    let missingPhonemes = 0
    for (const phonemes of sentences) {
      // Bounded work per run, as in the service: pieces past the phoneme cap,
      // chunks of the decoder; normalised over the whole sentence.
      const pieces: Float32Array[] = []
      for (const piece of capPhonemes(phonemes, chunking.maxPhonemes)) {
        if (signal?.aborted === true) throw new SynthesisCancelledError()
        const { ids, missing } = this.phonemeIds(piece)
        pieces.push(await this.sentenceSamples(ids, settings, chunking, signal))
        missingPhonemes += missing
      }
      pcm.push(floatToPcm16(concatSamples(pieces, n => new Float32Array(n))))
    }
    return {
      pcm: joinSentences(pcm, silenceLength(this.config.sampleRate, settings.sentenceSilence)),
      sampleRate: this.config.sampleRate,
      sentences: sentences.length,
      missingPhonemes
    }
  }

  /** Releases this thread's handle; the model is freed once no thread holds
   * it and runs in flight finish. */
  close (): void {
    this.closed = true
    this.session.close()
  }
}

/** A whole flow is cut into windows only when each is at least this many
 * times the flow's context: shorter, the repeated context costs more than a
 * second core gains. */
const FLOW_PART_MIN_CONTEXTS = 8

/** `from` with its latent replaced by the flow's output (over all its frames,
 * or over `frames` of them): nothing else is framed then. */
function flowedEncoding (from: SentenceEncoding, latent: FramedTensor, frames = from.frames): SentenceEncoding {
  const { side, durations } = from
  return { latent: latent.data, channels: latent.channels, frames, framed: [], side, flowed: true, ...(durations !== undefined ? { durations } : {}) }
}

/** [channels, frames] arrays of consecutive frame ranges joined into one of `frames`. */
function joinFrames (pieces: Float32Array[], ranges: FrameRange[], channels: number, frames: number): Float32Array {
  const out = new Float32Array(channels * frames)
  pieces.forEach((piece, i) => {
    const width = ranges[i].end - ranges[i].start
    for (let c = 0; c < channels; c++) out.set(piece.subarray(c * width, (c + 1) * width), c * frames + ranges[i].start)
  })
  return out
}

/** Flow runs shorter than this say more of a run's fixed cost than of the flow's speed. */
const FLOW_TIMING_MIN_FRAMES = 64

/** How long a thread waits for another thread's load of the same model
 * before loading it itself (both then work; the second copy is dropped). */
const SHARED_LOAD_WAIT_MS = 60_000
const SHARED_LOAD_POLL_MS = 20

/** The voice another thread loaded (or is loading) under `key`, or null when
 * this thread is to load it: it then holds the claim, to release when done.
 * A voice's workers start together; without this each would read and cut the
 * model file (twice the file, and the garbage of cutting it, per worker). */
async function sharedLoad (binding: NativeBinding, key: string): Promise<NativeVoice | null> {
  for (let waited = 0; waited < SHARED_LOAD_WAIT_MS; waited += SHARED_LOAD_POLL_MS) {
    const shared = binding.findVoice(key)
    if (shared !== null) return shared
    if (binding.claimLoad(key)) return null
    await setTimeout(SHARED_LOAD_POLL_MS)
  }
  return null
}

/** Identifies a model file's contents and the session settings, so threads
 * share a load only when they would have loaded the same thing. */
async function modelKey (modelPath: string, settings: SessionOptions, split: boolean, cut: SplitCut | undefined): Promise<string> {
  const real = await realpath(modelPath)
  const info = await stat(real)
  return JSON.stringify([real, info.size, info.mtimeMs, info.ino, settings.intraOpThreads ?? 1,
    settings.encoderIntraOpThreads ?? settings.intraOpThreads ?? 1, settings.interOpThreads ?? 1, settings.optimizationLevel ?? 3, settings.preoptimize ?? true,
    settings.shareEncoder ?? true, settings.liftConvolutions ?? true, settings.bandAttention ?? false, split, cut ?? 'any'])
}

/** A split loaded without info (not by loadModel) is fed as the decoder cut was: latent, then side tensors. */
function splitInfoOf (session: NativeVoice): SplitInfo {
  if (!session.split || session.splitInfo === '') return { cut: 'decoder', framed: 0, contextFrames: 0 }
  return JSON.parse(session.splitInfo) as SplitInfo
}

function modeOf (session: NativeVoice): VoiceMode {
  return session.split ? { mode: 'split', cut: splitInfoOf(session).cut } : { mode: 'whole' }
}

/** Loads the model at its preferred cut; if ONNX Runtime refuses that pair
 * of sessions, at the next cut, and at last whole. With `rewrites.lift`, the
 * parts (and the whole model) have their 1-D convolutions as 2-D ones
 * (conv-lift.ts); with `rewrites.band`, the encoder (and the whole model) its
 * attention over the window only (relative-attention.ts); a whole model ONNX
 * Runtime refuses so rewritten is loaded as exported. The cuts are made on a
 * thread of their own (ModelCutter); the bytes of each attempt are discarded
 * once the addon has copied (or refused) them. */
async function loadModel (runtime: Runtime, key: string, options: NativeLoadOptions, modelPath: string, split: boolean,
  only: SplitCut | undefined, rewrites: { lift: boolean, band: boolean }): Promise<{ session: NativeVoice, reason?: string }> {
  const reasons: string[] = []
  if (!split) reasons.push('the split is turned off')
  let whole: Uint8Array | undefined
  if (split || rewrites.lift || rewrites.band) {
    const cutter = new ModelCutter({ modelPath, template: options.shareEncoder !== false, ...rewrites, split, ...(only !== undefined ? { only } : {}) })
    try {
      for (let reply = await cutter.next(); ; reply = await cutter.next()) {
        reasons.push(...reply.reasons)
        if (reply.kind === 'end') {
          whole = reply.whole
          break
        }
        try {
          const session = await runtime.binding.loadVoice(key, options, {
            encoder: reply.encoder,
            decoder: reply.decoder,
            ...(reply.flow !== undefined ? { flow: reply.flow, flowOutput: reply.flowOutput } : {}),
            boundary: reply.boundary,
            ...(reply.durations !== undefined ? { durations: reply.durations } : {}),
            info: JSON.stringify(reply.info),
            ...(reply.template !== undefined ? { template: reply.template, weights: reply.weights } : {})
          })
          return { session, ...(reasons.length > 0 ? { reason: reasons.join('; ') } : {}) }
        } catch (error) {
          reasons.push(`${reply.info.cut} cut: ${(toTypedError(error) as Error).message}`)
        } finally {
          discardBytes(cutBytes(reply))
        }
      }
    } finally {
      await cutter.close()
    }
  }
  if (whole !== undefined) {
    try {
      return { session: await runtime.binding.loadVoice(key, options, { whole }), reason: reasons.join('; ') }
    } catch (error) {
      // ONNX Runtime refused the rewritten graph: the model as exported follows.
      reasons.push(`rewritten graph: ${(toTypedError(error) as Error).message}`)
    } finally {
      discardBytes([whole])
    }
  }
  // The file's own buffer, not a copy of it: a large file gets a buffer of
  // its own (not Node's shared pool), which discardBytes can then free.
  const file = await readFile(modelPath)
  const bytes = new Uint8Array(file.buffer, file.byteOffset, file.byteLength)
  try {
    return { session: await runtime.binding.loadVoice(key, options, { whole: bytes }), reason: reasons.join('; ') }
  } finally {
    discardBytes([bytes])
  }
}

function loadMessage (modelPath: string, error: unknown): string {
  const message = (error as Error).message
  return message.startsWith('Cannot load model') ? message : `Cannot load model ${modelPath}: ${message}`
}
