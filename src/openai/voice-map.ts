// OpenAI voice names → an installed Piper voice (and speaker). The defaults
// point at the two voices Chorus bundles; TTS_OPENAI_VOICES names a JSON file
// whose entries replace or add to them:
//   { "alloy": "en_GB-alba-medium", "echo": { "voice": "en_GB-vctk-medium", "speaker": "p226" } }
// Read and checked once at start-up: a bad file stops the service (exit 2).

import { readFileSync } from 'node:fs'
import { ConfigError } from '../errors.js'
import { describeValue, isInteger, isPlainObject } from '../validate.js'
import { isValidVoiceName } from '../voices/voice-name.js'

export interface VoiceTarget {
  voice: string
  speaker?: number | string
}

export const OPENAI_VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'onyx', 'nova', 'sage', 'shimmer', 'verse', 'marin', 'cedar'] as const

const LESSAC = 'en_US-lessac-medium'
const RYAN = 'en_US-ryan-medium'

/** OpenAI's voices as commonly heard (lighter / deeper) onto the bundled
 * female (lessac) and male (ryan) US English voices. */
export const DEFAULT_VOICE_MAP: Readonly<Record<string, VoiceTarget>> = {
  alloy: { voice: LESSAC },
  ash: { voice: RYAN },
  ballad: { voice: RYAN },
  coral: { voice: LESSAC },
  echo: { voice: RYAN },
  fable: { voice: RYAN },
  onyx: { voice: RYAN },
  nova: { voice: LESSAC },
  sage: { voice: LESSAC },
  shimmer: { voice: LESSAC },
  verse: { voice: RYAN },
  marin: { voice: LESSAC },
  cedar: { voice: RYAN }
}

const ALIAS = /^[a-z0-9][a-z0-9_.-]{0,63}$/

function fail (file: string, what: string, name: string, value: unknown): never {
  throw new ConfigError(`Expected ${what} for ${name} in TTS_OPENAI_VOICES (${file}) but received ${describeValue(value)}`)
}

function entry (file: string, alias: string, value: unknown): VoiceTarget {
  if (typeof value === 'string') {
    if (!isValidVoiceName(value)) fail(file, 'a voice name like en_US-lessac-medium', `"${alias}"`, value)
    return { voice: value }
  }
  if (!isPlainObject(value)) fail(file, 'a voice name or {"voice": …, "speaker": …}', `"${alias}"`, value)
  if (typeof value.voice !== 'string' || !isValidVoiceName(value.voice)) fail(file, 'a voice name like en_US-lessac-medium', `"${alias}".voice`, value.voice)
  const speaker = value.speaker
  if (speaker !== undefined && !(isInteger(speaker) && speaker >= 0) && !(typeof speaker === 'string' && speaker !== '')) {
    fail(file, 'a speaker id (integer from 0) or name', `"${alias}".speaker`, speaker)
  }
  return { voice: value.voice, ...(speaker !== undefined ? { speaker: speaker as number | string } : {}) }
}

/** The defaults with the file's entries on top. Names are lower case, as
 * OpenAI's are; a file may add new names (aliases) too. */
export function loadVoiceMap (file: string | undefined): Record<string, VoiceTarget> {
  const map: Record<string, VoiceTarget> = { ...DEFAULT_VOICE_MAP }
  if (file === undefined) return map
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new ConfigError(`TTS_OPENAI_VOICES: cannot read ${file} as JSON: ${(error as Error).message}`)
  }
  if (!isPlainObject(parsed)) fail(file, 'a JSON object of voice names', 'the file', parsed)
  for (const [alias, value] of Object.entries(parsed)) {
    if (!ALIAS.test(alias)) fail(file, 'a lower-case name of letters, digits, _ . - (at most 64)', 'a key', alias)
    map[alias] = entry(file, alias, value)
  }
  return map
}
