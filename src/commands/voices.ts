// chorus voices install-bundled: copies every bundled voice that is missing
// from TTS_VOICE_DIR (the container entrypoint runs this before the service).

import { parseArgs } from 'node:util'
import { InvalidArgumentError } from '../errors.js'
import { DEFAULT_VOICE_DIR, loadServiceConfig } from '../service/config.js'
import type { Env } from '../shared/config-values.js'
import { createLogger } from '../shared/logger.js'
import { expectedMessage } from '../validate.js'
import { installBundledVoices } from '../voices/bundled.js'

export const VOICES_USAGE = `usage: chorus voices install-bundled

  install-bundled   copy the bundled voices (CHORUS_BUNDLED_VOICE_DIR) that are
                    missing from the voice folder (TTS_VOICE_DIR, default
                    ./${DEFAULT_VOICE_DIR}); voices already there are kept
  -h, --help        show this help

To download more voices, see README, Fetching voices.`

export async function voices (argv: string[], env: Env): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } })
  if (values.help === true) {
    console.log(VOICES_USAGE)
    return 0
  }
  if (positionals.length !== 1 || positionals[0] !== 'install-bundled') {
    throw new InvalidArgumentError(expectedMessage('the subcommand install-bundled', 'chorus voices', positionals.join(' ')))
  }
  const config = loadServiceConfig(env)
  await installBundledVoices(config.bundledVoiceDir, config.voiceDir, createLogger('chorus-voices', config.logLevel, process.stdout))
  return 0
}
