// The TTS service's configuration: one typed object, read from the
// environment once at start-up. A bad value stops the process with exit code
// 2 and a message that names the variable (see cli.ts).

import { join, resolve } from 'node:path'
import { DEFAULT_CHUNKING, type ChunkingSettings } from '../engine/chunking.js'
import { loadVoiceMap, type VoiceTarget } from '../openai/voice-map.js'
import { PACKAGE_ROOT } from '../package-root.js'
import { ConfigError } from '../errors.js'
import { expectedMessage } from '../validate.js'
import { isValidVoiceName } from '../voices/voice-name.js'
import { envSetting, logLevelSetting, type Env, type LogLevel } from '../shared/config-values.js'
import { CORES, EnvReader } from './env.js'
import { defaultVoiceMemoryBudget, processMemoryLimit } from './memory-limit.js'

export interface ServiceConfig {
  host: string
  port: number
  voiceDir: string
  defaultVoice: string
  /** Whether TTS_DEFAULT_VOICE was set: only then is a missing default an error. */
  defaultVoiceExplicit: boolean
  /** Bounds one request from arrival to its last byte. */
  timeoutMs: number
  workersPerVoice: number
  onnxThreads: number
  /** A cap on loaded voices on top of the memory budget. */
  maxLoadedVoices: number
  /** Memory for loaded voices' weights and arenas; beyond it the least recently used idle ones go. */
  voiceMemoryBytes: number
  /** Sentence inferences running at once, all voices together. */
  maxConcurrentInferences: number
  /** A voice's idle workers beyond the first exit after this long; 0: never. */
  workerIdleMs: number
  /** Voices to load at start-up: names, or '*' for every installed voice that fits; GET /ready waits for them. */
  preloadVoices: string[] | '*'
  /** Requests admitted at once (running or waiting); beyond it, 503. */
  maxPending: number
  maxTextLength: number
  bundledVoiceDir: string
  /** Copy bundled voices missing from voiceDir at start-up (off for a read-only volume). */
  installBundled: boolean
  rescanMs: number
  cacheBytes: number
  /** Worker threads that encode compressed audio (mp3, opus, flac, pcm). */
  encoderThreads: number
  /** OpenAI voice name → voice (and speaker): defaults plus TTS_OPENAI_VOICES's file. */
  openaiVoices: Record<string, VoiceTarget>
  logLevel: LogLevel
  /** Bounds on one run's work: decoder chunks and phonemes per encoder run. */
  chunking: ChunkingSettings
  ortLibrary?: string
  espeakData?: string
}

export const DEFAULT_VOICE = 'en_US-lessac-medium'
/** Every command's voice folder when TTS_VOICE_DIR is unset, relative to the
 * current directory: a project's own folder, never one at the filesystem
 * root. The image sets TTS_VOICE_DIR=/voices. */
export const DEFAULT_VOICE_DIR = 'voices/local'

/** The voice names that become file names: a name, never a path. */
function voiceName (read: EnvReader, name: string, fallback: string): string {
  const value = read.string(name, fallback)
  if (!isValidVoiceName(value)) throw new ConfigError(expectedMessage('a voice name like en_US-lessac-medium', name, value))
  return value
}

/** TTS_PRELOAD_VOICES: `*`, or voice names separated by commas or spaces (empty: none). */
function preloadList (read: EnvReader): string[] | '*' {
  const raw = read.string('TTS_PRELOAD_VOICES', '').trim()
  if (raw === '*') return '*'
  if (raw === '') return []
  const names = raw.split(/[\s,]+/).filter(name => name !== '')
  if (!names.every(isValidVoiceName)) {
    throw new ConfigError(expectedMessage('voice names separated by commas (like en_US-lessac-medium,en_GB-alba-medium), or *', 'TTS_PRELOAD_VOICES', raw))
  }
  return [...new Set(names)]
}

export function loadServiceConfig (env: Env): ServiceConfig {
  const read = new EnvReader(env)
  const cacheBytes = read.integer('TTS_CACHE_BYTES', 64 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER)
  const maxConcurrentInferences = read.integer('TTS_MAX_CONCURRENT_INFERENCES', CORES, 1, 1024)
  // Only computed when not set: it reads the cgroup files.
  const voiceMemoryBytes = read.has('TTS_VOICE_MEMORY_BYTES')
    ? read.integer('TTS_VOICE_MEMORY_BYTES', 0, 1, Number.MAX_SAFE_INTEGER)
    : defaultVoiceMemoryBudget(processMemoryLimit().bytes, { cacheBytes, concurrentInferences: maxConcurrentInferences })
  return {
    host: read.string('TTS_HTTP_HOST', '0.0.0.0'),
    port: read.integer('TTS_HTTP_PORT', 8995, 0, 65535),
    voiceDir: resolve(read.string('TTS_VOICE_DIR', DEFAULT_VOICE_DIR)),
    defaultVoice: voiceName(read, 'TTS_DEFAULT_VOICE', DEFAULT_VOICE),
    defaultVoiceExplicit: read.has('TTS_DEFAULT_VOICE'),
    timeoutMs: read.number('TTS_TIMEOUT_SECONDS', 60, 0.1, 3600) * 1000,
    workersPerVoice: read.integer('TTS_WORKERS_PER_VOICE', CORES, 1, 256),
    onnxThreads: read.integer('TTS_ONNX_THREADS', 1, 1, 256),
    maxLoadedVoices: read.integer('TTS_MAX_LOADED_VOICES', 64, 1, 10_000),
    voiceMemoryBytes,
    maxConcurrentInferences,
    workerIdleMs: read.number('TTS_WORKER_IDLE_SECONDS', 60, 0, 86_400) * 1000,
    preloadVoices: preloadList(read),
    maxPending: read.integer('TTS_MAX_PENDING', 64, 1, 100_000),
    maxTextLength: read.integer('TTS_MAX_TEXT_LENGTH', 5000, 1, 1_000_000),
    bundledVoiceDir: read.string('CHORUS_BUNDLED_VOICE_DIR', join(PACKAGE_ROOT, 'voices/bundled')),
    installBundled: read.oneOf('CHORUS_INSTALL_BUNDLED', '1', ['0', '1']) === '1',
    rescanMs: read.number('TTS_VOICE_RESCAN_SECONDS', 5, 0.1, 3600) * 1000,
    cacheBytes,
    encoderThreads: read.integer('TTS_ENCODER_THREADS', 1, 1, 64),
    openaiVoices: loadVoiceMap(read.optionalString('TTS_OPENAI_VOICES')),
    // CHORUS_LOG_LEVEL for every server; the deprecated TTS_LOG_LEVEL still works and yields to it when both are set.
    logLevel: logLevelSetting(envSetting(env, 'CHORUS_LOG_LEVEL', 'TTS_LOG_LEVEL')),
    chunking: {
      chunkFrames: read.integer('TTS_DECODER_CHUNK_FRAMES', DEFAULT_CHUNKING.chunkFrames, 16, 4096),
      marginFrames: read.integer('TTS_DECODER_MARGIN_FRAMES', DEFAULT_CHUNKING.marginFrames, 0, 256),
      firstChunkFrames: read.integer('TTS_STREAM_FIRST_CHUNK_FRAMES', DEFAULT_CHUNKING.firstChunkFrames, 8, 4096),
      maxPhonemes: read.integer('TTS_MAX_PHONEMES_PER_RUN', DEFAULT_CHUNKING.maxPhonemes, 50, 100_000)
    },
    ortLibrary: read.optionalString('CHORUS_ORT_LIBRARY'),
    espeakData: read.optionalString('CHORUS_ESPEAK_DATA')
  }
}
