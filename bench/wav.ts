// Audio duration of a WAV as it arrives, without keeping the body: the header
// is parsed (with the engine's parseWav) as soon as it is complete, then only
// bytes are counted. Works for exact-length answers and for streamed ones,
// whose header announces 0xFFFFFFFF bytes: the bytes that came are the audio.

import { parseWav, WAV_HEADER_BYTES } from '../src/engine/index.js'

interface Format {
  dataOffset: number
  bytesPerSecond: number
}

export class WavMeter {
  private head: Buffer[] = []
  private format: Format | undefined
  private triedEarly = false
  /** Every byte of the body so far. */
  bytes = 0

  push (chunk: Buffer): void {
    this.bytes += chunk.length
    if (this.format !== undefined) return
    this.head.push(chunk)
    // One early try once a plain header can be complete; a WAV with extra
    // chunks before its data is parsed whole at the end instead.
    if (!this.triedEarly && this.bytes >= WAV_HEADER_BYTES) {
      this.triedEarly = true
      try {
        this.parse()
      } catch {
        // Extra chunks before the data, or not a WAV yet: parsed whole at the end.
      }
    }
  }

  /** Bytes of audio data so far (0 until the header is known). */
  get audioBytes (): number {
    return this.format === undefined ? 0 : Math.max(0, this.bytes - this.format.dataOffset)
  }

  /** Seconds of audio so far (0 until the header is known). */
  get audioSeconds (): number {
    return this.format === undefined ? 0 : this.audioBytes / this.format.bytesPerSecond
  }

  /** Seconds of audio in the whole body; throws if the body is not a WAV. */
  finish (): number {
    if (this.format === undefined) this.parse()
    const format = this.format as Format
    return this.audioBytes / format.bytesPerSecond
  }

  private parse (): void {
    const info = parseWav(Buffer.concat(this.head))
    this.format = { dataOffset: info.dataOffset, bytesPerSecond: info.sampleRate * info.channels * info.bitsPerSample / 8 }
    this.head = []
  }
}
