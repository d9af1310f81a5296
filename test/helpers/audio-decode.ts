// Decoders for checking the service's audio in tests: Ogg pages (CRC
// checked) and Opus via opusscript's libopus decoder, FLAC via libFLAC
// (libflacjs), MP3 by its frame headers and by decoding with Debian's
// mpg123; AAC by its ADTS headers and by decoding with Debian's faad
// (libfaad2, scripts/lib/faad-decode.ts). Tests that decode with those
// programs say so (test-tools.ts).

import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import type OpusScriptType from 'opusscript'
import { loadFlac } from '../../src/audio/flac.js'
import { oggCrc } from '../../src/audio/ogg.js'

const require = createRequire(import.meta.url)
const OpusScript = require('opusscript') as typeof OpusScriptType

export interface OggPage {
  flags: number
  granule: bigint
  serial: number
  sequence: number
  /** Packets that end on this page (ours never span pages). */
  packets: Uint8Array[]
}

export function parseOgg (bytes: Uint8Array): OggPage[] {
  const pages: OggPage[] = []
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let offset = 0
  while (offset < bytes.length) {
    if (String.fromCharCode(...bytes.subarray(offset, offset + 4)) !== 'OggS') throw new Error(`No Ogg capture pattern at byte ${offset}`)
    const count = bytes[offset + 26]
    const lacing = bytes.subarray(offset + 27, offset + 27 + count)
    const size = 27 + count + lacing.reduce((a, b) => a + b, 0)
    const page = bytes.slice(offset, offset + size)
    const crc = view.getUint32(offset + 22, true)
    page.fill(0, 22, 26)
    if (oggCrc(page) !== crc) throw new Error(`Bad CRC on the Ogg page at byte ${offset}`)
    const packets: Uint8Array[] = []
    let body = offset + 27 + count
    let length = 0
    for (const value of lacing) {
      length += value
      if (value < 255) {
        packets.push(bytes.subarray(body, body + length))
        body += length
        length = 0
      }
    }
    pages.push({ flags: bytes[offset + 5], granule: view.getBigInt64(offset + 6, true), serial: view.getUint32(offset + 14, true), sequence: view.getUint32(offset + 18, true), packets })
    offset += size
  }
  return pages
}

export interface OpusHead {
  channels: number
  preSkip: number
  inputRate: number
}

/** Decodes Ogg Opus to 48 kHz PCM, trimmed as RFC 7845 says (pre-skip at the
 * start, the final granule position at the end). */
export function decodeOggOpus (bytes: Uint8Array): { head: OpusHead, tags: string, pcm: Int16Array, pages: OggPage[] } {
  const pages = parseOgg(bytes)
  const [headPacket] = pages[0].packets
  if (String.fromCharCode(...headPacket.subarray(0, 8)) !== 'OpusHead') throw new Error('First packet is not OpusHead')
  const hv = new DataView(headPacket.buffer, headPacket.byteOffset, headPacket.byteLength)
  const head = { channels: headPacket[9], preSkip: hv.getUint16(10, true), inputRate: hv.getUint32(12, true) }
  const tags = String.fromCharCode(...pages[1].packets[0].subarray(0, 8))
  const decoder = new OpusScript(48000, 1)
  const parts: Int16Array[] = []
  for (const page of pages.slice(2)) {
    for (const packet of page.packets) {
      const out = decoder.decode(Buffer.from(packet))
      parts.push(new Int16Array(out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength)))
    }
  }
  decoder.delete()
  const all = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let offset = 0
  for (const p of parts) {
    all.set(p, offset)
    offset += p.length
  }
  const end = Number(pages[pages.length - 1].granule)
  return { head, tags, pcm: all.slice(head.preSkip, end), pages }
}

export async function decodeFlac (bytes: Uint8Array): Promise<{ sampleRate: number, bitsPerSample: number, pcm: Int16Array }> {
  const flac = await loadFlac()
  const decoder = flac.create_libflac_decoder(false)
  let read = 0
  const parts: Int16Array[] = []
  let info = { sampleRate: 0, bitsPerSample: 0 }
  const errors: string[] = []
  flac.init_decoder_stream(decoder,
    (wanted: number) => {
      const chunk = bytes.slice(read, read + wanted)
      read += chunk.length
      return { buffer: chunk, readDataLength: chunk.length, error: false }
    },
    (channels: Uint8Array[]) => {
      const c = channels[0]
      parts.push(new Int16Array(c.buffer.slice(c.byteOffset, c.byteOffset + c.byteLength)))
    },
    (code: number, status: number) => { errors.push(`error ${code}, status ${status}`) },
    (metadata?: { sampleRate: number, bitsPerSample: number }) => { if (metadata !== undefined) info = { sampleRate: metadata.sampleRate, bitsPerSample: metadata.bitsPerSample } })
  flac.FLAC__stream_decoder_process_until_end_of_stream(decoder)
  flac.FLAC__stream_decoder_finish(decoder)
  flac.FLAC__stream_decoder_delete(decoder)
  if (errors.length > 0) throw new Error(`FLAC decoding failed: ${errors.join('; ')}`)
  const pcm = new Int16Array(parts.reduce((n, p) => n + p.length, 0))
  let offset = 0
  for (const p of parts) {
    pcm.set(p, offset)
    offset += p.length
  }
  return { ...info, pcm }
}

