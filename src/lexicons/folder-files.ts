// Lexicons an operator drops into the voice folder, read when a request
// needs them and again when they change (by size and modification time):
//   lexicon.pls, lexicon.json                 every voice's
//   <voice>.lexicon.pls, <voice>.lexicon.json  that voice's
// A file that cannot be read is logged once per change and left out: a
// request is never refused for the operator's file.

import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from '../shared/logger.js'
import { LEXICON_LIMITS, type Lexicon } from '../text/lexicon/lexicon.js'
import { readLexicon, type LexiconFormat } from './read.js'

interface Cached {
  stamp: string
  lexicon: Lexicon | undefined
}

export interface FolderLexicon {
  lexicon: Lexicon
  /** Changes when the file does: part of a matcher's cache key. */
  stamp: string
}

export class FolderLexicons {
  private readonly cache = new Map<string, Cached>()

  constructor (private readonly dir: string, private readonly log: Logger) {}

  /** The folder's global lexicons, or `voice`'s. */
  lexicons (voice?: string): FolderLexicon[] {
    const stem = voice === undefined ? 'lexicon' : `${voice}.lexicon`
    const out: FolderLexicon[] = []
    for (const format of ['pls', 'json'] as const) {
      const found = this.read(join(this.dir, `${stem}.${format}`), format)
      if (found !== undefined) out.push(found)
    }
    return out
  }

  private read (path: string, format: LexiconFormat): FolderLexicon | undefined {
    let stamp: string
    let size: number
    try {
      const info = statSync(path)
      if (!info.isFile()) return undefined
      size = info.size
      stamp = `${path}@${info.mtimeMs}:${size}`
    } catch {
      return undefined
    }
    const cached = this.cache.get(path)
    if (cached?.stamp === stamp) return cached.lexicon === undefined ? undefined : { lexicon: cached.lexicon, stamp }
    let lexicon: Lexicon | undefined
    try {
      if (size > LEXICON_LIMITS.bytes) throw new Error(`over ${LEXICON_LIMITS.bytes} bytes`)
      lexicon = readLexicon(readFileSync(path, 'utf8'), format, `lexicon file ${path}`)
    } catch (error) {
      this.log.warn({ err: error, path }, 'a lexicon file in the voice folder cannot be read; it is left out')
    }
    this.cache.set(path, { stamp, lexicon })
    return lexicon === undefined ? undefined : { lexicon, stamp }
  }
}
