// The service's parts, as the status routes see them (the speech routes
// take the speech service and their few settings). The service (the composition
// root) builds them; http depends on no service module, only on these shapes.

import type { EncoderPool } from '../audio/encoder-pool.js'
import type { ServiceMetrics } from './metrics.js'
import type { ApiAccess } from '../access/access.js'
import type { VoiceTarget } from '../openai/voice-map.js'
import type { PhraseCache } from '../synthesis/phrase-cache.js'
import type { ReadinessSources } from '../synthesis/readiness.js'
import type { SpeechService } from '../synthesis/speech-service.js'
import type { VoiceSources } from '../synthesis/voice-info.js'
import type { VoiceInstaller } from '../voices/installer.js'
import type { LexiconStore } from '../lexicons/store.js'

/** The settings the routes read; the service's config has them all. */
export interface HttpSettings {
  maxTextLength: number
  /** OpenAI voice name → voice (and speaker). */
  openaiVoices: Record<string, VoiceTarget>
  /** TTS_PRELOAD_VOICES, which GET /ready waits for. */
  preloadVoices: string[] | '*'
  /** TTS_ALLOWED_ORIGINS: browser origins besides the service's own. */
  allowedOrigins: string[]
  /** TTS_METRICS_PUBLIC: /metrics without a key when keys are set. */
  metricsPublic: boolean
  /** TTS_ADMIN_TOKEN; unset, the voice admin API answers 403. */
  adminToken: string | undefined
}

/** The voices' pools, the runtime and the preloader come as the synthesis
 * layer's sources (readiness, voice descriptions): http reads them only
 * through it. */
export interface ServiceDeps extends ReadinessSources, VoiceSources {
  config: HttpSettings
  /** Every route's speech, from checked request to bytes. */
  speech: SpeechService
  cache: PhraseCache
  metrics: ServiceMetrics
  /** Admission: API keys, quotas, tenants (src/access/); anonymous and unlimited without a keys file. */
  access: ApiAccess
  encoders: EncoderPool
  /** Installs and removes voices for the admin API. */
  installer: VoiceInstaller
  /** The installed lexicons, for the admin API (the synthesizer reads them too). */
  lexicons: LexiconStore
  /** True once SIGTERM started the drain: GET /ready answers 503. */
  draining?: () => boolean
}