const MP3_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] }
const MP3_KBPS: Record<string, number[]> = {
  v1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
}

/** Walks an MP3's Layer III frames by their headers; every byte must belong to a frame. */
export function mp3Frames (bytes: Uint8Array): { frames: number, sampleRate: number, kbps: number, samplesPerFrame: number, duration: number } {
  let offset = 0
  let frames = 0
  let sampleRate = 0
  let kbps = 0
  let samplesPerFrame = 0
  while (offset + 4 <= bytes.length) {
    const b1 = bytes[offset + 1]
    const b2 = bytes[offset + 2]
    if (bytes[offset] !== 0xFF || (b1 & 0xE0) !== 0xE0) throw new Error(`No MP3 frame sync at byte ${offset}`)
    const version = (b1 >> 3) & 3
    if (((b1 >> 1) & 3) !== 1) throw new Error(`Not Layer III at byte ${offset}`)
    sampleRate = MP3_RATES[version][(b2 >> 2) & 3]
    kbps = MP3_KBPS[version === 3 ? 'v1' : 'v2'][b2 >> 4]
    samplesPerFrame = version === 3 ? 1152 : 576
    const padding = (b2 >> 1) & 1
    offset += Math.floor(samplesPerFrame / 8 * kbps * 1000 / sampleRate) + padding
    frames++
  }
  if (offset !== bytes.length) throw new Error(`MP3 ends inside a frame (${offset} != ${bytes.length})`)
  return { frames, sampleRate, kbps, samplesPerFrame, duration: frames * samplesPerFrame / sampleRate }
}

/** Decodes MP3 with Debian's mpg123 (apt-get install mpg123). */
export function decodeMp3 (bytes: Uint8Array): Int16Array {
  const result = spawnSync('mpg123', ['-q', '-s', '-'], { input: bytes, maxBuffer: 256 * 1024 * 1024 })
  if (result.status !== 0) throw new Error(`mpg123 failed: ${result.stderr.toString()}`)
  const out = result.stdout
  return new Int16Array(out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength))
}

const ADTS_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]

export interface AdtsFrame {
  /** audioObjectType: 2 is AAC-LC. */
  objectType: number
  sampleRate: number
  channels: number
  /** Header and payload. */
  length: number
}

/** Walks an ADTS stream by its headers; every byte must belong to a frame. */
export function adtsFrames (bytes: Uint8Array): AdtsFrame[] {
  const frames: AdtsFrame[] = []
  let offset = 0
  while (offset < bytes.length) {
    if (offset + 7 > bytes.length) throw new Error(`ADTS ends inside a header at byte ${offset}`)
    const b = bytes.subarray(offset, offset + 7)
    if (b[0] !== 0xFF || (b[1] & 0xF6) !== 0xF0) throw new Error(`No ADTS sync (MPEG-4, layer 0) at byte ${offset}`)
    if ((b[1] & 1) !== 1) throw new Error(`ADTS frame with a CRC at byte ${offset}`)
    const length = ((b[3] & 3) << 11) | (b[4] << 3) | (b[5] >> 5)
    if (length < 7 || offset + length > bytes.length) throw new Error(`ADTS frame of ${length} bytes at byte ${offset} runs past the end`)
    frames.push({ objectType: (b[2] >> 6) + 1, sampleRate: ADTS_RATES[(b[2] >> 2) & 0xF], channels: ((b[2] & 1) << 2) | (b[3] >> 6), length })
    offset += length
  }
  return frames
}

export { decodeAac } from '../../scripts/lib/faad-decode.js'

/** The dominant frequency of a tone, from its zero crossings. */
export function toneFrequency (pcm: Int16Array, sampleRate: number): number {
  let crossings = 0
  for (let i = 1; i < pcm.length; i++) if ((pcm[i - 1] < 0) !== (pcm[i] < 0)) crossings++
  return crossings / 2 / (pcm.length / sampleRate)
}

export function tone (hz: number, seconds: number, sampleRate: number): Int16Array {
  return Int16Array.from({ length: Math.round(seconds * sampleRate) }, (_, i) => Math.round(12000 * Math.sin(2 * Math.PI * hz * i / sampleRate)))
}
