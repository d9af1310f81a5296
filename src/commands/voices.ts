// chorus voices [list]: the voices the folder holds, what each is, and those
// left out with the reason; the built-in voice is always there.
// chorus voices install-bundled: copies every bundled voice that is missing
// from TTS_VOICE_DIR (the container entrypoint runs this before the service).
// Both print plain sentences for a person, not the service's JSON log.

import { parseArgs } from 'node:util'
import { InvalidArgumentError } from '../errors.js'
import { DEFAULT_VOICE_DIR, loadServiceConfig, type ServiceConfig } from '../service/config.js'
import type { Env } from '../shared/config-values.js'
import { createLogger } from '../shared/logger.js'
import { expectedMessage } from '../validate.js'
import { initRuntime } from '../engine/index.js'
import { BUILTIN_VOICE } from '../voices/builtin.js'
import { installBundledVoices, type InstallLog } from '../voices/bundled.js'
import { VoiceRegistry } from '../voices/registry.js'

export const VOICES_USAGE = `usage: chorus voices [list | install-bundled]

  list              (the default) the voices in the voice folder (TTS_VOICE_DIR,
                    default ./${DEFAULT_VOICE_DIR}), those left out and why, and
                    the built-in voice ${BUILTIN_VOICE}
  install-bundled   copy the bundled voices (CHORUS_BUNDLED_VOICE_DIR) that are
                    missing from the voice folder; voices already there are kept
  -h, --help        show this help

To download more voices, see docs/voices.md.`

const SUBCOMMANDS = ['list', 'install-bundled']

/** Install messages as sentences: results on stdout, warnings on stderr. */
const SENTENCES: InstallLog = {
  info: (_fields, message) => console.log(message),
  warn: (_fields, message) => console.error(`warning: ${message}`)
}

async function list ({ voiceDir, rescanMs, ortLibrary, espeakData }: ServiceConfig): Promise<number> {
  // Its own problems (an unreadable folder) are shown below, not logged as JSON.
  // With espeak-ng up, the scan also finds configs naming a voice it does not have.
  initRuntime({ ortLibrary, espeakData })
  const registry = new VoiceRegistry(voiceDir, createLogger('chorus-voices', 'silent'), rescanMs)
  await registry.rescan()
  const rows = registry.all().map(voice => {
    const speakers = voice.config.numSpeakers > 1 ? `, ${voice.config.numSpeakers} speakers` : ''
    const megabytes = (voice.modelBytes / 1e6).toFixed(1)
    return `  ${voice.name}  (${voice.config.languageCode ?? 'unknown language'}${speakers}, ${megabytes} MB)`
  })
  console.log(`Voices in ${voiceDir}:`)
  console.log(rows.length > 0 ? rows.join('\n') : '  none (see docs/voices.md to fetch some)')
  console.log(`Built in: ${BUILTIN_VOICE} (espeak-ng, needs no files)`)
  const leftOut = [...registry.leftOut()]
  if (leftOut.length > 0) {
    console.log('Left out:')
    for (const [name, reason] of leftOut) console.log(`  ${name}: ${reason}`)
  }
  return 0
}

export async function voices (argv: string[], env: Env): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } })
  if (values.help === true) {
    console.log(VOICES_USAGE)
    return 0
  }
  const subcommand = positionals[0] ?? 'list'
  if (positionals.length > 1 || !SUBCOMMANDS.includes(subcommand)) {
    throw new InvalidArgumentError(expectedMessage(`one of the subcommands ${SUBCOMMANDS.join(', ')}`, 'chorus voices', positionals.join(' ')))
  }
  const config = loadServiceConfig(env)
  if (subcommand === 'list') return await list(config)
  const result = await installBundledVoices(config.bundledVoiceDir, config.voiceDir, SENTENCES)
  if (result.copied.length === 0) console.log(`No voice copied: ${config.voiceDir} already has every bundled voice, or there are none.`)
  return 0
}
