// The one module that loads the native addon. It tries each place a build
// may have put the binary and, if none loads, throws one error listing every
// cause and the fix. Native failures carry a `code`; toTypedError() turns
// them into the project's error classes.

import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { createError } from '../error-registry.js'
import { ChorusError } from '../errors.js'
import { NativeLoadError } from './errors.js'
import { PACKAGE_ROOT } from '../package-root.js'
import type { TemplateWeight } from './onnx/encoder-template.js'

const require = createRequire(import.meta.url)

export interface NativeTensor {
  data: Float32Array
  shape: number[]
}

/** The encoder's outputs for one sentence: the latent [1, channels, frames]
 * and the chunked part's other inputs, in the split's boundary order (other
 * frame-aligned tensors such as the flow's mask, then speaker conditioning). */
export interface NativeEncoding {
  latent: NativeTensor
  side: NativeTensor[]
  /** Each phoneme id's length in frames [1, 1, ids], when the split has them. */
  durations?: NativeTensor
}

/** One kind of native task's totals: `cpuSeconds` is the calling thread's
 * CPU only (ONNX Runtime's intra-op threads helping a run are not in it). */
export interface NativeTaskTimes {
  name: string
  count: number
  wallSeconds: number
  cpuSeconds: number
}

/** A handle to a model loaded once per process (see native/voice_registry.h). */
export interface NativeVoice {
  infer (ids: BigInt64Array, noiseScale: number, lengthScale: number, noiseW: number,
    speakerId: number, token?: NativeCancelToken): Promise<Float32Array>
  /** `busy`: the cores are taken by other runs, so the encoder runs on one
   * thread where the voice has a one-thread session (hasBusyEncoder). */
  encode (ids: BigInt64Array, noiseScale: number, lengthScale: number, noiseW: number,
    speakerId: number, token?: NativeCancelToken, busy?: boolean): Promise<NativeEncoding>
  /** Staged voices: the latent is the flow's output and `side` the boundary's
   * tensors without a frame axis. */
  decode (latent: NativeTensor, side: NativeTensor[], token?: NativeCancelToken): Promise<Float32Array>
  /** Staged voices only: the flow over a window of the boundary (latent,
   * then the other boundary tensors): the decoder's latent, [1, c, frames]. */
  flow (latent: NativeTensor, side: NativeTensor[], token?: NativeCancelToken): Promise<Float32Array>
  close (): void
  readonly hasSpeakerInput: boolean
  /** Encoder and decoder sessions (true) or the whole graph in one. */
  readonly split: boolean
  /** Heap bytes the model's sessions took when created, once per process. */
  readonly memoryBytes: number
  /** The `info` the split was loaded with ('' for a whole model). */
  readonly splitInfo: string
  /** Its encoder runs on a session shared with the voices of the same template. */
  readonly encoderShared: boolean
  /** A busy encode runs on a one-thread twin of its shared encoder (the
   * encoder has more threads than one and is shared). */
  readonly hasBusyEncoder: boolean
}

export type NativeModelParts = { whole: Uint8Array } | {
  encoder: Uint8Array
  decoder: Uint8Array
  /** Staged: the flow between them, and its output (the decoder's latent). */
  flow?: Uint8Array
  flowOutput?: string
  boundary: string[]
  /** The encoder's extra output with each phoneme id's frames (requested after the boundary). */
  durations?: string
  info?: string
  /** The encoder with its float weights as inputs, which lie in `encoder` (onnx/encoder-template.ts). */
  template?: Uint8Array
  weights?: TemplateWeight[]
}

/** How the addon opens a voice's ONNX Runtime sessions. */
export interface NativeSessionOptions {
  /** ONNX Runtime intra-op threads; 1 by default (the pool parallelises). */
  intraOpThreads?: number
  /** A split voice's encoder session (default: intraOpThreads): it runs
   * before the sentence's decoder chunks spread over the workers. */
  encoderIntraOpThreads?: number
  interOpThreads?: number
  /** 0 none, 1 basic, 2 extended, 3 all (default). */
  optimizationLevel?: number
  /** Load the encoder (or the whole model) from the graph as ONNX Runtime
   * optimises it (default true): ~4 MB less per medium voice, ~0.5 s more
   * per load. Same audio either way. */
  preoptimize?: boolean
  /** A split voice shares one encoder session with every voice of the same
   * architecture, feeding its own weights (default true): less memory and a
   * shorter load per further voice, the same audio, the encoder 1.3 % slower
   * (docs/sizing.md). */
  shareEncoder?: boolean
}

export interface NativeLoadOptions extends NativeSessionOptions {
  label?: string
}

export interface NativeCancelToken {
  cancel (): void
  readonly cancelled: boolean
}

export interface NativePhonemeIdMap {
  toIds (codepoints: Uint32Array): { ids: BigInt64Array, missing: number }
}

/** glibc malloc settings the addon applied; null where it left glibc's own
 * (the operator's variable is set, or glibc refused). */
export interface MallocTuning {
  arenaMax: number | null
  mmapThresholdBytes: number | null
}

/** Sentences with their words: per sentence four numbers a word (its
 * phonemes' code points [start, end) in the sentence's string, its start in
 * code points of the text, espeak-ng's length of it, at most 31). */
export interface NativePhonemizedText {
  sentences: string[]
  words: Int32Array[]
}

