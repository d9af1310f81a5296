// What a speech must carry from its admission (src/access/admission.ts)
// before the speech service does any work for it: whose it is, for the
// scheduler's fair shares, for the `after` lookups and for the counts of
// its audio, and the release of its place in its key's concurrency quota.
// SpeechRequest requires one, so no protocol can open a speech that was not
// admitted; a command in this process (chorus say) gets a local one.

import { COMMON_SHARE, type Share } from '../pool/share.js'

export type { Share }

export interface SpeechAdmission {
  /** Who it speaks for (a key's name, or "anonymous"): `after` names ids of the same tenant. */
  readonly tenant: string
  /** The share of inference slots its work counts in. */
  readonly share: Share
  /** Its audio, in seconds, counted against its tenant once the speech ends or stops. */
  charge: (audioSeconds: number) => void
  /** Frees its place (concurrent streams) once its request is done. The
   * speech service calls it when the speech's work has stopped and its
   * bytes were delivered, or at once when it fails before its first chunk;
   * an adapter may call it sooner. Only the first call counts. */
  release: () => void
}

/** A speech for a command in this process (chorus say, the scripts): no key,
 * no quota, nothing counted; the common share. */
export function localAdmission (): SpeechAdmission {
  return { tenant: COMMON_SHARE.name, share: COMMON_SHARE, charge: () => {}, release: () => {} }
}
