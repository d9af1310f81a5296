// Which installed voice and speaker a /v1/audio/speech request speaks with,
// from its `model` and `voice`. An OpenAI voice name whose mapped voice is
// not installed speaks with the service's default voice instead: OpenAI
// clients hard-code those names, and a service that has only its bundled
// voices removed should still answer them. The substitution is not silent:
// the response's X-Chorus-Voice header names the voice used, it is logged,
// and GET /v1/audio/voices shows it.

import { invalid } from '../validate.js'
import { voiceNotFound } from '../synthesis/errors.js'
import type { Synthesizer } from '../synthesis/synthesizer.js'
import { OPENAI_MODELS, type SpeechRequest } from './speech-request.js'
import type { VoiceTarget } from './voice-map.js'

export interface SpeechVoice extends VoiceTarget {
  /** Set when the mapped voice is missing and the default voice speaks instead. */
  substitutedFor?: string
}

function speakerOf (synthesizer: Synthesizer, voice: string, requested: string): number | string | undefined {
  const resolved = synthesizer.resolveVoice(voice)
  if (resolved.kind !== 'piper') return undefined
  const config = resolved.voice.config
  if (config.speakerIdMap[requested] !== undefined) return requested
  if (/^\d+$/.test(requested) && Number(requested) < config.numSpeakers) return Number(requested)
  return undefined
}

/** The voice an OpenAI voice name maps to now (the default voice if the
 * mapped one is not installed). */
export function mappedVoice (synthesizer: Synthesizer, target: VoiceTarget): SpeechVoice {
  if (synthesizer.voiceNames().includes(target.voice)) return target
  return { voice: synthesizer.defaultVoice().effective, substitutedFor: target.voice }
}

export function resolveSpeechVoice (synthesizer: Synthesizer, voiceMap: Readonly<Record<string, VoiceTarget>>, request: SpeechRequest): SpeechVoice {
  const installed = synthesizer.voiceNames()
  const mapped = voiceMap[request.voice.toLowerCase()]
  if (!(OPENAI_MODELS as readonly string[]).includes(request.model)) {
    if (!installed.includes(request.model)) {
      throw invalid(`one of ${OPENAI_MODELS.join(', ')} or an installed voice name`, 'model', request.model)
    }
    // The model is the voice; `voice` picks a speaker of it, or is one of the
    // mapping's names (which OpenAI clients always send) for its first speaker.
    if (mapped !== undefined) return { voice: request.model }
    const speaker = speakerOf(synthesizer, request.model, request.voice)
    if (speaker === undefined) throw invalid(`an OpenAI voice name or a speaker of ${request.model}`, 'voice', request.voice)
    return { voice: request.model, speaker }
  }
  if (mapped !== undefined) return mappedVoice(synthesizer, mapped)
  if (installed.includes(request.voice)) return { voice: request.voice }
  throw voiceNotFound(request.voice, [...Object.keys(voiceMap).sort(), ...installed])
}
