// The lexicons an operator installs through the admin API, versioned as
// ElevenLabs' pronunciation dictionaries are (an id, and a version id per
// upload; a request names the id, and a version or the latest), kept on
// disk (TTS_LEXICON_DIR) and in memory, and the one answer to "which entries
// apply to this request" (LexiconSource): the lexicons it names, its API
// key's, its voice's and the global ones, those of the voice folder beside
// them. Bounded: STORE_LIMITS lexicons and versions, LEXICON_LIMITS each.
//
// On disk, per lexicon: <dir>/<id>/meta.json (its scope and versions) and
// <dir>/<id>/<version>.pls|.json (each upload as sent). Writes go to a new
// name and are renamed into place, one at a time.

import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from '../shared/logger.js'
import type { LexiconLocator, LexiconQuery, LexiconSource } from '../synthesis/lexicon-source.js'
import { languageFits, type Lexicon } from '../text/lexicon/lexicon.js'
import { LexiconMatcher } from '../text/lexicon/matcher.js'
import { invalid } from '../validate.js'
import { lexiconNotFound, namedLexiconMissing, tooManyLexicons } from './errors.js'
import type { FolderLexicons } from './folder-files.js'
import { readLexicon, type LexiconFormat } from './read.js'
import type { LexiconScope } from './scope.js'

export const STORE_LIMITS = Object.freeze({
  /** Lexicons installed at once. */
  lexicons: 100,
  /** Versions kept of each (the oldest goes). */
  versions: 10,
  /** Matchers (indexes of a request's lexicons) kept for reuse. */
  matchers: 64
})

/** A lexicon's and a version's id: a letter or digit, then letters, digits, ".", "_", "-". */
export const LEXICON_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

export interface LexiconVersion {
  id: string
  created: string
  format: LexiconFormat
  entries: number
  language?: string
}

export interface StoredLexicon {
  id: string
  scope: LexiconScope
  /** Oldest first; the last is the latest. */
  versions: LexiconVersion[]
}

interface Entry {
  meta: StoredLexicon
  parsed: Map<string, Lexicon>
}

export class LexiconStore implements LexiconSource {
  private readonly lexicons = new Map<string, Entry>()
  private readonly matchers = new Map<string, LexiconMatcher>()
  private writing: Promise<unknown> = Promise.resolve()

  constructor (readonly dir: string, private readonly folder: FolderLexicons | undefined, private readonly log: Logger) {}

