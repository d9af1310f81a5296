// The TTS service's configuration: one typed object, read from the
// environment once at start-up. A bad value stops the process with exit code
// 2 and a message that names the variable (see cli.ts).

import { join, resolve } from 'node:path'
import { ConfigError } from '../errors.js'
import { PACKAGE_ROOT } from '../package-root.js'
import { expectedMessage } from '../validate.js'
import { isValidVoiceName } from '../voices/voice-name.js'
import { CORES, EnvReader, type Env } from './env.js'

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export interface ServiceConfig {
  host: string
  port: number
  voiceDir: string
  defaultVoice: string
  /** Whether TTS_DEFAULT_VOICE was set: only then is a missing default an error. */
  defaultVoiceExplicit: boolean
  /** Loaded at start-up besides the default voice; GET /ready waits for them. */
  preloadVoices: string[]
  /** Bounds one request from arrival to its last byte. */
  timeoutMs: number
  workersPerVoice: number
  onnxThreads: number
  maxLoadedVoices: number
  /** Requests admitted at once (running or waiting); beyond it, 503. */
  maxPending: number
  maxTextLength: number
  bundledVoiceDir: string
  /** Copy bundled voices missing from voiceDir at start-up (off for a read-only volume). */
  installBundled: boolean
  rescanMs: number
  cacheBytes: number
  logLevel: typeof LOG_LEVELS[number]
  ortLibrary?: string
  espeakData?: string
}

export const DEFAULT_VOICE = 'en_US-lessac-medium'
/** Every command's voice folder when TTS_VOICE_DIR is unset, relative to the
 * current directory: a project's own folder, never one at the filesystem
 * root. The image sets TTS_VOICE_DIR=/voices. */
export const DEFAULT_VOICE_DIR = 'voices/local'

/** TTS_PRELOAD_VOICES: names separated by commas or spaces, each checked;
 * with the default voice they must fit in TTS_MAX_LOADED_VOICES, or the
 * least recently used rule would unload one of them. */
function preloadList (read: EnvReader, maxLoaded: number): string[] {
  const raw = read.string('TTS_PRELOAD_VOICES', '')
  const names = [...new Set(raw.split(/[\s,]+/).filter(name => name !== ''))]
  for (const name of names) {
    if (!isValidVoiceName(name)) throw new ConfigError(expectedMessage('voice names like en_US-lessac-medium, separated by commas', 'TTS_PRELOAD_VOICES', raw))
  }
  if (names.length + 1 > maxLoaded) {
    throw new ConfigError(expectedMessage(`at most ${maxLoaded - 1} voices (TTS_MAX_LOADED_VOICES minus the default voice)`, 'TTS_PRELOAD_VOICES', raw))
  }
  return names
}

/** The voice names that become file names: a name, never a path. */
function voiceName (read: EnvReader, name: string, fallback: string): string {
  const value = read.string(name, fallback)
  if (!isValidVoiceName(value)) throw new ConfigError(expectedMessage('a voice name like en_US-lessac-medium', name, value))
  return value
}

export function loadServiceConfig (env: Env): ServiceConfig {
  const read = new EnvReader(env)
  const maxLoadedVoices = read.integer('TTS_MAX_LOADED_VOICES', 3, 1, 100)
  return {
    host: read.string('TTS_HTTP_HOST', '0.0.0.0'),
    port: read.integer('TTS_HTTP_PORT', 8995, 0, 65535),
    voiceDir: resolve(read.string('TTS_VOICE_DIR', DEFAULT_VOICE_DIR)),
    defaultVoice: voiceName(read, 'TTS_DEFAULT_VOICE', DEFAULT_VOICE),
    defaultVoiceExplicit: read.has('TTS_DEFAULT_VOICE'),
    preloadVoices: preloadList(read, maxLoadedVoices),
    timeoutMs: read.number('TTS_TIMEOUT_SECONDS', 60, 0.1, 3600) * 1000,
    workersPerVoice: read.integer('TTS_WORKERS_PER_VOICE', CORES, 1, 256),
    onnxThreads: read.integer('TTS_ONNX_THREADS', 1, 1, 256),
    maxLoadedVoices,
    maxPending: read.integer('TTS_MAX_PENDING', 64, 1, 100_000),
    maxTextLength: read.integer('TTS_MAX_TEXT_LENGTH', 5000, 1, 1_000_000),
    bundledVoiceDir: read.string('CHORUS_BUNDLED_VOICE_DIR', join(PACKAGE_ROOT, 'voices/bundled')),
    installBundled: read.oneOf('CHORUS_INSTALL_BUNDLED', '1', ['0', '1']) === '1',
    rescanMs: read.number('TTS_VOICE_RESCAN_SECONDS', 5, 0.1, 3600) * 1000,
    cacheBytes: read.integer('TTS_CACHE_BYTES', 64 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
    logLevel: read.oneOf('TTS_LOG_LEVEL', 'info', LOG_LEVELS),
    ortLibrary: read.optionalString('CHORUS_ORT_LIBRARY'),
    espeakData: read.optionalString('CHORUS_ESPEAK_DATA')
  }
}
