// One object per voice for GET /voices and /v1/audio/voices: a view of the
// voices the synthesis layer can speak with, installed and built in.

import type { ChunkingSettings, Runtime } from '../engine/index.js'
import type { PoolManager, VoiceState } from '../pool/pool-manager.js'
import { BUILTIN_VOICE } from '../voices/builtin.js'
import type { VoiceRegistry } from '../voices/registry.js'

/** What a voice's description is read from. */
export interface VoiceSources {
  registry: VoiceRegistry
  pools: PoolManager
  runtime: Runtime
}

export interface VoiceInfo {
  name: string
  language: string
  quality: string
  sample_rate: number
  num_speakers: number
  speakers: string[]
  builtin: boolean
  loaded: boolean
  /** unloaded, loading, loaded, retiring (out of service, finishing its work), broken (its files failed to load), or builtin (needs no pool: always available). */
  state: VoiceState | 'broken' | 'builtin'
  /** Model file size; 0 for the built-in voice. */
  model_bytes: number
  /** What the voice's sessions hold, measured by the addon (weights once per process); null unless loaded or retiring. */
  memory_bytes: number | null
  /** How the voice runs: `split` (encoder + chunked decoder) or `whole`; null until loaded. */
  mode: 'split' | 'whole' | null
  /** Split voices: what runs in chunks, `flow` (the flow and the decoder) or `decoder`; null otherwise. */
  split_cut: ChunkingSettings['cut'] | null
  /** Split voices: whether the encoder runs on a session shared with the voices of the same architecture; null until loaded. */
  encoder_shared: boolean | null
  /** Set when the voice's files failed to load: why. Retried when they change. */
  broken?: string
}

/** `en_US-lessac-medium` → language `en_US`, quality `medium`. */
function nameParts (name: string): { language: string, quality: string } {
  const parts = name.split('-')
  return { language: parts[0], quality: parts.length >= 3 ? parts[parts.length - 1] : '' }
}

/** A loading voice's figure is only an estimate: it is not shown. */
function stateAndMemory (state: VoiceState | 'broken', bytes: number | undefined): Pick<VoiceInfo, 'state' | 'memory_bytes'> {
  return { state, memory_bytes: state === 'loaded' || state === 'retiring' ? bytes ?? null : null }
}

export function describeVoices (deps: VoiceSources): VoiceInfo[] {
  const loaded = deps.pools.loaded()
  const broken = deps.pools.broken()
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
      ...stateAndMemory(broken.get(voice.name)?.version === voice.version ? 'broken' : deps.pools.state(voice.name), memory.get(voice.name)),
      model_bytes: voice.modelBytes,
      mode: loaded.get(voice.name)?.mode ?? null,
      split_cut: loaded.get(voice.name)?.cut ?? null,
      encoder_shared: loaded.get(voice.name)?.encoderShared ?? null,
      ...(broken.get(voice.name)?.version === voice.version ? { broken: broken.get(voice.name)?.reason } : {})
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
    // "loaded" means a worker pool holds the voice, as in /health and
    // chorus_loaded_voices; the built-in voice needs none and is always available.
    loaded: false,
    state: 'builtin',
    model_bytes: 0,
    memory_bytes: null,
    mode: null,
    split_cut: null,
    encoder_shared: null
  }
  return [...installed, builtin].sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
}

/** Every voice that cannot serve now and why: files left out by the folder
 * scan, and models that failed to load. Each is retried when its files change. */
export function describeBrokenVoices (deps: Pick<VoiceSources, 'registry' | 'pools'>): Array<{ name: string, reason: string }> {
  const broken = new Map(deps.registry.leftOut())
  for (const voice of deps.registry.all()) {
    const failure = deps.pools.broken().get(voice.name)
    if (failure?.version === voice.version) broken.set(voice.name, failure.reason)
  }
  return [...broken].map(([name, reason]) => ({ name, reason })).sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
}
