// The voice catalogue: Piper's voices.json (voices/catalog.json), which lists
// every published voice with its files' paths in the Piper voices repository,
// sizes and md5 digests. Loaded and validated once; the fetcher trusts only
// what passed here, so file paths are checked to stay inside a mirror folder
// or under a base URL.

import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { PACKAGE_ROOT } from '../package-root.js'
import { expectedMessage, isInteger, isNonEmptyString, isPlainObject } from '../validate.js'
import { CatalogError, VoiceNotInCatalogError } from './errors.js'
import { isValidVoiceName } from './voice-name.js'

export const DEFAULT_CATALOG_PATH = join(PACKAGE_ROOT, 'voices/catalog.json')

export interface CatalogFile {
  /** Relative to the Piper voices repository root, `/`-separated. */
  path: string
  sizeBytes: number
  /** Lowercase hex. */
  md5: string
}

export interface CatalogVoice {
  name: string
  /** `en_US`: the name's first part. */
  language: string
  /** `medium`: the name's last part. */
  quality: string
  numSpeakers: number
  /** Old names Piper still accepts (`en-us-lessac-medium`); used for hints only. */
  aliases: readonly string[]
  model: CatalogFile
  config: CatalogFile
}

export class VoiceCatalog {
  /** Where the catalogue came from, for messages. */
  readonly source: string
  readonly #voices: ReadonlyMap<string, CatalogVoice>
  readonly #hints: ReadonlyMap<string, string>

  constructor (voices: Iterable<CatalogVoice>, source: string) {
    this.source = source
    const byName = new Map<string, CatalogVoice>()
    const hints = new Map<string, string>()
    for (const voice of voices) {
      byName.set(voice.name, voice)
      hints.set(voice.name.toLowerCase(), voice.name)
      for (const alias of voice.aliases) hints.set(alias.toLowerCase(), voice.name)
    }
    this.#voices = byName
    this.#hints = hints
  }

  get size (): number {
    return this.#voices.size
  }

  has (name: string): boolean {
    return this.#voices.has(name)
  }

  /** The voice, or VoiceNotInCatalogError with a suggestion if there is one. */
  get (name: string): CatalogVoice {
    const voice = this.#voices.get(name)
    if (voice === undefined) throw new VoiceNotInCatalogError(name, this.suggest(name))
    return voice
  }

  /** The voice meant by an alias or by a name that differs only in case. */
  suggest (name: string): string | undefined {
    const hint = this.#hints.get(name.toLowerCase())
    return hint === name ? undefined : hint
  }

  names (): string[] {
    return [...this.#voices.keys()]
  }

  list (): CatalogVoice[] {
    return [...this.#voices.values()]
  }
}

export async function loadCatalog (path: string = DEFAULT_CATALOG_PATH): Promise<VoiceCatalog> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (error as Error).message
    throw new CatalogError(`Cannot read voice catalogue ${path}: ${reason}`, { cause: error })
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new CatalogError(`Cannot read voice catalogue ${path}: not valid JSON (${(error as Error).message})`, { cause: error })
  }
  return parseCatalog(json, path)
}

/** Validates parsed catalogue JSON; every problem names its field. */
export function parseCatalog (json: unknown, source: string): VoiceCatalog {
  const fail = (what: string, field: string, value: unknown): CatalogError =>
    new CatalogError(`Invalid voice catalogue ${source}: ${expectedMessage(what, field, value)}`, { details: { field } })
  if (!isPlainObject(json)) throw fail('an object of voices', '(root)', json)
  const voices = Object.entries(json).map(([name, entry]) => parseVoice(name, entry, fail))
  return new VoiceCatalog(voices, source)
}

type Fail = (what: string, field: string, value: unknown) => CatalogError

function parseVoice (name: string, entry: unknown, fail: Fail): CatalogVoice {
  const at = `[${JSON.stringify(name)}]`
  if (!isValidVoiceName(name)) throw fail('a voice name like en_US-lessac-medium', `${at} (key)`, name)
  if (!isPlainObject(entry)) throw fail('an object', at, entry)
  const numSpeakers = entry.num_speakers ?? 1
  if (!isInteger(numSpeakers) || numSpeakers < 1) throw fail('a positive integer', `${at}.num_speakers`, numSpeakers)
  const aliases = entry.aliases ?? []
  if (!Array.isArray(aliases) || !aliases.every(isNonEmptyString)) throw fail('an array of names', `${at}.aliases`, aliases)
  if (!isPlainObject(entry.files)) throw fail('an object of files', `${at}.files`, entry.files)
  const parts = name.split('-')
  return {
    name,
    language: parts[0] as string,
    quality: parts[parts.length - 1] as string,
    numSpeakers,
    aliases,
    model: findFile(entry.files, `${name}.onnx`, `${at}.files`, fail),
    config: findFile(entry.files, `${name}.onnx.json`, `${at}.files`, fail)
  }
}

/** The one entry of `files` whose last path segment is `fileName`. */
function findFile (files: Record<string, unknown>, fileName: string, at: string, fail: Fail): CatalogFile {
  const matches = Object.keys(files).filter(path => path === fileName || path.endsWith(`/${fileName}`))
  if (matches.length !== 1) {
    throw fail(`exactly one file named ${fileName}`, at, matches.length === 0 ? Object.keys(files) : matches)
  }
  const path = matches[0] as string
  const field = `${at}[${JSON.stringify(path)}]`
  if (!isSafeRelativePath(path)) throw fail('a relative path without "." or ".." segments', field, path)
  const info = files[path]
  if (!isPlainObject(info)) throw fail('an object', field, info)
  if (!isInteger(info.size_bytes) || info.size_bytes < 0) {
    throw fail('a non-negative integer', `${field}.size_bytes`, info.size_bytes)
  }
  if (typeof info.md5_digest !== 'string' || !/^[0-9a-f]{32}$/i.test(info.md5_digest)) {
    throw fail('32 hex digits', `${field}.md5_digest`, info.md5_digest)
  }
  return { path, sizeBytes: info.size_bytes, md5: info.md5_digest.toLowerCase() }
}

// Paths are joined onto a mirror folder and resolved against a base URL, so
// each segment must be a plain name: never empty, ".", "..", absolute, or
// carrying a backslash or control character.
function isSafeRelativePath (path: string): boolean {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  if (/[\\\u0000-\u001f\u007f]/.test(path)) return false
  return path.split('/').every(segment => segment !== '' && segment !== '.' && segment !== '..')
}
