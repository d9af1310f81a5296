// Installs and removes catalogue voices in the service's voice folder while
// it serves: what the admin API (http/routes/voices-admin.ts) and
// `chorus voices install|remove` share. The fetcher does the downloading and
// checking (temporary names, size and md5, rename into place); this adds
// what a running service needs on top: one install per voice at a time (a
// second request for the same voice joins the first), each within its
// deadline and stall timeout, progress that GET /voices can show, removal
// that cancels an install under way, a clear refusal when the folder is
// read-only, and a rescan once the files changed so the voice appears or
// goes at once.

import { constants } from 'node:fs'
import { access, rm, stat } from 'node:fs/promises'
import { ChorusError } from '../errors.js'
import { loadCatalog, type CatalogFile, type VoiceCatalog } from './catalog.js'
import { SILENT_LOG, type InstallLog } from './bundled.js'
import { VoiceFolderReadOnlyError, voiceInstallCancelled, VoiceInstallError, voiceNotInstalled } from './errors.js'
import { DEFAULT_TIMEOUT_MS, fetchVoices, type FetchedVoice } from './fetch.js'
import { assertVoiceName, voiceFiles } from './voice-name.js'
import { pathExists } from './path-exists.js'

export interface VoiceInstallerOptions {
  /** The voice folder the service scans. */
  voiceDir: string
  /** The voice catalogue's path (voices/catalog.json by default). */
  catalogPath: string
  /** http:, https: or file: URL of a folder laid out like the Piper voices repository. */
  source: string
  /** The longest wait for a response or its next byte (TTS_VOICE_DOWNLOAD_STALL_SECONDS). */
  stallMs?: number
  /** One install's whole time (TTS_VOICE_DOWNLOAD_TIMEOUT_SECONDS); default none. */
  deadlineMs?: number
  log?: InstallLog
  /** Called once the folder's files changed (the registry's rescan). */
  onChange?: () => Promise<void>
  now?: () => number
}

/** An install in progress, as GET /voices shows it. */
export interface InstallProgress {
  voice: string
  state: 'installing'
  /** Bytes received (or found intact) of both files, and their total per the catalogue. */
  bytesDone: number
  bytesTotal: number
  /** Epoch milliseconds. */
  startedAt: number
}

interface Running {
  progress: InstallProgress
  done: Promise<FetchedVoice>
  /** Stops this install (a removal of its voice). */
  cancel: AbortController
}

// Codes that mean "this folder cannot be written", whoever asks.
const READ_ONLY_CODES = new Set(['EROFS', 'EACCES', 'EPERM'])

export class VoiceInstaller {
  readonly voiceDir: string
  readonly source: string
  readonly #options: VoiceInstallerOptions
  readonly #running = new Map<string, Running>()
  readonly #stop = new AbortController()
  #catalog: Promise<VoiceCatalog> | undefined

  constructor (options: VoiceInstallerOptions) {
    this.#options = options
    this.voiceDir = options.voiceDir
    this.source = options.source
  }

