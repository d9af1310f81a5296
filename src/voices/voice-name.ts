// A voice name is a name, never a path. Names arrive from HTTP requests, CLI
// arguments, the catalogue and folder listings, and become file names inside
// a voice folder, so one predicate decides what may ever reach the disk.

import { randomBytes } from 'node:crypto'
import { basename, dirname, join } from 'node:path'
import { invalid } from '../validate.js'

export const MAX_VOICE_NAME_LENGTH = 128

// Piper's `<lang>_<REGION>-<speaker>-<quality>` (en_US-lessac-medium,
// pt_PT-tugão-medium, de_DE-thorsten_emotional-medium), kept loose: the
// language and region shape is fixed, then two or more dash-separated words
// of letters (any script, with combining marks), digits and underscores. The
// character set alone excludes every path ingredient: no dot, slash,
// backslash, NUL, control character or white space can match.
const VOICE_NAME = /^[a-z]{2,3}_(?:[A-Z]{2}|[0-9]{3})(?:-[\p{L}\p{M}\p{N}_]+){2,}$/u

export function isValidVoiceName (name: unknown): name is string {
  return typeof name === 'string' && name.length <= MAX_VOICE_NAME_LENGTH && VOICE_NAME.test(name)
}

/** Returns the name, or throws InvalidArgumentError naming the field. */
export function assertVoiceName (name: unknown, field = 'voice'): string {
  if (!isValidVoiceName(name)) throw invalid('a voice name like en_US-lessac-medium', field, name)
  return name
}

export interface VoiceFilePaths {
  /** `<dir>/<name>.onnx` */
  model: string
  /** `<dir>/<name>.onnx.json`, Piper's default config path for the model. */
  config: string
}

/** The two files of a voice in a voice folder. The name is checked first, so
 * the result always lies directly inside dir. */
export function voiceFiles (dir: string, name: unknown): VoiceFilePaths {
  const valid = assertVoiceName(name)
  return { model: join(dir, `${valid}.onnx`), config: join(dir, `${valid}.onnx.json`) }
}

/** A fresh temporary sibling of a voice file, for writing it before an atomic
 * rename. It starts with a dot, so it never passes as a voice name and
 * folder scans skip it, and it is unique per process and call, so concurrent
 * installers never share one. */
export function temporaryPath (target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.part`)
}
