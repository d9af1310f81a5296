// Installs catalogue voices into a voice folder: from the Piper voices
// repository over HTTP(S), from a file: URL, or from a mirror folder laid out
// like the repository. Each file is streamed to a temporary sibling while its
// bytes are counted and hashed, checked against the catalogue, and only then
// renamed into place, the .onnx.json last: a voice folder never shows a
// partial file or a voice whose config arrived before its model. A download
// is bounded in time twice: no wait for a response or its next byte longer
// than the stall timeout, and no install longer than its deadline (a source
// that trickles a byte a second never stalls). HTTP redirects are followed
// here, each checked first (redirect-policy.ts).

import { createHash } from 'node:crypto'
import { mkdir, open, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { fileURLToPath } from 'node:url'
import ky, { HTTPError, TimeoutError } from 'ky'
import { ChorusError } from '../errors.js'
import { integerInRange, invalid, isNonEmptyString, isPlainObject } from '../validate.js'
import { loadCatalog, parseCatalog, VoiceCatalog, type CatalogFile, type CatalogVoice } from './catalog.js'
import { SILENT_LOG, type InstallLog } from './bundled.js'
import { RedirectPolicy, type AddressLookup } from './redirect-policy.js'
import { VoiceDownloadError, voiceFileChecksum, voiceFileSize, VoiceInstallError, VoiceNotInCatalogError } from './errors.js'
import { assertVoiceName, isValidVoiceName, temporaryPath, voiceFiles } from './voice-name.js'

/** Piper's voices repository at the release the catalogue describes. */
export const DEFAULT_BASE_URL = 'https://huggingface.co/rhasspy/piper-voices/resolve/v1.0.0/'
/** For a response to start, and then for each chunk of its body. */
export const DEFAULT_TIMEOUT_MS = 30_000
const DEFAULT_RETRIES = 2
/** Redirects followed for one file, at most. */
const MAX_REDIRECTS = 5
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])

export interface FetchVoicesOptions {
  /** The voice folder to install into; created if missing. */
  destDir: string
  /** http:, https: or file: URL of the repository root (default DEFAULT_BASE_URL). */
  baseUrl?: string | URL
  /** A folder laid out like the repository; read instead of downloading. */
  mirrorDir?: string
  /** A loaded catalogue, parsed catalogue JSON, or a path (default voices/catalog.json). */
  catalog?: VoiceCatalog | Record<string, unknown> | string
  /** The stall timeout: for a response to start, and then for each chunk of its body. */
  timeoutMs?: number
  /** The whole call's time, every file, retry and redirect included (default: none). */
  deadlineMs?: number
  /** Resolves a redirect's host to check its addresses (default: the system's resolver). */
  lookup?: AddressLookup
  /** Retries of a failed GET (network error, timeout, 408, 413, 429, 500, 502, 503, 504). */
  retries?: number
  signal?: AbortSignal
  /** Progress: each file fetched, each voice installed or already present. */
  log?: InstallLog
  /** Bytes of `file` received so far, called as they arrive (and once with
   * the whole size for a file already installed intact). */
  onProgress?: (file: CatalogFile, bytes: number) => void
}

export interface FetchedVoice {
  name: string
  /** `present`: both files already matched the catalogue; nothing was written. */
  status: 'installed' | 'present'
  model: string
  config: string
  /** Bytes written by this call. */
  bytes: number
}

// One client for the Piper voices repository. GET is idempotent, so every
// retryable failure (timeouts included) is retried with ky's backoff.
// Redirects come back as answers (3xx), to be checked before they are followed.
const voicesHttp = ky.create({
  timeout: DEFAULT_TIMEOUT_MS,
  retry: { limit: DEFAULT_RETRIES, methods: ['get'], retryOnTimeout: true },
  throwHttpErrors: true,
  redirect: 'manual'
})

/** Where a file's bytes come from. */
interface FileSource {
  /** The URL or path, for messages. */
  locate (file: CatalogFile): string
  open (file: CatalogFile): Promise<AsyncIterable<Uint8Array>>
}

interface Context {
  destDir: string
  source: FileSource
  signal: AbortSignal | undefined
  log: InstallLog
  onProgress: (file: CatalogFile, bytes: number) => void
}

/** Installs the named voices, in order, stopping at the first failure. Names
 * are checked and looked up before anything is downloaded. */
