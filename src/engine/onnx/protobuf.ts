// The little of the protocol-buffers wire format that cutting an ONNX model
// needs: walking a message's fields by their byte ranges (so large fields,
// the weights, are copied as they are, never decoded) and writing
// length-delimited fields. Written here rather than taken from a protobuf
// library because every such library decodes whole messages into objects:
// 60 MB of weights would be copied into JS arrays only to be written back.

import { concatSamples } from '../audio.js'

export const WIRE_VARINT = 0
export const WIRE_FIXED64 = 1
export const WIRE_BYTES = 2
export const WIRE_FIXED32 = 5

export interface Field {
  number: number
  wireType: number
  /** The whole field, tag included: copy bytes.subarray(start, end) to keep it. */
  start: number
  end: number
  /** For WIRE_BYTES, the payload; for WIRE_VARINT, the value's bytes. */
  valueStart: number
  valueEnd: number
  /** For WIRE_VARINT, the value (up to 2^53; ONNX's varints here are small). */
  varint: number
}

export class ProtobufError extends Error {}

export function readVarint (bytes: Uint8Array, offset: number, end: number): { value: number, next: number } {
  let value = 0
  let scale = 1
  for (let i = offset; i < end && i < offset + 10; i++) {
    const byte = bytes[i]
    value += (byte & 0x7f) * scale
    scale *= 128
    if ((byte & 0x80) === 0) return { value, next: i + 1 }
  }
  throw new ProtobufError(`Truncated or invalid varint at byte ${offset}`)
}

/** The fields of the message in bytes[start, end), in order. Throws
 * ProtobufError on anything malformed (a truncated file, random bytes). */
export function * fields (bytes: Uint8Array, start = 0, end = bytes.length): Generator<Field> {
  let offset = start
  while (offset < end) {
    const tag = readVarint(bytes, offset, end)
    const number = Math.floor(tag.value / 8)
    const wireType = tag.value % 8
    if (number === 0) throw new ProtobufError(`Invalid field number 0 at byte ${offset}`)
    let valueStart = tag.next
    let valueEnd: number
    let varint = 0
    switch (wireType) {
      case WIRE_VARINT: {
        const v = readVarint(bytes, valueStart, end)
        varint = v.value
        valueEnd = v.next
        break
      }
      case WIRE_FIXED64: valueEnd = valueStart + 8; break
      case WIRE_FIXED32: valueEnd = valueStart + 4; break
      case WIRE_BYTES: {
        const length = readVarint(bytes, valueStart, end)
        valueStart = length.next
        valueEnd = valueStart + length.value
        break
      }
      default: throw new ProtobufError(`Unsupported wire type ${wireType} at byte ${offset}`)
    }
    if (valueEnd > end) throw new ProtobufError(`Field ${number} at byte ${offset} runs past the end of its message`)
    yield { number, wireType, start: offset, end: valueEnd, valueStart, valueEnd, varint }
    offset = valueEnd
  }
}

export function fieldString (bytes: Uint8Array, field: Field): string {
  return new TextDecoder().decode(bytes.subarray(field.valueStart, field.valueEnd))
}

function varintBytes (value: number): number[] {
  const out: number[] = []
  let v = value
  do {
    let byte = v % 128
    v = Math.floor(v / 128)
    if (v !== 0) byte |= 0x80
    out.push(byte)
  } while (v !== 0)
  return out
}

/** Concatenates parts into one buffer (one copy; a single part is returned as it is). */
export function concat (parts: readonly Uint8Array[]): Uint8Array {
  return concatSamples(parts, n => new Uint8Array(n))
}

/** A length-delimited field's tag and length; its payload follows. */
export function bytesFieldHeader (number: number, length: number): Uint8Array {
  return Uint8Array.from([...varintBytes(number * 8 + WIRE_BYTES), ...varintBytes(length)])
}

export function bytesField (number: number, payload: Uint8Array): Uint8Array {
  return concat([bytesFieldHeader(number, payload.length), payload])
}

export function varintField (number: number, value: number): Uint8Array {
  return Uint8Array.from([...varintBytes(number * 8 + WIRE_VARINT), ...varintBytes(value)])
}

export function stringField (number: number, value: string): Uint8Array {
  return bytesField(number, new TextEncoder().encode(value))
}
