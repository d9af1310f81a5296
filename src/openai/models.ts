// GET /v1/models and GET /v1/audio/voices bodies: what an OpenAI front end
// needs to fill its model and voice pickers.

import type { VoiceQueries } from '../synthesis/speech-service.js'
import type { VoiceInfo } from '../synthesis/voice-info.js'
import { OPENAI_MODELS } from './speech-request.js'
import type { VoiceTarget } from './voice-map.js'
import { mappedVoice } from './voice-resolver.js'

/** Seconds since the epoch at which the service started: models have no
 * other creation date here. */
const STARTED = Math.floor(Date.now() / 1000)

export function modelList (voices: VoiceQueries): unknown {
  const ids = [...OPENAI_MODELS, ...voices.voiceNames()]
  return { object: 'list', data: ids.map(id => ({ id, object: 'model', created: STARTED, owned_by: 'chorus' })) }
}

export function voiceList (voices: VoiceQueries, voiceMap: Readonly<Record<string, VoiceTarget>>, details: VoiceInfo[]): unknown {
  const byName = new Map(details.map(d => [d.name, d]))
  const aliases = Object.entries(voiceMap).sort(([a], [b]) => a < b ? -1 : 1).map(([id, target]) => {
    const now = mappedVoice(voices, target)
    return {
      id,
      name: id,
      type: 'openai',
      language: byName.get(now.voice)?.language ?? null,
      speakers: [],
      voice: now.voice,
      speaker: now.speaker ?? null,
      ...(now.substitutedFor !== undefined ? { mapped_voice_missing: now.substitutedFor } : {})
    }
  })
  const piper = details.map(d => ({ id: d.name, name: d.name, type: d.builtin ? 'builtin' : 'piper', language: d.language, speakers: d.speakers, voice: d.name, speaker: null }))
  return { voices: [...aliases, ...piper] }
}
