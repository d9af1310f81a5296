// Which voice a request without `voice` gets, for the service and `chorus
// say` alike. Without TTS_DEFAULT_VOICE set, a missing default falls back to
// the built-in voice; set explicitly, it does not (requests get "Voice model
// not found" until it is installed).

import { BUILTIN_VOICE } from '../voices/builtin.js'

/** TTS_DEFAULT_VOICE, and whether it was set. */
export interface DefaultVoiceChoice {
  defaultVoice: string
  defaultVoiceExplicit: boolean
}

export interface DefaultVoiceStatus {
  configured: string
  effective: string
  installed: boolean
}

export function defaultVoiceStatus (
  config: DefaultVoiceChoice, isInstalled: (name: string) => boolean
): DefaultVoiceStatus {
  const configured = config.defaultVoice
  const installed = configured === BUILTIN_VOICE || isInstalled(configured)
  const effective = installed || config.defaultVoiceExplicit ? configured : BUILTIN_VOICE
  return { configured, effective, installed }
}
