// Which installed voice and speaker a /v1/audio/speech request speaks with,
// from its `model` and `voice`. An OpenAI voice name whose mapped voice is
// not installed speaks with the service's default voice instead: OpenAI
// clients hard-code those names, and a service that has only its bundled
// voices removed should still answer them. The substitution is not silent:
// the response's X-Chorus-Voice header names the voice used, it is logged,
// and GET /v1/audio/voices shows it.

import { invalid } from '../validate.js'
import { voiceNotFound } from '../synthesis/errors.js'
import type { VoiceQueries } from '../synthesis/speech-service.js'
import { OPENAI_MODELS, type SpeechRequest } from './speech-request.js'
import type { VoiceTarget } from './voice-map.js'

export interface SpeechVoice extends VoiceTarget {
  /** Set when the mapped voice is missing and the default voice speaks instead. */
  substitutedFor?: string
}

/** The voice an OpenAI voice name maps to now (the default voice if the
 * mapped one is not installed). */
export function mappedVoice (voices: VoiceQueries, target: VoiceTarget): SpeechVoice {
  if (voices.voiceNames().includes(target.voice)) return target
  return { voice: voices.defaultVoice().effective, substitutedFor: target.voice }
}

export function resolveSpeechVoice (voices: VoiceQueries, voiceMap: Readonly<Record<string, VoiceTarget>>, request: SpeechRequest): SpeechVoice {
  const installed = voices.voiceNames()
  const mapped = voiceMap[request.voice.toLowerCase()]
  if (!(OPENAI_MODELS as readonly string[]).includes(request.model)) {
    if (!installed.includes(request.model)) {
      throw invalid(`one of ${OPENAI_MODELS.join(', ')} or an installed voice name`, 'model', request.model)
    }
    // The model is the voice; `voice` picks a speaker of it, or is one of the
    // mapping's names (which OpenAI clients always send) for its first speaker.
    if (mapped !== undefined) return { voice: request.model }
    const speaker = voices.speakerOf(request.model, request.voice)
    if (speaker === undefined) throw invalid(`an OpenAI voice name or a speaker of ${request.model}`, 'voice', request.voice)
    return { voice: request.model, speaker }
  }
  if (mapped !== undefined) return mappedVoice(voices, mapped)
  if (installed.includes(request.voice)) return { voice: request.voice }
  throw voiceNotFound(request.voice, [...Object.keys(voiceMap).sort(), ...installed])
}
