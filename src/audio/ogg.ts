// Ogg page framing (RFC 3533) for one logical stream: packets in, pages out.
// Pure functions and a small writer; the CRC is Ogg's own (polynomial
// 0x04C11DB7, no bit reflection, zero initial value), which differs from
// zlib's CRC-32.

const CRC_TABLE = (() => {
  const table = new Uint32Array(256)
  for (let i = 0; i < 256; i++) {
    let r = i << 24
    for (let bit = 0; bit < 8; bit++) r = (r & 0x80000000) !== 0 ? (r << 1) ^ 0x04C11DB7 : r << 1
    table[i] = r >>> 0
  }
  return table
})()

export function oggCrc (bytes: Uint8Array): number {
  let crc = 0
  for (const byte of bytes) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ byte) & 0xFF]) >>> 0
  return crc
}

const PAGE_HEADER_BYTES = 27
/** A page's segment table holds at most 255 lacing values. */
const MAX_SEGMENTS = 255

export const FLAG_BOS = 0x02
export const FLAG_EOS = 0x04

/** Lacing values of one packet: 255s then a final value below 255 (a 0 when
 * the length is a multiple of 255). */
function lacing (length: number): number[] {
  const values = new Array<number>(Math.floor(length / 255)).fill(255)
  values.push(length % 255)
  return values
}

/** One complete page. `granule` is -1 when no packet ends on the page. */
function oggPage (packets: readonly Uint8Array[], serial: number, sequence: number, granule: bigint, flags: number): Uint8Array {
  const segments = packets.flatMap(p => lacing(p.length))
  if (segments.length > MAX_SEGMENTS) throw new RangeError(`An Ogg page holds at most ${MAX_SEGMENTS} segments, not ${segments.length}`)
  const bodyBytes = packets.reduce((sum, p) => sum + p.length, 0)
  const page = new Uint8Array(PAGE_HEADER_BYTES + segments.length + bodyBytes)
  const view = new DataView(page.buffer)
  page.set([0x4F, 0x67, 0x67, 0x53]) // "OggS"
  page[4] = 0 // stream structure version
  page[5] = flags
  view.setBigInt64(6, granule, true)
  view.setUint32(14, serial, true)
  view.setUint32(18, sequence, true)
  // Bytes 22..25 hold the CRC, computed with them zeroed.
  page[26] = segments.length
  page.set(segments, PAGE_HEADER_BYTES)
  let offset = PAGE_HEADER_BYTES + segments.length
  for (const p of packets) {
    page.set(p, offset)
    offset += p.length
  }
  view.setUint32(22, oggCrc(page), true)
  return page
}

/** Writes the packets of one logical stream as pages, numbering them. Each
 * call to `pages` puts its packets on as few pages as fit: one per chunk of
 * synthesised audio, so a stream's pages leave as the audio is made. */
export class OggWriter {
  private sequence = 0
  private started = false
  private lastGranule = 0n

  constructor (private readonly serial: number) {}

  /** `granules[i]` is the granule position after packet i. */
  pages (packets: readonly Uint8Array[], granules: readonly bigint[], end = false): Uint8Array[] {
    const out: Uint8Array[] = []
    let first = 0
    while (first < packets.length || (end && out.length === 0)) {
      let last = first
      let segments = 0
      while (last < packets.length && segments + lacing(packets[last].length).length <= MAX_SEGMENTS) {
        segments += lacing(packets[last].length).length
        last++
      }
      // Our packets (Opus frames, headers) are far below 255 × 255 bytes.
      if (last === first && first < packets.length) throw new RangeError('Ogg packet too large for one page')
      const flags = (this.started ? 0 : FLAG_BOS) | (end && last === packets.length ? FLAG_EOS : 0)
      // An empty closing page repeats the stream's last position.
      const granule = last > first ? granules[last - 1] : end ? this.lastGranule : -1n
      this.lastGranule = granule >= 0n ? granule : this.lastGranule
      out.push(oggPage(packets.slice(first, last), this.serial, this.sequence++, granule, flags))
      this.started = true
      first = last
    }
    return out
  }
}