  /** Reads what is on disk (nothing when the folder is not there yet); a
   * lexicon that cannot be read is logged and left out. */
  async load (): Promise<void> {
    // Made by the first upload, not before: the voice folder holds nothing else of Chorus's.
    const ids = await readdir(this.dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return []
      throw error
    })
    for (const id of ids) {
      if (!LEXICON_ID.test(id)) continue
      try {
        const meta = JSON.parse(await readFile(join(this.dir, id, 'meta.json'), 'utf8')) as StoredLexicon
        const parsed = new Map<string, Lexicon>()
        for (const version of meta.versions) {
          const source = await readFile(this.file(id, version), 'utf8')
          parsed.set(version.id, readLexicon(source, version.format, `lexicon "${id}" version ${version.id}`))
        }
        this.lexicons.set(id, { meta, parsed })
      } catch (error) {
        this.log.warn({ err: error, id }, 'an installed lexicon cannot be read; it is left out')
      }
    }
  }

  list (): StoredLexicon[] {
    return [...this.lexicons.values()].map(e => e.meta).sort((a, b) => a.id.localeCompare(b.id))
  }

  get (id: string): StoredLexicon {
    const entry = this.lexicons.get(id)
    if (entry === undefined) throw lexiconNotFound(id)
    return entry.meta
  }

  /** A version's file as it was uploaded. */
  async source (id: string, version: string): Promise<{ text: string, format: LexiconFormat }> {
    const found = this.get(id).versions.find(v => v.id === version)
    if (found === undefined) throw lexiconNotFound(id, version)
    return { text: await readFile(this.file(id, found), 'utf8'), format: found.format }
  }

  /** A new version of `id` (a new lexicon when there is none): read, checked
   * by `check` (the voices' phonemes), written, then in use. `scope` unset:
   * the lexicon's own, or named for a new one. */
  async install (id: string, text: string, format: LexiconFormat, scope: LexiconScope | undefined, check: (lexicon: Lexicon, scope: LexiconScope) => void): Promise<{ lexicon: StoredLexicon, version: LexiconVersion }> {
    if (!LEXICON_ID.test(id)) throw invalid('a lexicon id (a letter or digit, then up to 63 letters, digits, ".", "_" or "-")', 'id', id)
    return await this.serially(async () => {
      const entry = this.lexicons.get(id)
      if (entry === undefined && this.lexicons.size >= STORE_LIMITS.lexicons) throw tooManyLexicons(STORE_LIMITS.lexicons)
      const number = Math.max(0, ...(entry?.meta.versions ?? []).map(v => Number(v.id.slice(1)))) + 1
      const versionId = `v${number}`
      const lexicon = readLexicon(text, format, `lexicon "${id}" version ${versionId}`)
      const chosen = scope ?? entry?.meta.scope ?? { kind: 'named' }
      check(lexicon, chosen)
      const version: LexiconVersion = { id: versionId, created: new Date().toISOString(), format, entries: lexicon.entries.length, ...(lexicon.language === undefined ? {} : { language: lexicon.language }) }
      const versions = [...(entry?.meta.versions ?? []), version]
      const dropped = versions.splice(0, Math.max(0, versions.length - STORE_LIMITS.versions))
      const meta: StoredLexicon = { id, scope: chosen, versions }
      await mkdir(join(this.dir, id), { recursive: true })
      await this.writeAtomically(this.file(id, version), text)
      await this.writeAtomically(join(this.dir, id, 'meta.json'), JSON.stringify(meta, null, 2))
      for (const old of dropped) await rm(this.file(id, old), { force: true })
      const parsed = new Map(entry?.parsed ?? [])
      parsed.set(versionId, lexicon)
      for (const old of dropped) parsed.delete(old.id)
      this.lexicons.set(id, { meta, parsed })
      this.matchers.clear()
      return { lexicon: meta, version }
    })
  }

  /** Removes a lexicon, or one version of it (the last version removes the lexicon). */
  async remove (id: string, version?: string): Promise<void> {
    await this.serially(async () => {
      const entry = this.lexicons.get(id)
      if (entry === undefined) throw lexiconNotFound(id)
      const keep = version === undefined ? [] : entry.meta.versions.filter(v => v.id !== version)
      if (version !== undefined && keep.length === entry.meta.versions.length) throw lexiconNotFound(id, version)
      if (keep.length === 0) {
        this.lexicons.delete(id)
        await rm(join(this.dir, id), { recursive: true, force: true })
      } else {
        const meta = { ...entry.meta, versions: keep }
        await this.writeAtomically(join(this.dir, id, 'meta.json'), JSON.stringify(meta, null, 2))
        await rm(this.file(id, entry.meta.versions.find(v => v.id === version) as LexiconVersion), { force: true })
        entry.parsed.delete(version as string)
        this.lexicons.set(id, { meta, parsed: entry.parsed })
      }
      this.matchers.clear()
    })
  }

  matcher (query: LexiconQuery): LexiconMatcher | undefined {
    const chosen: Array<{ lexicon: Lexicon, stamp: string }> = []
    query.named.forEach((locator, i) => chosen.push(this.named(locator, query.key, `lexicons[${i}]`)))
    const fits = (lexicon: Lexicon): boolean => languageFits(lexicon.language, query.language)
    const scoped = (test: (scope: LexiconScope) => boolean): Array<{ lexicon: Lexicon, stamp: string }> =>
      [...this.lexicons.values()].filter(e => test(e.meta.scope)).map(e => this.latest(e)).filter(l => fits(l.lexicon))
    if (query.key !== undefined) chosen.push(...scoped(s => s.kind === 'key' && s.key === query.key))
    chosen.push(...scoped(s => s.kind === 'voice' && s.voice === query.voice))
    chosen.push(...(this.folder?.lexicons(query.voice) ?? []).filter(l => fits(l.lexicon)))
    chosen.push(...scoped(s => s.kind === 'global'))
    chosen.push(...(this.folder?.lexicons() ?? []).filter(l => fits(l.lexicon)))
    if (chosen.length === 0) return undefined
    const key = chosen.map(c => c.stamp).join('\n')
    let matcher = this.matchers.get(key)
    if (matcher === undefined) {
      matcher = new LexiconMatcher(chosen.map(c => c.lexicon))
      if (this.matchers.size >= STORE_LIMITS.matchers) this.matchers.delete(this.matchers.keys().next().value as string)
      this.matchers.set(key, matcher)
    }
    return matcher
  }

  /** A lexicon a request names; another key's is not found. */
  private named (locator: LexiconLocator, key: string | undefined, field: string): { lexicon: Lexicon, stamp: string } {
    const entry = this.lexicons.get(locator.id)
    const scope = entry?.meta.scope
    if (entry === undefined || (scope?.kind === 'key' && scope.key !== key)) throw namedLexiconMissing(field, locator.id)
    const version = locator.version ?? (entry.meta.versions.at(-1) as LexiconVersion).id
    const lexicon = entry.parsed.get(version)
    if (lexicon === undefined) throw namedLexiconMissing(field, locator.id, version)
    return { lexicon, stamp: `${locator.id}@${version}` }
  }

  private latest (entry: Entry): { lexicon: Lexicon, stamp: string } {
    const version = (entry.meta.versions.at(-1) as LexiconVersion).id
    return { lexicon: entry.parsed.get(version) as Lexicon, stamp: `${entry.meta.id}@${version}` }
  }

  private file (id: string, version: LexiconVersion): string {
    return join(this.dir, id, `${version.id}.${version.format}`)
  }

  private async writeAtomically (path: string, text: string): Promise<void> {
    const temporary = `${path}.${process.pid}.tmp`
    await writeFile(temporary, text)
    await rename(temporary, path)
  }

  private async serially<T> (work: () => Promise<T>): Promise<T> {
    const run = this.writing.then(work, work)
    this.writing = run.catch(() => {})
    return await run
  }
}
