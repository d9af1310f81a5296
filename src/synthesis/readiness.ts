// GET /ready's rule: the service is ready when preloading is done and every
// voice it must answer without loading first is loaded: the default voice
// (unless it is the built-in one, which needs nothing) and the voices
// TTS_PRELOAD_VOICES loaded (those that did not fit the memory budget are
// not required). GET /health stays the liveness check: up, whatever the voices.
//
// A required voice can be unloaded later (its files changed, or the least
// recently used rule under many voices). Answering "not ready" for ever
// would take a working replica out of rotation, so a check that finds a
// required voice installed but not loaded starts loading it: a later check
// finds it ready again.

import type { PoolManager } from '../pool/pool-manager.js'
import type { Preloader } from '../pool/preload.js'
import type { Logger } from '../shared/logger.js'
import { BUILTIN_VOICE } from '../voices/builtin.js'
import type { VoiceRegistry } from '../voices/registry.js'
import type { SpeechService } from './speech-service.js'

/** What readiness is decided from. */
export interface ReadinessSources {
  /** TTS_PRELOAD_VOICES */
  config: { preloadVoices: string[] | '*' }
  /** Whose default voice is required. */
  speech: Pick<SpeechService, 'defaultVoice'>
  preload: Preloader
  pools: PoolManager
  registry: VoiceRegistry
  log: Logger
}

export interface MissingVoice {
  voice: string
  reason: 'not installed' | 'loading' | 'preloading'
}

function requiredVoices (deps: ReadinessSources): string[] {
  const fallback = deps.speech.defaultVoice().effective
  const status = deps.preload.status
  // Named voices are required (a missing one keeps the replica out of
  // rotation, where an operator sees it), except those that did not fit the
  // memory budget; `*` requires what it loaded.
  const listed = deps.config.preloadVoices === '*' ? status.loaded : deps.config.preloadVoices.filter(name => !status.skipped.includes(name))
  return [...new Set([fallback, ...listed])].filter(name => name !== BUILTIN_VOICE)
}

/** The voices a ready service answers with: the required ones, and the
 * built-in voice when it is the default (it needs no loading, but it serves). */
export function servingVoices (deps: ReadinessSources): string[] {
  const fallback = deps.speech.defaultVoice().effective
  return [...new Set([...(fallback === BUILTIN_VOICE ? [fallback] : []), ...requiredVoices(deps)])]
}

/** What GET /health tells of the voices' pools: loaded, preloading, memory. */
export function poolHealth (deps: Pick<ReadinessSources, 'pools' | 'preload'>): { loaded: string[], preload: Preloader['status'], memory: { budgetBytes: number, usedBytes: number } } {
  return {
    loaded: [...deps.pools.loaded().keys()].sort(),
    preload: deps.preload.status,
    memory: { budgetBytes: deps.pools.budgetBytes, usedBytes: deps.pools.usedBytes }
  }
}

/** The required voices that are not loaded; empty when ready. */
export function checkReadiness (deps: ReadinessSources): MissingVoice[] {
  const loaded = deps.pools.loaded()
  const missing: MissingVoice[] = []
  const preload = deps.preload.status
  const tried = new Set([...preload.loaded, ...preload.failed, ...preload.skipped])
  if (preload.state === 'loading' && deps.config.preloadVoices === '*') {
    for (const name of deps.registry.names()) if (!tried.has(name)) missing.push({ voice: name, reason: 'preloading' })
  }
  for (const name of requiredVoices(deps)) {
    if (loaded.has(name)) continue
    const voice = deps.registry.get(name)
    if (voice === undefined) {
      missing.push({ voice: name, reason: 'not installed' })
      continue
    }
    if (preload.state === 'loading' && !tried.has(name) && name !== deps.speech.defaultVoice().effective) {
      // The preloader will get to it; loading it here too would race it.
      missing.push({ voice: name, reason: 'preloading' })
      continue
    }
    if (deps.pools.state(name) === 'unloaded') {
      deps.pools.acquire(voice).then(lease => lease.release(), (error: unknown) => {
        deps.log.error({ err: error, voice: name }, 'a required voice failed to load')
      })
    }
    missing.push({ voice: name, reason: 'loading' })
  }
  return missing
}