  /** The catalogue, read once (a bad file is an operator's error, reported on each call). */
  async catalog (): Promise<VoiceCatalog> {
    this.#catalog ??= loadCatalog(this.#options.catalogPath)
    return await this.#catalog.catch((error: unknown) => {
      this.#catalog = undefined
      throw error
    })
  }

  /** Installs in progress, oldest first. */
  progress (): InstallProgress[] {
    return [...this.#running.values()].map(running => ({ ...running.progress }))
  }

  installing (name: string): InstallProgress | undefined {
    const running = this.#running.get(name)
    return running === undefined ? undefined : { ...running.progress }
  }

  /** Installs a catalogue voice; a call for a voice already being installed
   * joins that install and gets its outcome. Rejects, never throws. */
  install (name: unknown): Promise<FetchedVoice> {
    let voice: string
    try {
      voice = assertVoiceName(name, 'voice')
    } catch (error) {
      return Promise.reject(error)
    }
    const running = this.#running.get(voice)
    if (running !== undefined) {
      this.#options.log?.info({ voice }, `joining the install of ${voice} under way`)
      return running.done
    }
    // Registered before the first await, so a second call in the same tick joins.
    const progress: InstallProgress = { voice, state: 'installing', bytesDone: 0, bytesTotal: 0, startedAt: (this.#options.now ?? Date.now)() }
    const cancel = new AbortController()
    const done = this.#install(voice, progress, AbortSignal.any([this.#stop.signal, cancel.signal])).finally(() => { this.#running.delete(voice) })
    this.#running.set(voice, { progress, done, cancel })
    return done
  }

  async #install (voice: string, progress: InstallProgress, signal: AbortSignal): Promise<FetchedVoice> {
    const catalog = await this.catalog()
    const entry = catalog.get(voice)
    progress.bytesTotal = entry.model.sizeBytes + entry.config.sizeBytes
    await assertWritable(this.voiceDir)
    const received = new Map<string, number>()
    const onProgress = (file: CatalogFile, bytes: number): void => {
      received.set(file.path, bytes)
      progress.bytesDone = [...received.values()].reduce((sum, value) => sum + value, 0)
    }
    const [result] = await fetchVoices([voice], {
      destDir: this.voiceDir,
      catalog,
      baseUrl: this.source,
      timeoutMs: this.#options.stallMs ?? DEFAULT_TIMEOUT_MS,
      ...(this.#options.deadlineMs === undefined ? {} : { deadlineMs: this.#options.deadlineMs }),
      signal,
      log: this.#options.log ?? SILENT_LOG,
      onProgress
    }).catch((error: unknown) => { throw readOnlyOr(error, this.voiceDir) })
    await this.#options.onChange?.()
    return result as FetchedVoice
  }

  /** Removes an installed voice's two files, the model first: without it
   * the config alone is never taken for a voice. An install of it under way
   * is cancelled first (its requests get ERR_VOICE_INSTALL_CANCELLED, its
   * temporary files go); then there may be nothing left to remove. */
  async remove (name: unknown): Promise<void> {
    const voice = assertVoiceName(name, 'voice')
    const cancelled = await this.#cancel(voice)
    await assertWritable(this.voiceDir)
    const paths = voiceFiles(this.voiceDir, voice)
    const present = await Promise.all([pathExists(paths.model), pathExists(paths.config)])
    if (!present.includes(true)) {
      if (cancelled) return
      throw voiceNotInstalled(voice, this.voiceDir)
    }
    for (const path of [paths.model, paths.config]) {
      try {
        await rm(path, { force: true })
      } catch (error) {
        throw readOnlyOr(new VoiceInstallError(path, `Cannot remove ${path}: ${(error as Error).message}`, { cause: error }), this.voiceDir)
      }
    }
    this.#options.log?.info({ voice, voiceDir: this.voiceDir }, `removed ${voice} from ${this.voiceDir}`)
    await this.#options.onChange?.()
  }

  /** Stops the voice's install under way, if any, once its files are cleaned up; true if there was one. */
  async #cancel (voice: string): Promise<boolean> {
    const running = this.#running.get(voice)
    if (running === undefined) return false
    running.cancel.abort(voiceInstallCancelled(voice))
    await running.done.catch(() => {})
    return true
  }

  /** Stops downloads in progress (their temporary files are removed). */
  close (): void {
    this.#stop.abort(new ChorusError('ERR_SHUTTING_DOWN', 'The service is shutting down', { status: 503 }))
  }
}

/** Refuses a folder that cannot be written. A folder with no write bit at
 * all counts as read-only even for root, who could write it anyway: that
 * is how an operator says "leave these files alone" without a mount. */
async function assertWritable (dir: string): Promise<void> {
  let mode: number
  try {
    mode = (await stat(dir)).mode
  } catch (error) {
    // A folder not there yet is created by the fetcher (or reported by it).
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw new VoiceInstallError(dir, `Cannot inspect voice folder ${dir}: ${(error as Error).message}`, { cause: error })
  }
  if ((mode & 0o222) === 0) throw new VoiceFolderReadOnlyError(dir, 'it has no write permission')
  try {
    await access(dir, constants.W_OK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? ''
    if (READ_ONLY_CODES.has(code)) throw new VoiceFolderReadOnlyError(dir, code === 'EROFS' ? 'a read-only file system' : `${code}: no write permission`)
    throw error
  }
}

/** A write that failed because the folder turned read-only mid-way is
 * reported as such; anything else as it came. */
function readOnlyOr (error: unknown, dir: string): unknown {
  const cause = (error as { cause?: NodeJS.ErrnoException } | undefined)?.cause
  const code = cause?.code
  if (error instanceof VoiceInstallError && code !== undefined && READ_ONLY_CODES.has(code)) {
    return new VoiceFolderReadOnlyError(dir, code === 'EROFS' ? 'a read-only file system' : `${code}: no write permission`)
  }
  return error
}