export async function fetchVoices (names: readonly string[], options: FetchVoicesOptions): Promise<FetchedVoice[]> {
  if (!Array.isArray(names)) throw invalid('an array of voice names', 'names', names)
  if (!isPlainObject(options)) throw invalid('an object', 'options', options)
  if (!isNonEmptyString(options.destDir)) throw invalid('a folder path', 'options.destDir', options.destDir)
  const deadline = callDeadline(options)
  try {
    const context: Context = {
      destDir: options.destDir,
      source: chooseSource({ ...options, signal: deadline.signal }),
      signal: deadline.signal,
      log: options.log ?? SILENT_LOG,
      onProgress: options.onProgress ?? (() => {})
    }
    const catalog = await resolveCatalog(options.catalog)
    const voices = new Set(names.map((name, index) => lookUp(catalog, name, `names[${index}]`)))
    await ensureFolder(context.destDir)
    const results: FetchedVoice[] = []
    for (const voice of voices) results.push(await installVoice(voice, context))
    return results
  } finally {
    deadline.clear()
  }
}

/** The caller's signal, and the deadline's when there is one: its reason
 * names the limit, so the error says why the download stopped. */
function callDeadline (options: FetchVoicesOptions): { signal: AbortSignal | undefined, clear: () => void } {
  if (options.deadlineMs === undefined) return { signal: options.signal, clear: () => {} }
  const deadlineMs = integerInRange(options.deadlineMs, 'options.deadlineMs', 1, 2_147_483_647)
  const controller = new AbortController()
  const source = String(options.baseUrl ?? options.mirrorDir ?? DEFAULT_BASE_URL)
  const timer = setTimeout(() => controller.abort(new VoiceDownloadError(source, `The download did not finish within its deadline of ${deadlineMs / 1000} s`, { status: 504, details: { deadline_ms: deadlineMs } })), deadlineMs)
  const signal = options.signal === undefined ? controller.signal : AbortSignal.any([options.signal, controller.signal])
  return { signal, clear: () => clearTimeout(timer) }
}

/** Piper's old names (`en-us-lessac-medium`) are not valid voice names, but
 * deserve "did you mean" rather than a bare rejection. */
function lookUp (catalog: VoiceCatalog, name: unknown, field: string): CatalogVoice {
  if (typeof name === 'string' && !isValidVoiceName(name)) {
    const suggestion = catalog.suggest(name)
    if (suggestion !== undefined) throw new VoiceNotInCatalogError(name, suggestion)
  }
  return catalog.get(assertVoiceName(name, field))
}

async function resolveCatalog (catalog: FetchVoicesOptions['catalog']): Promise<VoiceCatalog> {
  if (catalog instanceof VoiceCatalog) return catalog
  if (catalog === undefined || typeof catalog === 'string') return await loadCatalog(catalog)
  if (isPlainObject(catalog)) return parseCatalog(catalog, 'options.catalog')
  throw invalid('a VoiceCatalog, catalogue JSON or a path', 'options.catalog', catalog)
}

function chooseSource (options: FetchVoicesOptions): FileSource {
  const timeoutMs = options.timeoutMs === undefined
    ? DEFAULT_TIMEOUT_MS
    : integerInRange(options.timeoutMs, 'options.timeoutMs', 1, 2_147_483_647)
  const retries = options.retries === undefined ? DEFAULT_RETRIES : integerInRange(options.retries, 'options.retries', 0, 10)
  if (options.mirrorDir !== undefined) {
    if (options.baseUrl !== undefined) throw invalid('no baseUrl when options.mirrorDir is set', 'options.baseUrl', String(options.baseUrl))
    if (!isNonEmptyString(options.mirrorDir)) throw invalid('a folder path', 'options.mirrorDir', options.mirrorDir)
    const root = options.mirrorDir
    return localSource(file => join(root, ...file.path.split('/')))
  }
  const base = parseBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL)
  if (base.protocol === 'file:') return localSource(file => fileURLToPath(fileUrl(base, file)))
  return httpSource(base, { timeoutMs, retries, signal: options.signal, redirects: new RedirectPolicy(base, options.lookup) })
}

function parseBaseUrl (value: unknown): URL {
  let url: URL | undefined
  try {
    url = new URL(String(value))
  } catch {
    // Not a URL: refused just below, with what arrived.
  }
  if ((typeof value !== 'string' && !(value instanceof URL)) || url === undefined || !['http:', 'https:', 'file:'].includes(url.protocol)) {
    throw invalid('an http:, https: or file: URL', 'options.baseUrl', value instanceof URL ? value.href : value)
  }
  // Without a trailing slash, URL resolution would drop the last segment.
  if (!url.pathname.endsWith('/')) url.pathname += '/'
  return url
}

/** Catalogue paths are raw names (`tugão`); each segment is encoded. */
function fileUrl (base: URL, file: CatalogFile): URL {
  return new URL(file.path.split('/').map(encodeURIComponent).join('/'), base)
}

function localSource (pathOf: (file: CatalogFile) => string): FileSource {
  return {
    locate: pathOf,
    async open (file) {
      const path = pathOf(file)
      try {
        // Opened here, not lazily by the stream, so a missing file fails
        // before a temporary file is created.
        const handle = await open(path, 'r')
        return handle.createReadStream()
      } catch (error) {
        throw new VoiceDownloadError(path, `Cannot read ${path}: ${reason(error)}`, { cause: error })
      }
    }
  }
}

