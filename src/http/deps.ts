// The service's parts, as the routes see them.

import type { Logger } from '../shared/logger.js'
import type { EncoderPool } from '../audio/encoder-pool.js'
import type { Runtime } from '../engine/index.js'
import type { PoolManager } from '../pool/pool-manager.js'
import type { Preloader } from '../pool/preload.js'
import type { ServiceConfig } from '../service/config.js'
import type { ServiceMetrics } from '../service/metrics.js'
import type { PhraseCache } from '../synthesis/phrase-cache.js'
import type { Synthesizer } from '../synthesis/synthesizer.js'
import type { VoiceRegistry } from '../voices/registry.js'

export interface ServiceDeps {
  config: ServiceConfig
  log: Logger
  runtime: Runtime
  registry: VoiceRegistry
  pools: PoolManager
  synthesizer: Synthesizer
  cache: PhraseCache
  metrics: ServiceMetrics
  preload: Preloader
  encoders: EncoderPool
}
