// A script (text/script.ts) made ready to run, before any work: its parts
// grouped into passages (one voice, one espeak-ng language, one speed) and
// breaks, each passage's voice resolved and its settings made, and every
// phoneme it was given checked against the voice that will speak it. All
// refusals happen here, so an answer that starts is never half-spoken for
// bad input.

import { LIMITS, toCodepoints, type SynthesisConfig, type VoiceConfig } from '../../engine/index.js'
import { invalidSsml, unknownPhonemeSymbol } from '../../text/errors.js'
import type { ChorusError } from '../../errors.js'
import type { ScriptPart, ScriptStyle } from '../../text/script.js'
import { espeakMnemonics } from '../../voices/builtin-phonemes.js'
import { BUILTIN_ESPEAK_VOICE } from '../../voices/builtin.js'
import type { NativeBinding } from '../../engine/index.js'
import type { ResolvedVoice } from '../synthesizer.js'
import type { PassagePart } from './passage-phonemes.js'

export interface Passage {
  kind: 'passage'
  voice: ResolvedVoice
  settings: SynthesisConfig
  /** The espeak-ng voice that reads its text ('' for a voice that takes characters). */
  espeakVoice: string
  /** Set when SSML `<lang>` chose the language: its phonemes are checked against the voice once made. */
  language?: string
  parts: PassagePart[]
}

export interface ScriptBreak {
  kind: 'break'
  seconds: number
}

export type ScriptStep = Passage | ScriptBreak

/** What the plan needs of the synthesizer. */
export interface PlanContext {
  binding: NativeBinding
  /** The request's voice, with its settings and sample rate. */
  voice: ResolvedVoice
  settings: SynthesisConfig
  sampleRate: number
  /** Another voice by name (SSML `<voice>`), with the request's settings for it. */
  otherVoice: (name: string) => { voice: ResolvedVoice, settings: SynthesisConfig, sampleRate: number }
  /** Whether espeak-ng has a voice of this name. */
  hasEspeakVoice: (name: string) => boolean
}

function ownEspeakVoice (voice: ResolvedVoice): string {
  if (voice.kind === 'builtin') return BUILTIN_ESPEAK_VOICE
  return voice.voice.config.phonemeType === 'espeak' ? voice.voice.config.espeakVoice : ''
}

/** The espeak-ng voice for an xml:lang on `voice`: its own for its own
 * language, else the tag ("en-GB" → "en-gb"), else its primary language ("de"). */
function espeakVoiceFor (language: string, voice: ResolvedVoice, context: PlanContext): string {
  const own = ownEspeakVoice(voice)
  if (own === '') throw invalidSsml(`Expected a voice that reads espeak-ng phonemes for <lang xml:lang="${language}"> but received ${voice.name}, which reads characters`)
  const tag = language.toLowerCase()
  const primary = tag.split('-')[0]
  if (tag === own || tag === primary && own.split('-')[0] === primary) return own
  for (const candidate of [tag, primary]) if (context.hasEspeakVoice(candidate)) return candidate
  throw invalidSsml(`Expected a language espeak-ng can speak for <lang xml:lang> but received "${language}"`, { details: { language } })
}

function passageFor (style: ScriptStyle, context: PlanContext): Passage {
  const chosen = style.voice === undefined || style.voice === context.voice.name
    ? { voice: context.voice, settings: context.settings, sampleRate: context.sampleRate }
    : context.otherVoice(style.voice)
  if (chosen.sampleRate !== context.sampleRate) {
    throw invalidSsml(`Expected a voice at the answer's sample rate (${context.sampleRate} Hz) for <voice name> but received ${chosen.voice.name} (${chosen.sampleRate} Hz)`,
      { details: { voice: chosen.voice.name, sample_rate: chosen.sampleRate } })
  }
  const lengthScale = chosen.settings.lengthScale / style.rate
  if (lengthScale < LIMITS.lengthScale.min || lengthScale > LIMITS.lengthScale.max) {
    throw invalidSsml(`Expected a <prosody rate> that keeps length_scale from ${LIMITS.lengthScale.min} to ${LIMITS.lengthScale.max} for ${chosen.voice.name} but received a speed of ${style.rate} (length_scale ${lengthScale.toFixed(3)})`)
  }
  const espeakVoice = style.language === undefined ? ownEspeakVoice(chosen.voice) : espeakVoiceFor(style.language, chosen.voice, context)
  return { kind: 'passage', voice: chosen.voice, settings: { ...chosen.settings, lengthScale }, espeakVoice, ...(style.language !== undefined ? { language: style.language } : {}), parts: [] }
}

function sameStyle (a: ScriptStyle, b: ScriptStyle): boolean {
  return a.voice === b.voice && a.language === b.language && a.rate === b.rate
}

/** The steps of `parts`, every given phoneme checked. */
export function planScript (parts: readonly ScriptPart[], context: PlanContext): ScriptStep[] {
  const steps: ScriptStep[] = []
  let current: { style: ScriptStyle, passage: Passage } | undefined
  for (const part of parts) {
    if (part.kind === 'break') {
      if (part.seconds > 0) steps.push({ kind: 'break', seconds: part.seconds })
      current = undefined
      continue
    }
    if (part.kind === 'boundary') {
      current?.passage.parts.push(part)
      continue
    }
    if (current === undefined || !sameStyle(current.style, part.style)) {
      current = { style: part.style, passage: passageFor(part.style, context) }
      steps.push(current.passage)
    }
    checkPhonemes(part, current.passage, context.binding)
    current.passage.parts.push(part)
  }
  return steps
}

function checkPhonemes (part: PassagePart, passage: Passage, binding: NativeBinding): void {
  const given = part.kind === 'phonemes' ? [{ ipa: part.ipa, origin: part.origin }] : part.kind === 'text' ? part.overrides : []
  for (const { ipa, origin } of given) {
    const unknown = passage.voice.kind === 'builtin' ? builtinUnknown(binding, passage.espeakVoice, ipa) : piperUnknown(passage.voice.voice.config, ipa)
    if (unknown !== undefined) throw unknownPhoneme(passage.voice.name, origin, ipa, unknown)
  }
}

export function unknownPhoneme (voice: string, origin: string, ipa: string, symbol: string): ChorusError {
  const code = `U+${(symbol.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`
  return unknownPhonemeSymbol(`Expected phonemes that voice ${voice} can speak for ${origin} but received ${JSON.stringify(ipa)}: it has no phoneme "${symbol}" (${code})`,
    { details: { voice, symbol, where: origin } })
}

/** The first symbol of `ipa` (as the voice maps it) that the voice has no id for. */
export function piperUnknown (config: VoiceConfig, ipa: string): string | undefined {
  for (const codepoint of toCodepoints(ipa, config.phonemeMap)) {
    const symbol = String.fromCodePoint(codepoint)
    if (config.phonemeIdMap[symbol] === undefined) return symbol
  }
  return undefined
}

function builtinUnknown (binding: NativeBinding, espeakVoice: string, ipa: string): string | undefined {
  const written = espeakMnemonics(binding, espeakVoice).write(ipa)
  return 'unknown' in written ? written.unknown.symbol : undefined
}
