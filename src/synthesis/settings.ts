// The settings one request gets from its voice: overrides checked against
// the engine's limits, the rest from the voice's defaults. Shared by the
// HTTP service and `chorus say`, so both accept and refuse the same values
// with the same messages (wire field names).

import { LIMITS, resolveSynthesisConfig, type SynthesisConfig, type VoiceConfig } from '../engine/index.js'
import { invalid, numberInRange } from '../validate.js'
import type { TtsRequest } from './tts-request.js'

export type SettingsRequest = Pick<TtsRequest, 'speaker' | 'lengthScale' | 'noiseScale' | 'noiseW' | 'sentenceSilence'>

/** `'builtin'`: the built-in voice, with espeak's own defaults and one speaker. */
export function requestSettings (request: SettingsRequest, voice: VoiceConfig | 'builtin'): SynthesisConfig {
  if (voice !== 'builtin') {
    return resolveSynthesisConfig({
      lengthScale: request.lengthScale,
      noiseScale: request.noiseScale,
      noiseW: request.noiseW,
      sentenceSilence: request.sentenceSilence,
      speaker: request.speaker
    }, voice)
  }
  const pick = (value: number | undefined, fallback: number, name: string, range: { min: number, max: number }) =>
    value === undefined ? fallback : numberInRange(value, name, range.min, range.max)
  if (request.speaker !== undefined && request.speaker !== 0) {
    throw invalid('0 (the built-in voice has one speaker)', 'speaker', request.speaker)
  }
  return {
    lengthScale: pick(request.lengthScale, 1, 'length_scale', LIMITS.lengthScale),
    noiseScale: pick(request.noiseScale, 0, 'noise_scale', LIMITS.noiseScale),
    noiseW: pick(request.noiseW, 0, 'noise_w', LIMITS.noiseW),
    sentenceSilence: pick(request.sentenceSilence, 0, 'sentence_silence', LIMITS.sentenceSilence),
    speakerId: 0
  }
}
