// The TTS service's configuration: one typed object, read from the
// environment once at start-up with the shared reader (config-values.ts). A bad value stops the process with exit code
// 2 and a message that names the variable (see cli.ts).

import { statSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { DEFAULT_CHUNKING, type ChunkingSettings } from '../engine/chunking.js'
import { LIMITS } from '../engine/synthesis-config.js'
import { loadVoiceMap, type VoiceTarget } from '../openai/voice-map.js'
import { PACKAGE_ROOT } from '../package-root.js'
import { isValidVoiceName } from '../voices/voice-name.js'
import { loadKeysFile, type ApiKey } from '../access/keys-file.js'
import { DEFAULT_CATALOG_PATH } from '../voices/catalog.js'
import { DEFAULT_BASE_URL, DEFAULT_TIMEOUT_MS } from '../voices/fetch.js'
import {
  choiceSetting, configError, CORES, envSetting, hostSetting, integerSetting, logLevelSetting, originsSetting, numberSetting, stringSetting, type Env, type LogLevel, type Setting
} from '../shared/config-values.js'
import { SCHEDULER_MODES, type SchedulerMode } from '../pool/schedule.js'
import { defaultVoiceMemoryBudget, processMemoryLimit } from './memory-limit.js'

export interface ServiceConfig {
  host: string
  port: number
  voiceDir: string
  /** TTS_LEXICON_DIR: where the admin API keeps lexicons (default: the voice folder's lexicons/). */
  lexiconDir: string
  defaultVoice: string
  /** Whether TTS_DEFAULT_VOICE was set: only then is a missing default an error. */
  defaultVoiceExplicit: boolean
  /** Bounds one request from arrival to its last byte. */
  timeoutMs: number
  /** TTS_DRAIN_GRACE_SECONDS: after SIGTERM, how long answers and WebSocket
   * contexts in flight may take to finish before what is left is cut. */
  drainGraceMs: number
  /** TTS_REPLICA_NAME: named on every answer (X-Chorus-Replica), so a proxy's affinity can be seen. */
  replicaName: string
  workersPerVoice: number
  onnxThreads: number
  /** ONNX Runtime intra-op threads of a split voice's encoder session: it
   * runs before the sentence's decoder chunks spread over the workers, so
   * its time adds whole to a long sentence's wait on an idle server. */
  onnxEncoderThreads: number
  /** Run split voices' 1-D convolutions as 2-D ones (src/engine/onnx/conv-lift.ts). */
  liftConvolutions: boolean
  /** Compute the text encoder's relative-position attention over its window only (src/engine/onnx/relative-attention.ts). */
  bandAttention: boolean
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
  /** One request's audio at most (TTS_MAX_AUDIO_SECONDS); beyond it, 413. */
  maxAudioSeconds: number
  /** Streamed sentences started ahead of the one being read (TTS_SENTENCE_WINDOW). */
  sentenceWindow: number
  /** TTS_SCHEDULER: inference slots by playback deadline and fair shares, or first come first served (docs/engine.md). */
  scheduler: SchedulerMode
  /** TTS_STREAM_JITTER_MS: how long after its first audio a stream's listener is taken to start playing. */
  streamJitterMs: number
  /** TTS_STREAM_ADMISSION: stream listeners admitted per audio second per second the slots make (src/synthesis/stream-demand.ts); 0: all. */
  streamAdmission: number
  /** Audio made and not yet read, per response (TTS_RESPONSE_BUFFER_BYTES)
   * and every response together (TTS_BUFFER_BYTES): synthesis waits beyond. */
  responseBufferBytes: number
  bufferBytes: number
  /** TTS_SPOOL_DIR: where a whole WAV answer's bytes beyond its share of
   * memory wait, in unlinked files, until they are sent (the OS temp folder). */
  spoolDir: string
  bundledVoiceDir: string
  /** Copy bundled voices missing from voiceDir at start-up (off for a read-only volume). */
  installBundled: boolean
  rescanMs: number
  cacheBytes: number
  /** Worker threads that encode compressed audio (mp3, opus, flac, pcm). */
  encoderThreads: number
  /** OpenAI voice name → voice (and speaker): defaults plus TTS_OPENAI_VOICES's file. */
  openaiVoices: Record<string, VoiceTarget>
  /** Web pages (origins) besides the service's own that may call it from a browser. */
  allowedOrigins: string[]
  /** TTS_ALLOWED_HOSTS: host names requests may be sent to (DNS rebinding); undefined: any. */
  allowedHosts?: string[]
  logLevel: LogLevel
  // API keys and quotas (docs/security.md).
  /** TTS_API_KEYS_FILE and its keys at start-up; unset: no keys, every request anonymous. */
  apiKeys?: { file: string, keys: ApiKey[] }
  /** TTS_API_KEYS_RELOAD_SECONDS: how often the keys file is checked for changes. */
  apiKeysReloadMs: number
  /** TTS_METRICS_PUBLIC=1: /metrics needs no key even when keys are set. */
  metricsPublic: boolean
  /** Bounds on one run's work: decoder chunks and phonemes per encoder run. */
  chunking: ChunkingSettings
  /** The input-streaming WebSocket (docs/websocket.md). */
  websocket: {
    /** TTS_WS_MAX_CONTEXTS: open contexts per socket (ElevenLabs allows 5). */
    maxContexts: number
    /** TTS_WS_MAX_CONTEXTS_TOTAL: every socket together. */
    maxContextsTotal: number
    /** TTS_WS_MAX_TEXT: characters waiting to be spoken per socket. */
    maxText: number
    /** TTS_WS_MAX_TEXT_TOTAL: every socket together. */
    maxTextTotal: number
    /** TTS_WS_TEXT_WAIT_MS: held text is cut after this long without more. */
    textWaitMs: number
    /** TTS_WS_MAX_MESSAGE_BYTES: one client message at most. */
    maxMessageBytes: number
  }
  ortLibrary?: string
  espeakData?: string
  /** CHORUS_AVCODEC_LIBRARY: FFmpeg's libavcodec for AAC (default: libavcodec.so.59, found by the dynamic loader). */
  avcodecLibrary?: string
  /** TTS_ADMIN_TOKEN: the bearer token of the voice admin API; unset, the API is off. */
  adminToken: string | undefined
  /** TTS_VOICE_SOURCE: http:, https: or file: URL of a folder laid out like Piper's voices repository. */
  voiceSource: string
  /** TTS_VOICE_CATALOG: the voices that may be installed, with their files' sizes and md5. */
  voiceCatalog: string
  /** TTS_VOICE_DOWNLOAD_TIMEOUT_SECONDS: one install's whole time, both files and retries;
   * TTS_VOICE_DOWNLOAD_STALL_SECONDS: the longest wait for a response or its next byte. */
  voiceDownload: { deadlineMs: number, stallMs: number }
}

const DEFAULT_VOICE = 'en_US-lessac-medium'

/** Slow but legitimate speech, in characters a second at length_scale 1:
 * Piper's voices speak English at about 14 to 16, espeak at about 13. */
const SLOW_CHARACTERS_PER_SECOND = 10

/**
 * TTS_MAX_AUDIO_SECONDS when unset: the longest legitimate reply, i.e. the
 * longest text (TTS_MAX_TEXT_LENGTH) spoken at a slow rate at the slowest
 * length_scale, plus a second of silence between sentences of 20 characters.
 * 5000 characters: 5000 / 10 x 5 + 5000 / 20 x 1 = 2750 s (46 minutes).
 */
export function defaultMaxAudioSeconds (maxTextLength: number): number {
  return Math.ceil(maxTextLength / SLOW_CHARACTERS_PER_SECOND * LIMITS.lengthScale.max + maxTextLength / 20)
}
/** Every command's voice folder when TTS_VOICE_DIR is unset, relative to the
 * current directory: a project's own folder, never one at the filesystem
 * root. The image sets TTS_VOICE_DIR=/voices. */
export const DEFAULT_VOICE_DIR = 'voices/local'

/** The voice names that become file names: a name, never a path. */
function voiceName (setting: Setting | undefined, fallback: string): string {
  if (setting === undefined) return fallback
  if (!isValidVoiceName(setting.value)) throw configError('a voice name like en_US-lessac-medium', setting)
  return setting.value
}

/** TTS_PRELOAD_VOICES: `*`, or voice names separated by commas or spaces (empty: none). */
function preloadList (setting: Setting | undefined): string[] | '*' {
  if (setting === undefined) return []
  if (setting.value === '*') return '*'
  const names = setting.value.split(/[\s,]+/).filter(name => name !== '')
  if (!names.every(isValidVoiceName)) {
    throw configError('voice names separated by commas (like en_US-lessac-medium,en_GB-alba-medium), or *', setting)
  }
  return [...new Set(names)]
}

/** TTS_API_KEYS_FILE (read and checked now: a bad file exits 2 naming the
 * entry), TTS_API_KEYS_RELOAD_SECONDS and TTS_METRICS_PUBLIC. */
function apiKeySettings (read: (name: string) => Setting | undefined): Pick<ServiceConfig, 'apiKeys' | 'apiKeysReloadMs' | 'metricsPublic'> {
  const file = stringSetting(read('TTS_API_KEYS_FILE'), undefined)
  return {
    ...(file === undefined ? {} : { apiKeys: { file: resolve(file), keys: loadKeysFile(resolve(file)) } }),
    apiKeysReloadMs: numberSetting(read('TTS_API_KEYS_RELOAD_SECONDS'), 0.1, 3600, 5) * 1000,
    metricsPublic: choiceSetting(read('TTS_METRICS_PUBLIC'), ['0', '1'], '0') === '1'
  }
}

type Read = (name: string) => Setting | undefined

/** How sentences are cut into runs and chunks (docs/engine.md#chunked-decoding). */
function chunkingSettings (read: Read, scheduler: ServiceConfig['scheduler']): ServiceConfig['chunking'] {
  return {
    chunkFrames: integerSetting(read('TTS_DECODER_CHUNK_FRAMES'), 16, 4096, DEFAULT_CHUNKING.chunkFrames),
    marginFrames: integerSetting(read('TTS_DECODER_MARGIN_FRAMES'), 0, 256, DEFAULT_CHUNKING.marginFrames),
    firstChunkFrames: integerSetting(read('TTS_STREAM_FIRST_CHUNK_FRAMES'), 8, 4096, DEFAULT_CHUNKING.firstChunkFrames),
    maxPhonemes: integerSetting(read('TTS_MAX_PHONEMES_PER_RUN'), 50, 100_000, DEFAULT_CHUNKING.maxPhonemes),
    firstRunPhonemes: integerSetting(read('TTS_STREAM_FIRST_RUN_PHONEMES'), 0, 100_000, 0),
    growStreamChunks: scheduler === 'deadline',
    streamChunkGrowth: integerSetting(read('TTS_STREAM_CHUNK_GROWTH'), 1, 8, DEFAULT_CHUNKING.streamChunkGrowth),
    cut: choiceSetting(read('TTS_DECODER_CUT'), ['decoder', 'flow', 'staged'] as const, DEFAULT_CHUNKING.cut)
  }
}

/** The WebSocket's limits (docs/websocket.md#limits-and-a-slow-reader). */
function websocketSettings (read: Read, maxPending: number, maxTextLength: number): ServiceConfig['websocket'] {
  return {
    maxContexts: integerSetting(read('TTS_WS_MAX_CONTEXTS'), 1, 1000, 5),
    maxContextsTotal: integerSetting(read('TTS_WS_MAX_CONTEXTS_TOTAL'), 1, 1_000_000, 4 * maxPending),
    // A socket's text fits one request's, so any piece cut from it does.
    maxText: integerSetting(read('TTS_WS_MAX_TEXT'), 1, maxTextLength, maxTextLength),
    maxTextTotal: integerSetting(read('TTS_WS_MAX_TEXT_TOTAL'), 1, Number.MAX_SAFE_INTEGER, 4 * maxPending * maxTextLength),
    textWaitMs: integerSetting(read('TTS_WS_TEXT_WAIT_MS'), 10, 60_000, 1000),
    maxMessageBytes: integerSetting(read('TTS_WS_MAX_MESSAGE_BYTES'), 1024, 16 * 1024 * 1024, 64 * 1024)
  }
}

/** The admin API's token and where voice installs download from, within what time. */
function voiceAdminSettings (read: Read): Pick<ServiceConfig, 'adminToken' | 'voiceSource' | 'voiceCatalog' | 'voiceDownload'> {
  return {
    adminToken: adminTokenSetting(read('TTS_ADMIN_TOKEN')),
    voiceSource: sourceSetting(read('TTS_VOICE_SOURCE')),
    voiceCatalog: resolve(stringSetting(read('TTS_VOICE_CATALOG'), DEFAULT_CATALOG_PATH)),
    voiceDownload: {
      deadlineMs: numberSetting(read('TTS_VOICE_DOWNLOAD_TIMEOUT_SECONDS'), 0.1, 86_400, 900) * 1000,
      stallMs: numberSetting(read('TTS_VOICE_DOWNLOAD_STALL_SECONDS'), 0.1, 3600, DEFAULT_TIMEOUT_MS / 1000) * 1000
    }
  }
}

/** ONNX Runtime's sessions and the native libraries (docs/engine.md). */
function engineSettings (read: Read, onnxThreads: number): Pick<ServiceConfig, 'onnxEncoderThreads' | 'liftConvolutions' | 'bandAttention' | 'ortLibrary' | 'espeakData' | 'avcodecLibrary'> {
  return {
    onnxEncoderThreads: integerSetting(read('TTS_ONNX_ENCODER_THREADS'), 1, 256, Math.max(onnxThreads, Math.min(2, CORES))),
    // Same audio, ~20 % less decoder time on ONNX Runtime's CPU kernels (docs/engine.md); 0 runs the graph as exported.
    liftConvolutions: choiceSetting(read('TTS_ONNX_LIFT_CONV'), ['0', '1'], '1') === '1',
    // The same audio, ~20 % less encoder time for a 45-word sentence (docs/engine.md), but off by
    // default: on, a three-run text raises a request's memory peak past the bound test/leak holds
    // (1.65-1.76x one run's, against 1.17-1.35x as exported).
    bandAttention: choiceSetting(read('TTS_ONNX_BAND_ATTENTION'), ['0', '1'], '0') === '1',
    ortLibrary: stringSetting(read('CHORUS_ORT_LIBRARY'), undefined),
    espeakData: stringSetting(read('CHORUS_ESPEAK_DATA'), undefined),
    avcodecLibrary: stringSetting(read('CHORUS_AVCODEC_LIBRARY'), undefined)
  }
}

/** Audio made and not yet read, per response and in all, and where whole answers spill. */
function bufferSettings (read: Read, maxPending: number): Pick<ServiceConfig, 'responseBufferBytes' | 'bufferBytes' | 'spoolDir'> {
  const responseBufferBytes = integerSetting(read('TTS_RESPONSE_BUFFER_BYTES'), 1024, Number.MAX_SAFE_INTEGER, 1024 * 1024)
  return {
    responseBufferBytes,
    // Every admitted request's own bound, by default: a stalled client waits
    // on its own bound first, and all of them together on this one.
    bufferBytes: integerSetting(read('TTS_BUFFER_BYTES'), 1024, Number.MAX_SAFE_INTEGER, maxPending * responseBufferBytes),
    spoolDir: spoolDirSetting(read('TTS_SPOOL_DIR'))
  }
}

function bundledVoiceSettings (read: Read): Pick<ServiceConfig, 'bundledVoiceDir' | 'installBundled'> {
  return {
    bundledVoiceDir: stringSetting(read('CHORUS_BUNDLED_VOICE_DIR'), join(PACKAGE_ROOT, 'voices/bundled')),
    installBundled: choiceSetting(read('CHORUS_INSTALL_BUNDLED'), ['0', '1'], '1') === '1'
  }
}

/** Voices' pools, their loading and the encoders' threads. */
function poolSettings (read: Read): Pick<ServiceConfig, 'maxLoadedVoices' | 'workerIdleMs' | 'preloadVoices' | 'rescanMs' | 'encoderThreads' | 'openaiVoices'> {
  return {
    maxLoadedVoices: integerSetting(read('TTS_MAX_LOADED_VOICES'), 1, 10_000, 64),
    workerIdleMs: numberSetting(read('TTS_WORKER_IDLE_SECONDS'), 0, 86_400, 60) * 1000,
    preloadVoices: preloadList(read('TTS_PRELOAD_VOICES')),
    rescanMs: numberSetting(read('TTS_VOICE_RESCAN_SECONDS'), 0.1, 3600, 5) * 1000,
    encoderThreads: integerSetting(read('TTS_ENCODER_THREADS'), 1, 64, 1),
    openaiVoices: loadVoiceMap(stringSetting(read('TTS_OPENAI_VOICES'), undefined))
  }
}

/** How far a stream's work runs ahead, and how many streams the slots can keep ahead of their listeners. */
function streamSettings (read: Read, workersPerVoice: number): Pick<ServiceConfig, 'sentenceWindow' | 'streamAdmission'> {
  return {
    // Enough sentences ahead to keep each of the voice's workers busy while one is read.
    sentenceWindow: integerSetting(read('TTS_SENTENCE_WINDOW'), 1, 10_000, 2 * workersPerVoice),
    // A stream's listener needs an audio second per second: beyond what the slots make, every stream runs dry.
    streamAdmission: numberSetting(read('TTS_STREAM_ADMISSION'), 0, 100, 1)
  }
}

export function loadServiceConfig (env: Env): ServiceConfig {
  // Every variable through the shared reader: trimmed, blank counts as unset.
  const read = (name: string): Setting | undefined => envSetting(env, name)
  const cacheBytes = integerSetting(read('TTS_CACHE_BYTES'), 0, Number.MAX_SAFE_INTEGER, 64 * 1024 * 1024)
  const onnxThreads = integerSetting(read('TTS_ONNX_THREADS'), 1, 256, 1)
  const maxConcurrentInferences = integerSetting(read('TTS_MAX_CONCURRENT_INFERENCES'), 1, 1024, CORES)
  // Only computed when not set: it reads the cgroup files.
  const memorySetting = read('TTS_VOICE_MEMORY_BYTES')
  const voiceMemoryBytes = memorySetting !== undefined
    ? integerSetting(memorySetting, 1, Number.MAX_SAFE_INTEGER, 0)
    : defaultVoiceMemoryBudget(processMemoryLimit().bytes, { cacheBytes, concurrentInferences: maxConcurrentInferences })
  const defaultVoice = read('TTS_DEFAULT_VOICE')
  const voiceDir = resolve(stringSetting(read('TTS_VOICE_DIR'), DEFAULT_VOICE_DIR))
  const maxTextLength = integerSetting(read('TTS_MAX_TEXT_LENGTH'), 1, 1_000_000, 5000)
  const maxPending = integerSetting(read('TTS_MAX_PENDING'), 1, 100_000, 64)
  const workersPerVoice = integerSetting(read('TTS_WORKERS_PER_VOICE'), 1, 256, CORES)
  // Scheduling (docs/engine.md#scheduling). FIFO is today's order, kept to
  // compare with: it also keeps a streamed sentence's rest as one chunk.
  const scheduler = choiceSetting(read('TTS_SCHEDULER'), SCHEDULER_MODES, 'deadline')
  const streamJitterMs = integerSetting(read('TTS_STREAM_JITTER_MS'), 0, 60_000, 200)
  const timeoutSeconds = numberSetting(read('TTS_TIMEOUT_SECONDS'), 0.1, 3600, 60)
  return {
    scheduler,
    streamJitterMs,
    host: hostSetting(read('TTS_HTTP_HOST'), '0.0.0.0'),
    port: integerSetting(read('TTS_HTTP_PORT'), 0, 65535, 8995),
    voiceDir,
    lexiconDir: resolve(stringSetting(read('TTS_LEXICON_DIR'), join(voiceDir, 'lexicons'))),
    defaultVoice: voiceName(defaultVoice, DEFAULT_VOICE),
    defaultVoiceExplicit: defaultVoice !== undefined,
    timeoutMs: timeoutSeconds * 1000,
    // Above the request timeout by default, so whatever was admitted before
    // SIGTERM ends by its own bound, not the drain's.
    drainGraceMs: numberSetting(read('TTS_DRAIN_GRACE_SECONDS'), 0, 3600, timeoutSeconds + 10) * 1000,
    replicaName: replicaNameSetting(read('TTS_REPLICA_NAME')),
    workersPerVoice,
    onnxThreads,
    ...engineSettings(read, onnxThreads),
    voiceMemoryBytes,
    maxConcurrentInferences,
    maxPending,
    maxTextLength,
    ...streamSettings(read, workersPerVoice),
    ...poolSettings(read),
    maxAudioSeconds: numberSetting(read('TTS_MAX_AUDIO_SECONDS'), 1, 86_400, defaultMaxAudioSeconds(maxTextLength)),
    cacheBytes,
    allowedOrigins: originsSetting(read('TTS_ALLOWED_ORIGINS')),
    ...allowedHostsSetting(read('TTS_ALLOWED_HOSTS')),
    // CHORUS_LOG_LEVEL for every server; the deprecated TTS_LOG_LEVEL still works and yields to it when both are set.
    logLevel: logLevelSetting(envSetting(env, 'CHORUS_LOG_LEVEL', 'TTS_LOG_LEVEL')),
    ...apiKeySettings(read),
    ...bufferSettings(read, maxPending),
    ...bundledVoiceSettings(read),
    chunking: chunkingSettings(read, scheduler),
    websocket: websocketSettings(read, maxPending, maxTextLength),
    ...voiceAdminSettings(read)
  }
}

/** One host name: letters, digits and hyphens between dots; a leading dot
 * stands for the name and every name under it. */
const HOST_RULE = /^\.?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/

/** TTS_ALLOWED_HOSTS: `*` or unset for any; else host names separated by commas. */
function allowedHostsSetting (setting: Setting | undefined): Pick<ServiceConfig, 'allowedHosts'> {
  if (setting === undefined || setting.value === '*') return {}
  const names = setting.value.split(',').map(name => name.trim().toLowerCase()).filter(name => name !== '')
  for (const name of names) {
    if (!HOST_RULE.test(name)) throw configError('host names separated by commas, without scheme or port (like tts.example.com,.internal), or *', { name: setting.name, value: name })
  }
  if (names.length === 0) throw configError('host names separated by commas, or *', setting)
  return { allowedHosts: [...new Set(names)] }
}

/** Printable ASCII without spaces: it goes into a response header as it is. */
const REPLICA_NAME_RULE = /^[\x21-\x7e]{1,253}$/

/** TTS_REPLICA_NAME, or the host name (a container's or pod's own). */
function replicaNameSetting (setting: Setting | undefined): string {
  if (setting === undefined) return hostname()
  if (!REPLICA_NAME_RULE.test(setting.value)) throw configError('1 to 253 printable ASCII characters without spaces', setting)
  return setting.value
}

/** TTS_SPOOL_DIR: a folder that exists now (checked once: a typo stops the
 * service at start-up rather than failing every long answer later). */
function spoolDirSetting (setting: Setting | undefined): string {
  if (setting === undefined) return tmpdir()
  const dir = resolve(setting.value)
  let isDirectory = false
  try {
    isDirectory = statSync(dir).isDirectory()
  } catch {
    // Missing or unreadable: refused just below, naming the variable.
  }
  if (!isDirectory) throw configError('an existing directory', setting)
  return dir
}

/** Long enough not to be guessed, and one word, as a bearer token must be. */
function adminTokenSetting (setting: Setting | undefined): string | undefined {
  if (setting === undefined) return undefined
  if (setting.value.length < 16 || /\s/.test(setting.value)) throw configError('a token of at least 16 characters without spaces', { ...setting, value: '(hidden)' })
  return setting.value
}

function sourceSetting (setting: Setting | undefined): string {
  if (setting === undefined) return DEFAULT_BASE_URL
  let protocol: string | undefined
  try {
    protocol = new URL(setting.value).protocol
  } catch {
    // Not a URL: refused just below, naming the variable.
  }
  if (protocol === undefined || !['http:', 'https:', 'file:'].includes(protocol)) throw configError('an http:, https: or file: URL', setting)
  return setting.value
}
