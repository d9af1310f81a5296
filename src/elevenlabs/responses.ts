// ElevenLabs' HTTP answers: the character alignment of /with-timestamps
// ({characters, character_start_times_seconds, character_end_times_seconds},
// from the speech service's word timing, spread as the WebSocket's), one
// line of /stream/with-timestamps per audio chunk, and GET /v1/voices.

import type { TimingChunk } from '../synthesis/timing.js'
import type { VoiceInfo } from '../synthesis/voice-info.js'
import { buildAlignment, coveredEnd } from '../websocket/alignment.js'

export interface CharacterAlignment {
  characters: string[]
  character_start_times_seconds: number[]
  character_end_times_seconds: number[]
}

/** The alignment of text[from, to) from the words of `chunks`. */
export function characterAlignment (text: string, chunks: readonly TimingChunk[], from = 0, to = text.length): CharacterAlignment | null {
  const words = chunks.flatMap(chunk => chunk.words)
  const rate = chunks[0]?.sampleRate
  if (words.length === 0 || rate === undefined) return null
  const ms = buildAlignment(text, words, rate, from, to)
  return {
    characters: ms.chars,
    character_start_times_seconds: ms.charStartTimesMs.map(start => start / 1000),
    character_end_times_seconds: ms.charStartTimesMs.map((start, i) => (start + (ms.charDurationsMs[i] as number)) / 1000)
  }
}

/** /stream/with-timestamps: each audio chunk as a line, with the alignment
 * of the characters whose timing came since the last one. */
export function timedLines (text: string): { timing: (chunk: TimingChunk) => string, audio: (bytes: Uint8Array) => string } {
  let pending: TimingChunk[] = []
  let covered = 0
  return {
    timing: chunk => {
      if (chunk.words.length > 0) pending.push(chunk)
      return ''
    },
    audio: bytes => {
      const to = pending.length === 0 ? covered : coveredEnd(text, pending.flatMap(chunk => chunk.words))
      const alignment = pending.length === 0 ? null : characterAlignment(text, pending, covered, to)
      pending = []
      covered = to
      return JSON.stringify({ audio_base64: Buffer.from(bytes).toString('base64'), alignment, normalized_alignment: alignment }) + '\n'
    }
  }
}

/** GET /v1/voices: every installed voice, in ElevenLabs' shape. */
export function elevenLabsVoices (voices: readonly VoiceInfo[]): unknown {
  return {
    voices: voices.map(voice => ({
      voice_id: voice.name,
      name: voice.name,
      category: 'premade',
      description: null,
      labels: { language: voice.language, quality: voice.quality },
      preview_url: null,
      available_for_tiers: [],
      settings: null,
      high_quality_base_model_ids: [],
      verified_languages: [{ language: voice.language.split(/[-_]/)[0], model_id: 'chorus', locale: voice.language }]
    })),
    has_more: false,
    total_count: voices.length
  }
}