interface HttpOptions {
  timeoutMs: number
  retries: number
  signal: AbortSignal | undefined
  redirects: RedirectPolicy
}

function httpSource (base: URL, options: HttpOptions): FileSource {
  return {
    locate: file => fileUrl(base, file).href,
    async open (file) {
      let url = fileUrl(base, file)
      for (let hop = 0; ; hop++) {
        // ky's timeout ends when the headers arrive; a body that stops
        // mid-file is caught by the idle timer in readBody, which aborts the
        // request through this controller.
        const stall = new AbortController()
        const response = await get(url.href, options, stall)
        const location = response.headers.get('location')
        if (REDIRECT_STATUSES.has(response.status)) {
          await response.body?.cancel().catch(() => {})
          url = await redirected(url, location, hop, options.redirects)
          continue
        }
        if (response.body === null) throw new VoiceDownloadError(url.href, `GET ${url.href} returned no body`)
        return readBody(url.href, response.body, options.timeoutMs, stall, options.signal)
      }
    }
  }
}

/** One GET; a redirect comes back as its answer. */
async function get (url: string, options: HttpOptions, stall: AbortController): Promise<Response> {
  try {
    return await voicesHttp.get(url, {
      timeout: options.timeoutMs,
      retry: { limit: options.retries, methods: ['get'], retryOnTimeout: true },
      signal: options.signal === undefined ? stall.signal : AbortSignal.any([options.signal, stall.signal])
    })
  } catch (error) {
    if (error instanceof HTTPError && REDIRECT_STATUSES.has(error.response.status)) return error.response
    throw await downloadError(url, options.timeoutMs, error, options.signal)
  }
}

/** Where a redirect leads, once checked; a refusal names the redirect, never what the target would answer. */
async function redirected (from: URL, location: string | null, hop: number, policy: RedirectPolicy): Promise<URL> {
  if (location === null || location === '') throw new VoiceDownloadError(from.href, `GET ${from.href} redirected without a Location`)
  if (hop >= MAX_REDIRECTS) throw new VoiceDownloadError(from.href, `GET ${from.href} redirected more than ${MAX_REDIRECTS} times`)
  let target: URL
  try {
    target = new URL(location, from)
  } catch {
    throw new VoiceDownloadError(from.href, `GET ${from.href} redirected to a Location that is not a URL`)
  }
  const refusal = await policy.refusal(target)
  if (refusal !== undefined) {
    throw new VoiceDownloadError(from.href, `GET ${from.href} redirected to ${target.origin}, which is not followed: ${refusal}`, { details: { redirect: target.origin } })
  }
  return target
}

async function downloadError (url: string, timeoutMs: number, error: unknown, signal: AbortSignal | undefined): Promise<unknown> {
  if (signal?.aborted === true) return signal.reason
  if (error instanceof HTTPError) {
    await error.response.body?.cancel().catch(() => {})
    const { status, statusText } = error.response
    return new VoiceDownloadError(url, `GET ${url} failed: ${status} ${statusText}`.trimEnd(), { cause: error, details: { status } })
  }
  if (error instanceof TimeoutError) {
    return new VoiceDownloadError(url, `GET ${url} timed out: no response within ${timeoutMs} ms`, { cause: error })
  }
  return new VoiceDownloadError(url, `GET ${url} failed: ${reason(error)}`, { cause: error })
}

async function * readBody (url: string, body: ReadableStream<Uint8Array>, timeoutMs: number,
  stall: AbortController, signal: AbortSignal | undefined): AsyncGenerator<Uint8Array> {
  const timer = setTimeout(() => {
    stall.abort(new VoiceDownloadError(url, `GET ${url} stalled: no data for ${timeoutMs} ms`))
  }, timeoutMs)
  try {
    for await (const chunk of body) {
      timer.refresh()
      yield chunk
    }
  } catch (error) {
    if (signal?.aborted === true) throw signal.reason
    if (stall.signal.aborted) throw stall.signal.reason
    throw new VoiceDownloadError(url, `GET ${url} failed while reading the body: ${reason(error)}`, { cause: error })
  } finally {
    clearTimeout(timer)
  }
}

