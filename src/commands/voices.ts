// chorus voices [list]: the voices the folder holds, what each is, and those
// left out with the reason; the built-in voice is always there.
// chorus voices install-bundled: copies every bundled voice that is missing
// from TTS_VOICE_DIR (the container entrypoint runs this before the service).
// chorus voices install|remove NAME...: the admin API's installer
// (voices/installer.ts) from the command line, with the same checks.
// All print plain sentences for a person, not the service's JSON log.

import { parseArgs } from 'node:util'
import { InvalidArgumentError, isChorusError } from '../errors.js'
import { DEFAULT_VOICE_DIR, loadServiceConfig, type ServiceConfig } from '../service/config.js'
import type { Env } from '../shared/config-values.js'
import { createLogger } from '../shared/logger.js'
import { expectedMessage } from '../validate.js'
import { initRuntime } from '../engine/index.js'
import { BUILTIN_VOICE } from '../voices/builtin.js'
import { installBundledVoices, type InstallLog } from '../voices/bundled.js'
import { VoiceInstaller } from '../voices/installer.js'
import { VoiceRegistry } from '../voices/registry.js'
import { assertVoiceName } from '../voices/voice-name.js'

const VOICES_USAGE = `usage: chorus voices [list | install-bundled | install NAME... | remove NAME...]

  list              (the default) the voices in the voice folder (TTS_VOICE_DIR,
                    default ./${DEFAULT_VOICE_DIR}), those left out and why, and
                    the built-in voice ${BUILTIN_VOICE}
  install-bundled   copy the bundled voices (CHORUS_BUNDLED_VOICE_DIR) that are
                    missing from the voice folder; voices already there are kept
  install NAME...   download catalogue voices (TTS_VOICE_CATALOG) from
                    TTS_VOICE_SOURCE into the voice folder, size and md5 checked
  remove NAME...    remove installed voices from the voice folder
  -h, --help        show this help

A running service sees the change within TTS_VOICE_RESCAN_SECONDS; its admin
API (POST/DELETE /admin/voices/NAME) does the same at once. See docs/voices.md.`

const SUBCOMMANDS = ['list', 'install-bundled', 'install', 'remove']
/** Subcommands that take voice names; the others take none. */
const WITH_NAMES = new Set(['install', 'remove'])

/** Install messages as sentences: results on stdout, warnings on stderr. */
const SENTENCES: InstallLog = {
  info: (_fields, message) => console.log(message),
  warn: (_fields, message) => console.error(`warning: ${message}`)
}

/** Installs or removes each voice in turn, stopping at the first failure
 * (exit 1, the reason printed): what was done before it stays done. */
async function change (action: 'install' | 'remove', names: string[], config: ServiceConfig): Promise<number> {
  const installer = new VoiceInstaller({ voiceDir: config.voiceDir, catalogPath: config.voiceCatalog, source: config.voiceSource, log: SENTENCES })
  for (const name of names) {
    try {
      // Each prints its own sentence through SENTENCES.
      if (action === 'remove') await installer.remove(name)
      else await installer.install(name)
    } catch (error) {
      if (!isChorusError(error) || error instanceof InvalidArgumentError) throw error
      console.error(`chorus voices ${action}: ${error.message}`)
      return 1
    }
  }
  return 0
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
  if (!SUBCOMMANDS.includes(subcommand) || (positionals.length > 1 && !WITH_NAMES.has(subcommand))) {
    throw new InvalidArgumentError(expectedMessage(`one of the subcommands ${SUBCOMMANDS.join(', ')}`, 'chorus voices', positionals.join(' ')))
  }
  const names = positionals.slice(1)
  if (WITH_NAMES.has(subcommand) && names.length === 0) {
    throw new InvalidArgumentError(expectedMessage('at least one voice name like en_US-lessac-medium', `chorus voices ${subcommand}`, ''))
  }
  names.forEach((name, index) => assertVoiceName(name, `chorus voices ${subcommand} (name ${index + 1})`))
  const config = loadServiceConfig(env)
  if (subcommand === 'list') return await list(config)
  if (WITH_NAMES.has(subcommand)) return await change(subcommand as 'install' | 'remove', names, config)
  const result = await installBundledVoices(config.bundledVoiceDir, config.voiceDir, SENTENCES)
  if (result.copied.length === 0) console.log(`No voice copied: ${config.voiceDir} already has every bundled voice, or there are none.`)
  return 0
}