/** The built-in voice's speech with espeak-ng's events: per word three
 * numbers (its first sample, its start in code points of the text, espeak-ng's
 * length of it); per phoneme its IPA name (with stress marks) and first sample. */
export interface NativeEspeakSpeech {
  samples: Int16Array
  words: Int32Array
  phonemes: { names: string[], samples: Int32Array }
}

export interface NativeBinding {
  loadOrt (libraryPath: string): string
  initEspeak (dataPath: string): number
  phonemize (text: string, espeakVoice: string): string[]
  phonemize (text: string, espeakVoice: string, withWords: true): NativePhonemizedText
  phonemizeAsync (text: string, espeakVoice: string): Promise<string[]>
  phonemizeAsync (text: string, espeakVoice: string, withWords: true): Promise<NativePhonemizedText>
  espeakSynthesize (text: string, espeakVoice: string, rateWpm: number, token?: NativeCancelToken): Promise<Int16Array>
  espeakSynthesize (text: string, espeakVoice: string, rateWpm: number, token: NativeCancelToken | undefined, withEvents: true, phonemeInput?: boolean): Promise<NativeEspeakSpeech>
  espeakSynthesize (text: string, espeakVoice: string, rateWpm: number, token: NativeCancelToken | undefined, withEvents: false, phonemeInput: boolean): Promise<Int16Array>
  /** The espeak voice's phoneme table: [mnemonic read inside [[ ]], IPA name]. */
  espeakPhonemeNames (espeakVoice: string): Array<[string, string]>
  findVoice (key: string): NativeVoice | null
  loadVoice (key: string, options: NativeLoadOptions, parts: NativeModelParts): Promise<NativeVoice>
  /** True: this thread loads `key`. False: it is loaded, or another thread is loading it. */
  claimLoad (key: string): boolean
  releaseClaim (key: string): void
  releaseMemory (): Promise<void>
  /** Once per process; the service calls it at start (src/engine/memory/malloc.ts). */
  tuneMalloc (): MallocTuning
  /** Wall and CPU seconds of the addon's async tasks, per kind, since the process started (native/task_clock.h). */
  taskTimes (): NativeTaskTimes[]
  /** Names the calling thread, as per-thread CPU readings (/proc/PID/task/TID/comm) show it. */
  nameThread (name: string): void
  CancelToken: new () => NativeCancelToken
  PhonemeIdMap: new (map: Record<string, readonly number[]>) => NativePhonemeIdMap
}

/** Where builds put the binary: cmake-js (npm install), then node-gyp. */
export const BINARY_CANDIDATES = [
  join(PACKAGE_ROOT, 'build/Release/chorus_native.node'),
  join(PACKAGE_ROOT, 'build/Debug/chorus_native.node'),
  join(PACKAGE_ROOT, 'build-gyp/Release/chorus_native.node')
]

let binding: NativeBinding | undefined

export function loadBinding (candidates: readonly string[] = BINARY_CANDIDATES): NativeBinding {
  if (binding !== undefined) return binding
  const causes: string[] = []
  for (const path of candidates) {
    try {
      binding = require(path) as NativeBinding
      return binding
    } catch (error) {
      causes.push(`  ${path}: ${(error as Error).message.split('\n')[0]}`)
    }
  }
  throw new NativeLoadError(
    `Cannot load the Chorus native addon. Tried:\n${causes.join('\n')}\n` +
    'Build it with `npm install` (needs cmake, a C++17 compiler and apt-get; see README).')
}

/** The CPU ONNX Runtime library shipped inside the onnxruntime-node package. */
export function bundledOrtLibrary (): string {
  const packageDir = dirname(require.resolve('onnxruntime-node/package.json'))
  const file = process.platform === 'darwin' ? 'libonnxruntime.1.dylib' : 'libonnxruntime.so.1'
  return join(packageDir, 'bin/napi-v6', process.platform, process.arch, file)
}

/** The espeak-ng data fetched by scripts/fetch-native-deps.sh. */
export const BUNDLED_ESPEAK_DATA = join(PACKAGE_ROOT, 'native/third_party/espeak-ng-data')

/** The addon's codes (native/errors.h) and the catalogue's code each stands for. */
const CATALOGUE_CODE: Record<string, string> = {
  ERR_CANCELLED: 'ERR_CANCELLED',
  ERR_ORT: 'ERR_INFERENCE',
  ERR_ORT_LOAD: 'ERR_NATIVE_LOAD',
  ERR_ESPEAK: 'ERR_PHONEMIZE',
  ERR_VOICE_CLOSED: 'ERR_VOICE_LOAD',
  ERR_INVALID_ARGUMENT: 'ERR_INVALID_ARGUMENT',
  ERR_NATIVE: 'ERR_INFERENCE',
  ERR_NATIVE_OUT_OF_MEMORY: 'ERR_INFERENCE'
}

/** Maps an error thrown by the addon to our catalogue; others pass through. */
export function toTypedError (error: unknown): unknown {
  if (error instanceof Error && !(error instanceof ChorusError)) {
    const code = CATALOGUE_CODE[String((error as { code?: unknown }).code)]
    const typed = code === undefined ? undefined : createError(code, error.message, { cause: error })
    if (typed !== undefined) {
      // The addon's error carries the JS call site's stack: keep it.
      if (error.stack?.includes('\n') === true) typed.stack = `${typed.name}: ${typed.message}${error.stack.slice(error.stack.indexOf('\n'))}`
      return typed
    }
  }
  return error
}
