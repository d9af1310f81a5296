// Synthesis settings: checked once here, before anything reaches the addon.

import { invalid, isInteger, numberInRange } from '../validate.js'
import type { VoiceConfig } from './voice-config.js'

export interface SynthesisConfig {
  noiseScale: number
  lengthScale: number
  noiseW: number
  speakerId: number
  /** Seconds of silence between sentences. */
  sentenceSilence: number
}

/** Accepted ranges. Wide enough for every published voice's defaults and
 * for deliberate effects; outside them output is noise or absurdly long. */
export const LIMITS = {
  noiseScale: { min: 0, max: 2 },
  lengthScale: { min: 0.1, max: 5 },
  noiseW: { min: 0, max: 2 },
  sentenceSilence: { min: 0, max: 10 }
} as const

export type SynthesisOverrides = Partial<Omit<SynthesisConfig, 'speakerId'>> & { speaker?: number | string }

/** Resolves a speaker id or name against the voice's speakers. */
function resolveSpeaker (speaker: unknown, config: VoiceConfig, field = 'speaker'): number {
  if (speaker === undefined) return 0
  if (typeof speaker === 'string') {
    const id = config.speakerIdMap[speaker]
    if (id === undefined) {
      const names = Object.keys(config.speakerIdMap)
      const what = names.length > 0 ? `one of this voice's speaker names (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}) or an id` : 'a speaker id (this voice has no named speakers)'
      throw invalid(what, field, speaker)
    }
    return id
  }
  if (!isInteger(speaker) || speaker < 0 || speaker >= config.numSpeakers) {
    throw invalid(`an integer from 0 to ${config.numSpeakers - 1} or a speaker name`, field, speaker)
  }
  return speaker
}

/** Fills in the voice's defaults and checks every value's range. Field
 * names in errors are the wire names (snake_case). */
export function resolveSynthesisConfig (overrides: SynthesisOverrides, config: VoiceConfig): SynthesisConfig {
  const pick = (value: number | undefined, fallback: number, name: string, range: { min: number, max: number }) =>
    value === undefined ? fallback : numberInRange(value, name, range.min, range.max)
  return {
    noiseScale: pick(overrides.noiseScale, config.inference.noiseScale, 'noise_scale', LIMITS.noiseScale),
    lengthScale: pick(overrides.lengthScale, config.inference.lengthScale, 'length_scale', LIMITS.lengthScale),
    noiseW: pick(overrides.noiseW, config.inference.noiseW, 'noise_w', LIMITS.noiseW),
    sentenceSilence: pick(overrides.sentenceSilence, 0, 'sentence_silence', LIMITS.sentenceSilence),
    speakerId: resolveSpeaker(overrides.speaker, config)
  }
}
