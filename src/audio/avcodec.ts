// FFmpeg's libavcodec, which AAC needs: loaded at run time by the addon
// (native/avcodec_runtime.h), never linked, so Chorus builds, starts and
// serves every other format where FFmpeg is missing. Loaded once per process,
// where worker threads share it; its absence is a state of the machine, not
// an error: the service reports it and answers AAC requests with what to
// install.

import { loadCodecs } from './native-codecs.js'

/** The soname the dynamic loader looks up: FFmpeg 5.1's, as Debian 12 ships
 * it. The addon is built against its headers and refuses another major. */
export const AVCODEC_LIBRARY = 'libavcodec.so.59'
/** The Debian package that installs it. */
export const AVCODEC_PACKAGE = 'libavcodec59'

export type AvcodecStatus =
  | { loaded: true, library: string, version: string, license: string }
  | { loaded: false, library: string, reason: string }

/** Loads libavcodec (CHORUS_AVCODEC_LIBRARY, else the soname) or says why it
 * cannot be: missing, another major version, not libavcodec. */
export function loadAvcodec (library: string = AVCODEC_LIBRARY): AvcodecStatus {
  try {
    return { loaded: true, library, ...loadCodecs().loadAvcodec(library) }
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_AVCODEC_LOAD') throw error
    return { loaded: false, library, reason: (error as Error).message }
  }
}
