// Which voice a request without `voice` gets, for the service and `chorus
// say` alike. Without TTS_DEFAULT_VOICE set, a missing default falls back to
// the built-in voice; set explicitly, it does not (requests get "Voice model
// not found" until it is installed).

import type { ServiceConfig } from '../service/config.js'
import { BUILTIN_VOICE } from '../voices/builtin.js'

export interface DefaultVoiceStatus {
  configured: string
  effective: string
  installed: boolean
}

export function defaultVoiceStatus (
  config: Pick<ServiceConfig, 'defaultVoice' | 'defaultVoiceExplicit'>, isInstalled: (name: string) => boolean
): DefaultVoiceStatus {
  const configured = config.defaultVoice
  const installed = configured === BUILTIN_VOICE || isInstalled(configured)
  const effective = installed || config.defaultVoiceExplicit ? configured : BUILTIN_VOICE
  return { configured, effective, installed }
}
