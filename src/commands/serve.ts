// chorus serve: the TTS service until SIGTERM or SIGINT.

import { existsSync } from 'node:fs'
import { loadServiceConfig } from '../service/config.js'
import type { Env } from '../service/env.js'
import { createLogger } from '../service/logger.js'
import { startService } from '../service/server.js'
import { installBundledVoices } from '../voices/bundled.js'

export async function serve (env: Env): Promise<number | undefined> {
  const config = loadServiceConfig(env)
  const log = createLogger(config.logLevel)
  if (config.installBundled && existsSync(config.bundledVoiceDir)) {
    await installBundledVoices(config.bundledVoiceDir, config.voiceDir, log)
  }
  const service = await startService(config, log)
  await new Promise<void>(resolve => {
    const stop = (signal: string) => {
      log.info({ signal }, 'signal received')
      process.off('SIGTERM', stop)
      process.off('SIGINT', stop)
      resolve()
    }
    process.on('SIGTERM', stop)
    process.on('SIGINT', stop)
  })
  await service.close()
  return 0
}
