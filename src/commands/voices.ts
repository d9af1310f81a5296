// chorus voices install-bundled: copies every bundled voice that is missing
// from TTS_VOICE_DIR (the container entrypoint runs this before the service).

import { loadServiceConfig } from '../service/config.js'
import type { Env } from '../service/env.js'
import { createLogger } from '../service/logger.js'
import { installBundledVoices } from '../voices/bundled.js'

export async function voices (argv: string[], env: Env): Promise<number> {
  if (argv.length !== 1 || argv[0] !== 'install-bundled') {
    console.error('usage: chorus voices install-bundled')
    return 2
  }
  const config = loadServiceConfig(env)
  await installBundledVoices(config.bundledVoiceDir, config.voiceDir, createLogger(config.logLevel))
  return 0
}
