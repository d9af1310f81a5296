// One object per voice for GET /voices.

import type { ServiceDeps } from '../http/deps.js'
import type { VoiceState } from '../pool/pool-manager.js'
import { BUILTIN_VOICE } from '../voices/builtin.js'

export interface VoiceInfo {
  name: string
  language: string
  quality: string
  sample_rate: number
  num_speakers: number
  speakers: string[]
  builtin: boolean
  loaded: boolean
  /** unloaded, loading, loaded, or retiring (out of service, finishing its work). */
  state: VoiceState
  /** Model file size; 0 for the built-in voice. */
  model_bytes: number
  /** What the voice's pool holds (loaded or retiring); null otherwise and for the built-in voice. */
  memory_bytes: number | null
}

/** `en_US-lessac-medium` → language `en_US`, quality `medium`. */
function nameParts (name: string): { language: string, quality: string } {
  const parts = name.split('-')
  return { language: parts[0], quality: parts.length >= 3 ? parts[parts.length - 1] : '' }
}

/** A loading voice's figure is only an estimate: it is not shown. */
function stateAndMemory (state: VoiceState, bytes: number | undefined): Pick<VoiceInfo, 'state' | 'memory_bytes'> {
  return { state, memory_bytes: state === 'loaded' || state === 'retiring' ? bytes ?? null : null }
}

export function describeVoices (deps: Pick<ServiceDeps, 'registry' | 'pools' | 'runtime'>): VoiceInfo[] {
  const loaded = deps.pools.loaded()
  const memory = deps.pools.memoryByVoice()
  const installed: VoiceInfo[] = deps.registry.all().map(voice => {
    const parts = nameParts(voice.name)
    const speakers = Object.entries(voice.config.speakerIdMap).sort((a, b) => a[1] - b[1]).map(([name]) => name)
    return {
      name: voice.name,
      language: voice.config.languageCode ?? parts.language,
      quality: voice.config.quality ?? parts.quality,
      sample_rate: voice.config.sampleRate,
      num_speakers: voice.config.numSpeakers,
      speakers,
      builtin: false,
      loaded: loaded.has(voice.name),
      ...stateAndMemory(deps.pools.state(voice.name), memory.get(voice.name)),
      model_bytes: voice.modelBytes
    }
  })
  const builtin: VoiceInfo = {
    name: BUILTIN_VOICE,
    language: 'en_US',
    quality: 'low',
    sample_rate: deps.runtime.espeakSampleRate,
    num_speakers: 1,
    speakers: [],
    builtin: true,
    loaded: true,
    state: 'loaded',
    model_bytes: 0,
    memory_bytes: null
  }
  return [...installed, builtin].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
}