async function installVoice (voice: CatalogVoice, context: Context): Promise<FetchedVoice> {
  const paths = voiceFiles(context.destDir, voice.name)
  const wanted: Array<[CatalogFile, string]> = [[voice.model, paths.model], [voice.config, paths.config]]
  const staged: Array<{ temp: string, target: string, bytes: number }> = []
  try {
    for (const [file, target] of wanted) {
      if (await isInstalled(target, file)) {
        context.onProgress(file, file.sizeBytes)
        continue
      }
      const temp = temporaryPath(target)
      staged.push({ temp, target, bytes: file.sizeBytes })
      await download(file, temp, context)
    }
    if (staged.length === 0) {
      context.log.info({ voice: voice.name, destDir: context.destDir }, `${voice.name} is already installed in ${context.destDir}`)
      return { name: voice.name, status: 'present', ...paths, bytes: 0 }
    }
    await commit(staged, paths.config)
  } finally {
    await Promise.all(staged.map(async ({ temp }) => await rm(temp, { force: true })))
  }
  const bytes = staged.reduce((sum, { bytes }) => sum + bytes, 0)
  context.log.info({ voice: voice.name, destDir: context.destDir, bytes }, `installed ${voice.name} in ${context.destDir} (${formatBytes(bytes)} written)`)
  return { name: voice.name, status: 'installed', ...paths, bytes }
}

/** Renames staged files into place, model first. When both files are
 * replaced, the old config goes first, so an old model never pairs with a
 * new config (or the reverse) under a complete-looking name. */
async function commit (staged: Array<{ temp: string, target: string }>, config: string): Promise<void> {
  let target = config
  try {
    if (staged.length === 2) await rm(config, { force: true })
    for (const file of staged) {
      target = file.target
      await rename(file.temp, target)
    }
  } catch (error) {
    throw new VoiceInstallError(target, `Cannot install ${target}: ${reason(error)}`, { cause: error })
  }
}

/** An existing file counts only if its size and md5 match the catalogue;
 * one that cannot be read is replaced like a wrong one. */
async function isInstalled (path: string, file: CatalogFile): Promise<boolean> {
  try {
    const info = await stat(path)
    if (!info.isFile() || info.size !== file.sizeBytes) return false
    const hash = createHash('md5')
    await pipeline((await open(path, 'r')).createReadStream(), hash)
    return hash.digest('hex') === file.md5
  } catch {
    return false
  }
}

/** Streams one file into temp, counting and hashing; throws if it does not
 * match the catalogue. The caller removes temp whatever happens. */
async function download (file: CatalogFile, temp: string, context: Context): Promise<void> {
  const from = context.source.locate(file)
  context.log.info({ file: file.path, bytes: file.sizeBytes, source: from }, `fetching ${file.path} (${formatBytes(file.sizeBytes)}) from ${from}`)
  // The temporary file comes first: if it cannot be created, no request is
  // left open with an unread body.
  let handle
  try {
    handle = await open(temp, 'wx')
  } catch (error) {
    throw new VoiceInstallError(temp, `Cannot write ${temp}: ${reason(error)}`, { cause: error })
  }
  let body
  try {
    body = await context.source.open(file)
  } catch (error) {
    await handle.close()
    throw error
  }
  const hash = createHash('md5')
  let bytes = 0
  // Counting as bytes arrive stops a source that sends more than the
  // catalogue says at the first excess chunk, not after filling the disk.
  async function * measure (chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    for await (const chunk of chunks) {
      bytes += chunk.byteLength
      if (bytes > file.sizeBytes) throw voiceFileSize({ file: file.path, source: from, expected: file.sizeBytes, actual: bytes })
      hash.update(chunk)
      context.onProgress(file, bytes)
      yield chunk
    }
  }
  try {
    await pipeline(body, measure, handle.createWriteStream({ flush: true }), { signal: context.signal })
  } catch (error) {
    if (context.signal?.aborted === true) throw context.signal.reason
    if (error instanceof ChorusError) throw error
    throw new VoiceInstallError(temp, `Cannot write ${temp}: ${reason(error)}`, { cause: error })
  }
  if (bytes !== file.sizeBytes) throw voiceFileSize({ file: file.path, source: from, expected: file.sizeBytes, actual: bytes })
  const md5 = hash.digest('hex')
  if (md5 !== file.md5) throw voiceFileChecksum({ file: file.path, source: from, expected: file.md5, actual: md5 })
}

async function ensureFolder (dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true })
  } catch (error) {
    throw new VoiceInstallError(dir, `Cannot create voice folder ${dir}: ${reason(error)}`, { cause: error })
  }
}

/** The error's message and its causes': fetch's own is only "fetch failed",
 * the reason (a DNS failure, a refused connection, a bad certificate) is in
 * its cause chain. */
function reason (error: unknown): string {
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return 'file not found'
  const parts: string[] = []
  let current: unknown = error
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const message = current instanceof AggregateError && current.message === ''
      ? current.errors.map(inner => inner instanceof Error ? inner.message : String(inner)).join('; ')
      : current instanceof Error ? current.message : String(current)
    if (message !== '' && !parts.includes(message)) parts.push(message)
    current = (current as { cause?: unknown }).cause
  }
  return parts.join(': ')
}

function formatBytes (bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}
