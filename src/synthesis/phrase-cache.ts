// An LRU of finished audio, bounded in bytes. Bots repeat greetings and stock
// phrases; a hit answers from memory instead of a synthesis. The key holds
// everything that shapes the audio: voice (and the version of its files),
// speaker, every synthesis setting, the text and the audio format. Audio is
// cached as a whole file in its format, so a hit costs a map lookup and a write.

import type { SynthesisConfig } from '../engine/index.js'

export interface CachedAudio {
  /** A complete file in the key's format (a WAV file has exact sizes). */
  bytes: Buffer
  sampleRate: number
}

/** Runs of spaces and tabs are one space to espeak; newlines are kept, since
 * they can end clauses. */
export function normaliseText (text: string): string {
  return text.normalize('NFC').replace(/[ \t]+/g, ' ').trim()
}

/** What the key needs of a prepared synthesis (see synthesizer.ts). */
export interface KeyedSynthesis {
  voice: { name: string, version: string }
  settings: SynthesisConfig
}

/** The key of a request's audio in `format`. A voice's version changes with
 * its files, so a replaced voice never answers with its old audio. */
export function speechCacheKey (prepared: KeyedSynthesis, text: string, format: string): string {
  return cacheKey(prepared.voice.name, prepared.voice.version, prepared.settings, text, format)
}

/** `format` is only added to the key for formats other than WAV. */
export function cacheKey (voice: string, voiceVersion: string, settings: SynthesisConfig, text: string, format = 'wav'): string {
  return JSON.stringify([voice, voiceVersion, settings.speakerId, settings.noiseScale, settings.lengthScale,
    settings.noiseW, settings.sentenceSilence, normaliseText(text), ...(format === 'wav' ? [] : [format])])
}

/** One answer takes at most this fraction of the cache's bytes. */
const ENTRY_SHARE = 8

export class PhraseCache {
  private readonly entries = new Map<string, CachedAudio>()
  private used = 0

  constructor (readonly maxBytes: number) {}

  get enabled (): boolean {
    return this.maxBytes > 0
  }

  get bytes (): number {
    return this.used
  }

  get size (): number {
    return this.entries.size
  }

  /** Whether an answer of `bytes` may be kept: at most a share of the
   * cache, so that keeping a copy of a long answer never costs more than
   * the cache itself, and one answer cannot empty it. */
  fits (bytes: number): boolean {
    return bytes <= this.maxBytes / ENTRY_SHARE
  }

  get (key: string): CachedAudio | undefined {
    const hit = this.entries.get(key)
    if (hit !== undefined) {
      // Most recently used goes to the end of the Map's order.
      this.entries.delete(key)
      this.entries.set(key, hit)
    }
    return hit
  }

  set (key: string, audio: CachedAudio): void {
    const cost = audio.bytes.length + key.length * 2
    if (cost > this.maxBytes) return
    const previous = this.entries.get(key)
    if (previous !== undefined) {
      this.entries.delete(key)
      this.used -= previous.bytes.length + key.length * 2
    }
    this.entries.set(key, audio)
    this.used += cost
    for (const [oldest, entry] of this.entries) {
      if (this.used <= this.maxBytes) break
      this.entries.delete(oldest)
      this.used -= entry.bytes.length + oldest.length * 2
    }
  }

  /** Drops every entry of a voice (its files changed or it was removed). */
  dropVoice (voice: string): void {
    for (const [key, entry] of this.entries) {
      if ((JSON.parse(key) as string[])[0] === voice) {
        this.entries.delete(key)
        this.used -= entry.bytes.length + key.length * 2
      }
    }
  }
}
