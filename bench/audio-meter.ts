// Audio duration of a compressed answer as it arrives (--format), without
// keeping the body: MP3 by its frame headers, Ogg Opus by its pages' granule
// positions, raw pcm by its length. The answer's Content-Type picks the meter.

import { WavMeter } from './wav.js'

export const BENCH_FORMATS = ['wav', 'mp3', 'opus', 'pcm'] as const
export type BenchFormat = typeof BENCH_FORMATS[number]

export interface AudioMeter {
  /** Every byte of the body so far. */
  bytes: number
  /** Bytes of audio so far (past any header). */
  readonly audioBytes: number
  push: (chunk: Buffer) => void
  /** Seconds of audio in the whole body; throws if it is not the format. */
  finish: () => number
}

/** Walks bytes that come in pieces: `need` bytes of a header, then `skip` bytes of body. */
abstract class Walker implements AudioMeter {
  bytes = 0
  private carry = Buffer.alloc(0)
  private skip = 0

  get audioBytes (): number {
    return this.bytes
  }

  push (chunk: Buffer): void {
    this.bytes += chunk.length
    let data = this.carry.length > 0 ? Buffer.concat([this.carry, chunk]) : chunk
    for (;;) {
      if (this.skip > 0) {
        const skipped = Math.min(this.skip, data.length)
        this.skip -= skipped
        data = data.subarray(skipped)
        if (this.skip > 0) break
      }
      const size = this.unit(data)
      if (size === undefined) break
      this.skip = size
    }
    this.carry = Buffer.from(data)
  }

  finish (): number {
    if (this.carry.length > 0 || this.skip > 0) throw new Error('The audio ends inside a frame')
    return this.seconds()
  }

  /** Reads the header at the start of `data`: the unit's whole size, or
   * undefined if `data` is too short to tell. Throws on bytes that are not the format. */
  protected abstract unit (data: Buffer): number | undefined
  protected abstract seconds (): number
}

const MP3_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] }
const MP3_KBPS = { v1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320], v2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160] }

class Mp3Meter extends Walker {
  private samples = 0
  private rate = 0

  protected unit (data: Buffer): number | undefined {
    if (data.length < 4) return undefined
    if (data[0] !== 0xFF || (data[1] & 0xE0) !== 0xE0 || ((data[1] >> 1) & 3) !== 1) throw new Error('Not an MPEG Layer III frame')
    const version = (data[1] >> 3) & 3
    this.rate = MP3_RATES[version][(data[2] >> 2) & 3]
    const perFrame = version === 3 ? 1152 : 576
    const kbps = (version === 3 ? MP3_KBPS.v1 : MP3_KBPS.v2)[data[2] >> 4]
    this.samples += perFrame
    return Math.floor(perFrame / 8 * kbps * 1000 / this.rate) + ((data[2] >> 1) & 1)
  }

  protected seconds (): number {
    return this.rate === 0 ? 0 : this.samples / this.rate
  }
}

class OggOpusMeter extends Walker {
  private granule = 0n
  private preSkip: number | undefined

  protected unit (data: Buffer): number | undefined {
    if (data.length < 27) return undefined
    if (data.toString('latin1', 0, 4) !== 'OggS') throw new Error('Not an Ogg page')
    const segments = data[26]
    if (data.length < 27 + segments) return undefined
    let body = 0
    for (let i = 0; i < segments; i++) body += data[27 + i]
    // OpusHead is the first page's packet: its pre-skip is needed at the end.
    if (this.preSkip === undefined) {
      if (data.length < 27 + segments + 12) return undefined
      this.preSkip = data.readUInt16LE(27 + segments + 10)
    }
    const granule = data.readBigInt64LE(6)
    if (granule > this.granule) this.granule = granule
    return 27 + segments + body
  }

  protected seconds (): number {
    return Math.max(0, Number(this.granule) - (this.preSkip ?? 0)) / 48_000
  }
}

class PcmMeter implements AudioMeter {
  bytes = 0
  get audioBytes (): number {
    return this.bytes
  }

  push (chunk: Buffer): void {
    this.bytes += chunk.length
  }

  finish (): number {
    // OpenAI's pcm: 16-bit mono at 24 kHz.
    return this.bytes / 2 / 24_000
  }
}

export function meterFor (contentType: string | undefined): AudioMeter {
  switch ((contentType ?? '').split(';')[0].trim()) {
    case 'audio/mpeg': return new Mp3Meter()
    case 'audio/ogg': return new OggOpusMeter()
    case 'audio/pcm': return new PcmMeter()
    default: return new WavMeter()
  }
}
