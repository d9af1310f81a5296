// Errors of the voice catalogue, the voice fetcher, the bundled-voice
// installer, and a voice whose files do not load (voiceBroken). All are
// operational (bad catalogue, unknown voice, a source that fails or serves
// the wrong bytes, a folder we cannot write, damaged files), never bugs.
// An invalid voice name is the shared InvalidArgumentError (see voice-name.ts).
// Classes where a caller or a test tells them apart; factories for the rest.

import { ChorusError, type ChorusErrorOptions } from '../errors.js'

/** The voice catalogue file is missing, unreadable, not JSON or malformed. */
export class CatalogError extends ChorusError {
  constructor (message: string, options: ChorusErrorOptions = {}) {
    super('ERR_VOICE_CATALOG', message, { status: 500, expose: false, ...options })
  }
}

/** A well-formed voice name that the catalogue does not list. */
export class VoiceNotInCatalogError extends ChorusError {
  readonly voice: string

  constructor (voice: string, suggestion?: string) {
    const hint = suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`
    super('ERR_VOICE_NOT_IN_CATALOG', `Voice "${voice}" is not in the voice catalogue${hint}`,
      { status: 404, details: { voice, ...(suggestion === undefined ? {} : { suggestion }) } })
    this.voice = voice
  }
}

/** A voice file could not be obtained from its source (HTTP status, network,
 * timeout, or a mirror file that is missing or unreadable). */
export class VoiceDownloadError extends ChorusError {
  readonly source: string

  constructor (source: string, message: string, options: ChorusErrorOptions = {}) {
    super('ERR_VOICE_DOWNLOAD', message, { status: 502, expose: false, ...options, details: { source, ...options.details } })
    this.source = source
  }
}

/** What a voice file's check found: which file, where it came from, what the
 * catalogue expects and what arrived. */
export interface IntegrityDetails {
  /** The file's path in the catalogue (and in the Piper voices repository). */
  file: string
  /** The URL or mirror path the bytes came from. */
  source: string
  expected: string | number
  actual: string | number
}

/** A downloaded voice file does not match the catalogue (nothing was
 * installed): wrong length, truncated or longer than the catalogue says (a
 * source that sends too much is cut off at the first excess chunk, hence
 * "at least"). */
export function voiceFileSize (details: IntegrityDetails & { expected: number, actual: number }): ChorusError {
  return new ChorusError('ERR_VOICE_FILE_SIZE', `Size mismatch for ${details.file} from ${details.source}: expected ${details.expected} bytes, ` +
    `received ${details.expected < details.actual ? 'at least ' : ''}${details.actual}`, { status: 502, expose: false, details: { ...details } })
}

/** The same, right length but wrong bytes. */
export function voiceFileChecksum (details: IntegrityDetails & { expected: string, actual: string }): ChorusError {
  return new ChorusError('ERR_VOICE_FILE_MD5', `MD5 mismatch for ${details.file} from ${details.source}: expected ${details.expected}, computed ${details.actual}`,
    { status: 502, expose: false, details: { ...details } })
}

/** A voice file could not be written into, or moved within, a voice folder. */
export class VoiceInstallError extends ChorusError {
  readonly path: string

  constructor (path: string, message: string, options: ChorusErrorOptions = {}) {
    super('ERR_VOICE_INSTALL', message, { status: 500, expose: false, ...options, details: { path, ...options.details } })
    this.path = path
  }
}

/** A voice whose files failed to load: refused until its files change. */
export function voiceBroken (voice: string, reason: string): ChorusError {
  return new ChorusError('ERR_VOICE_BROKEN', `Voice ${voice} cannot be loaded: ${reason}`, { status: 500, expose: true, details: { voice, reason } })
}

/** The voice folder cannot be written (a read-only mount, no write
 * permission): voices cannot be installed or removed through Chorus. */
export class VoiceFolderReadOnlyError extends ChorusError {
  constructor (readonly dir: string, reason: string) {
    super('ERR_VOICE_DIR_READ_ONLY',
      `The voice folder ${dir} is read-only (${reason}): voices cannot be installed or removed here; mount it read-write, or manage its files outside Chorus`,
      { status: 409, expose: true, details: { dir, reason } })
  }
}

/** Removing a voice whose files are not in the voice folder. */
export function voiceNotInstalled (voice: string, dir: string): ChorusError {
  return new ChorusError('ERR_VOICE_NOT_INSTALLED', `Voice "${voice}" is not installed in ${dir}`, { status: 404, expose: true, details: { voice } })
}

/** An install stopped by a removal of its voice (DELETE while it ran). */
export function voiceInstallCancelled (voice: string): ChorusError {
  return new ChorusError('ERR_VOICE_INSTALL_CANCELLED', `The install of voice "${voice}" was cancelled: the voice was removed while it was being installed`,
    { status: 409, expose: true, details: { voice } })
}
