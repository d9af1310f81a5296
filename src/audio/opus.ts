// Ogg Opus (RFC 7845): libopus compiled to WebAssembly (opusscript) makes the
// packets, ogg.ts frames them. The voice is converted to 24 kHz (Opus takes
// 8/12/16/24/48 kHz only; 24 kHz keeps all of a Piper voice's band) and
// encoded in 20 ms frames with the general-audio tuning (see OPUS_APPLICATION).

import { randomInt } from 'node:crypto'
import { createRequire } from 'node:module'
import type OpusScriptType from 'opusscript'
import { concatBytes, EMPTY, type StreamEncoder } from './encoder.js'
import { OggWriter } from './ogg.js'
import { createResampler } from './resampler.js'

const require = createRequire(import.meta.url)
const OpusScript = require('opusscript') as typeof OpusScriptType

export const OPUS_RATE = 24_000
const FRAME = OPUS_RATE / 50 // 20 ms
/** Granule positions count 48 kHz samples whatever the input rate. */
const GRANULE_PER_SAMPLE = 48_000 / OPUS_RATE
/** The decoder drops this many 48 kHz samples at the start: libopus's
 * encoder delay (2.5 ms look-ahead + 4 ms delay compensation = 6.5 ms). */
export const PRE_SKIP = 312
const OPUS_BITRATE = 32_000
/** libopus's application: AUDIO, not VOIP. At 32 kb/s VOIP makes libopus
 * code speech in hybrid mode (SILK below 8 kHz, CELT above), AUDIO in CELT
 * alone, the mode libopus itself picks at this rate when it is not told the
 * signal is speech. Measured by `npm run bench:encoders -- --settings` on
 * 60 s of speech (README, Audio formats): CELT alone costs 1.4 ms of CPU per
 * audio second against 4.2 for hybrid, and decoded back it is within
 * 0.1–0.25 dB of hybrid's log-spectral distance to the input. */
const OPUS_APPLICATION = OpusScript.Application.AUDIO
/** libopus complexity 0..10. In CELT mode the log-spectral distance does not
 * separate 0 to 3 (within 0.25 dB, not in order), so this follows libopus's
 * design (more complexity, better perceptual decisions) within the budget:
 * 3 costs 1.4 ms per audio second, 1 costs 1.3, 5 costs 2.9. */
const OPUS_COMPLEXITY = 3
const OPUS_SET_COMPLEXITY = 4010

function opusHead (inputRate: number): Uint8Array {
  const head = new Uint8Array(19)
  const view = new DataView(head.buffer)
  head.set(new TextEncoder().encode('OpusHead'))
  head[8] = 1 // version
  head[9] = 1 // channels
  view.setUint16(10, PRE_SKIP, true)
  view.setUint32(12, inputRate, true) // informational: the source's rate
  view.setInt16(16, 0, true) // output gain
  head[18] = 0 // channel mapping family 0: mono or stereo, no table
  return head
}

function opusTags (): Uint8Array {
  const vendor = new TextEncoder().encode('chorus (libopus via opusscript)')
  const tags = new Uint8Array(8 + 4 + vendor.length + 4)
  const view = new DataView(tags.buffer)
  tags.set(new TextEncoder().encode('OpusTags'))
  view.setUint32(8, vendor.length, true)
  tags.set(vendor, 12)
  view.setUint32(12 + vendor.length, 0, true) // no user comments
  return tags
}

/** Mono speech at the bitrate and complexity chosen in docs/audio.md. */
function speechEncoder (): OpusScriptType {
  const opus = new OpusScript(OPUS_RATE, 1, OPUS_APPLICATION)
  opus.setBitrate(OPUS_BITRATE)
  opus.encoderCTL(OPUS_SET_COMPLEXITY, OPUS_COMPLEXITY)
  return opus
}

export async function createOpusEncoder (sampleRate: number): Promise<StreamEncoder> {
  const resampler = sampleRate === OPUS_RATE ? undefined : await createResampler(sampleRate, OPUS_RATE)
  const opus = speechEncoder()
  const ogg = new OggWriter(randomInt(0, 2 ** 32))
  // Headers go first, each alone on its page (RFC 7845 §3).
  let pending: Uint8Array[] = [...ogg.pages([opusHead(sampleRate)], [0n]), ...ogg.pages([opusTags()], [0n])]
  let held = new Int16Array(0)
  let real = 0 // samples given to the encoder, padding not counted
  let encoded = 0
  let closed = false

  const frames = (pcm: Int16Array, end: boolean): Uint8Array[] => {
    real += pcm.length
    // At the end the encoder's delay is flushed with silence, or the decoder
    // (which drops PRE_SKIP first) would lose the last 6.5 ms of speech.
    const flush = end ? PRE_SKIP / GRANULE_PER_SAMPLE : 0
    const all = new Int16Array(held.length + pcm.length + flush)
    all.set(held)
    all.set(pcm, held.length)
    const packets: Uint8Array[] = []
    const granules: bigint[] = []
    let offset = 0
    for (; offset + FRAME <= all.length || (end && offset < all.length); offset += FRAME) {
      // The last frame is padded with silence; the final granule position
      // tells the decoder where the real audio ends.
      const frame = new Int16Array(FRAME)
      frame.set(all.subarray(offset, Math.min(offset + FRAME, all.length)))
      packets.push(new Uint8Array(opus.encode(Buffer.from(frame.buffer), FRAME)))
      encoded += FRAME
      // A page's position may not pass the real audio's end (RFC 7845 §4.4).
      granules.push(BigInt(Math.min(encoded * GRANULE_PER_SAMPLE, PRE_SKIP + real * GRANULE_PER_SAMPLE)))
    }
    held = all.slice(offset)
    const pages = ogg.pages(packets, granules, end)
    if (pending.length > 0) {
      pages.unshift(...pending)
      pending = []
    }
    return pages
  }

  return {
    push: pcm => {
      const pages = frames(resampler === undefined ? pcm : resampler.push(pcm), false)
      return pages.length === 0 ? EMPTY : concatBytes(pages)
    },
    finish: () => {
      const tail = resampler === undefined ? new Int16Array(0) : resampler.finish()
      const pages = frames(tail, true)
      closed = true
      opus.delete()
      return concatBytes(pages)
    },
    close: () => {
      resampler?.close()
      if (!closed) opus.delete()
      closed = true
    }
  }
}
