// A look at the start of a model file before the whole of it is read: is it
// an ONNX model at all, and one ONNX Runtime can load? A file of garbage, or
// one past protobuf's 2 GiB limit, is refused from its first kilobytes and
// its size, instead of after reading it all into memory.

import { open } from 'node:fs/promises'
import { MODEL_GRAPH, MODEL_IR_VERSION } from './onnx-proto.js'
import { readVarint, WIRE_BYTES, WIRE_FIXED32, WIRE_FIXED64, WIRE_VARINT } from './protobuf.js'

/** A protobuf message (so an ONNX model) cannot be larger: ONNX Runtime refuses it. */
export const MAX_MODEL_BYTES = 2 ** 31 - 1

/** Enough for a model's leading fields (versions, producer, the graph's tag). */
const HEADER_BYTES = 64 * 1024

/** Fields ModelProto defines are numbered well below this. */
const MAX_MODEL_FIELD = 32

/**
 * Why the model in `path` (of `size` bytes) cannot be loaded, or undefined
 * when its header looks like an ONNX model's: its top-level fields are
 * well-formed and within the file, with an IR version and a graph.
 */
export async function modelHeaderProblem (path: string, size: number): Promise<string | undefined> {
  if (size > MAX_MODEL_BYTES) return `the model is ${size} bytes, over ONNX's limit of ${MAX_MODEL_BYTES} (2 GiB)`
  const file = await open(path, 'r')
  let bytes: Uint8Array
  try {
    const buffer = Buffer.alloc(Math.min(size, HEADER_BYTES))
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0)
    bytes = buffer.subarray(0, bytesRead)
  } finally {
    await file.close()
  }
  return headerProblem(bytes, size)
}

/** The check on a file's first bytes; `size` is the whole file's. */
export function headerProblem (bytes: Uint8Array, size: number): string | undefined {
  const notOnnx = 'the file is not an ONNX model'
  let offset = 0
  let irVersion = false
  let graph = false
  try {
    while (offset < bytes.length && !graph) {
      const tag = readVarint(bytes, offset, bytes.length)
      const number = Math.floor(tag.value / 8)
      const wireType = tag.value % 8
      if (number === 0 || number > MAX_MODEL_FIELD) return `${notOnnx} (field ${number} at byte ${offset})`
      let next: number
      if (wireType === WIRE_VARINT) next = readVarint(bytes, tag.next, bytes.length).next
      else if (wireType === WIRE_FIXED64) next = tag.next + 8
      else if (wireType === WIRE_FIXED32) next = tag.next + 4
      else if (wireType === WIRE_BYTES) {
        const length = readVarint(bytes, tag.next, bytes.length)
        next = length.next + length.value
      } else return `${notOnnx} (wire type ${wireType} at byte ${offset})`
      if (next > size) return `the model is truncated (field ${number} at byte ${offset} runs past the end of the file)`
      if (number === MODEL_IR_VERSION && wireType === WIRE_VARINT) irVersion = true
      if (number === MODEL_GRAPH && wireType === WIRE_BYTES) graph = true
      offset = next
    }
  } catch {
    return `${notOnnx} (malformed at byte ${offset})`
  }
  if (!irVersion || !graph) return `${notOnnx} (no ${irVersion ? 'graph' : 'IR version'} in its header)`
  return undefined
}
