// Protocol-buffer fields read straight from a file, a few kilobytes at a
// time: a message's tags and lengths are read, its large payloads (a
// model's weights) are skipped over without being read. What is read in all,
// and how many fields are walked, is capped, so a file made to be walked
// forever (millions of tiny fields) costs a bounded time.

import type { FileHandle } from 'node:fs/promises'
import { ProtobufError, readVarint, WIRE_BYTES, WIRE_FIXED32, WIRE_FIXED64, WIRE_VARINT } from './protobuf.js'

/** Bytes read at once: small, since a jump past a payload reads a new block. */
const BLOCK_BYTES = 8 * 1024
/** A tag and a length fit in this (two varints of at most 10 bytes). */
const HEAD_BYTES = 20

export interface FileField {
  number: number
  wireType: number
  /** Where the field starts in the file, tag included. */
  start: number
  /** For WIRE_BYTES, the payload's range; for the others, the value's. */
  valueStart: number
  valueEnd: number
  /** For WIRE_VARINT, the value. */
  varint: number
}

export interface ReadLimits {
  /** Bytes read from the file in all. */
  bytes: number
  /** Fields walked in all. */
  fields: number
}

/** The limits ran out before the walk was done: the file was not judged. */
export class WalkLimitError extends Error {}

export class FileFields {
  private block = new Uint8Array(0)
  private blockStart = 0
  private bytesRead = 0
  private fieldsWalked = 0

  constructor (private readonly file: FileHandle, private readonly size: number, private readonly limits: ReadLimits) {}

  /** The bytes [start, end) of the file, from the current block when it holds them. */
  async bytes (start: number, end: number): Promise<Uint8Array> {
    if (start >= this.blockStart && end <= this.blockStart + this.block.length) {
      return this.block.subarray(start - this.blockStart, end - this.blockStart)
    }
    const length = Math.min(Math.max(end - start, BLOCK_BYTES), this.size - start)
    if (length < end - start) throw new ProtobufError(`The file ends at byte ${this.size}, before byte ${end}`)
    this.bytesRead += length
    if (this.bytesRead > this.limits.bytes) throw new WalkLimitError(`more than ${this.limits.bytes} bytes would be read`)
    const block = new Uint8Array(length)
    const { bytesRead } = await this.file.read(block, 0, length, start)
    if (bytesRead < length) throw new ProtobufError(`The file ends at byte ${start + bytesRead}, before byte ${start + length}`)
    this.block = block
    this.blockStart = start
    return block.subarray(0, end - start)
  }

  async string (field: FileField): Promise<string> {
    return new TextDecoder().decode(await this.bytes(field.valueStart, field.valueEnd))
  }

  /** The fields of the message in [start, end) of the file, in order. Throws
   * ProtobufError on anything malformed, WalkLimitError past the limits. */
  async * fields (start: number, end: number): AsyncGenerator<FileField> {
    let offset = start
    while (offset < end) {
      if (++this.fieldsWalked > this.limits.fields) throw new WalkLimitError(`more than ${this.limits.fields} fields would be walked`)
      const head = await this.bytes(offset, Math.min(end, offset + HEAD_BYTES))
      const tag = varintAt(head, 0, offset)
      const number = Math.floor(tag.value / 8)
      const wireType = tag.value % 8
      if (number === 0) throw new ProtobufError(`Invalid field number 0 at byte ${offset}`)
      let valueStart = offset + tag.next
      let valueEnd: number
      let varint = 0
      switch (wireType) {
        case WIRE_VARINT: {
          const value = varintAt(head, tag.next, offset)
          varint = value.value
          valueEnd = offset + value.next
          break
        }
        case WIRE_FIXED64: valueEnd = valueStart + 8; break
        case WIRE_FIXED32: valueEnd = valueStart + 4; break
        case WIRE_BYTES: {
          const length = varintAt(head, tag.next, offset)
          valueStart = offset + length.next
          valueEnd = valueStart + length.value
          break
        }
        default: throw new ProtobufError(`Unsupported wire type ${wireType} at byte ${offset}`)
      }
      if (valueEnd > end) throw new ProtobufError(`Field ${number} at byte ${offset} runs past the end of its message`)
      yield { number, wireType, start: offset, valueStart, valueEnd, varint }
      offset = valueEnd
    }
  }
}

/** A varint of `head` at `at`; `base`, head's place in the file, places errors. */
function varintAt (head: Uint8Array, at: number, base: number): { value: number, next: number } {
  try {
    return readVarint(head, at, head.length)
  } catch {
    throw new ProtobufError(`Truncated or invalid varint at byte ${base + at}`)
  }
}
