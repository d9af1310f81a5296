// An ONNX model read as far as cutting it needs: the graph's nodes (their
// inputs, outputs, operator, integer and string attributes, and the values
// of small integer constants), the names of its
// initializers, inputs and outputs, each with the byte range of its message so
// it can be written back unchanged. Field numbers: onnx-proto.ts.

import { fields, fieldString, ProtobufError, WIRE_BYTES, WIRE_FIXED32, WIRE_VARINT, type Field } from './protobuf.js'
import {
  ATTRIBUTE_INT, ATTRIBUTE_INTS, ATTRIBUTE_NAME, ATTRIBUTE_STRING, ATTRIBUTE_TENSOR, GRAPH_INITIALIZER, GRAPH_INPUT, GRAPH_NODE,
  GRAPH_OUTPUT, GRAPH_SPARSE_INITIALIZER, GRAPH_VALUE_INFO, MODEL_GRAPH, NODE_ATTRIBUTE, NODE_DOMAIN, NODE_INPUT, NODE_OP_TYPE,
  NODE_OUTPUT, TENSOR_DATA_TYPE, TENSOR_DIMS, TENSOR_FLOAT_DATA, TENSOR_INT32_DATA, TENSOR_INT64_DATA, TENSOR_NAME, TENSOR_RAW_DATA, TYPE_FLOAT, TYPE_INT32,
  TYPE_INT64, VALUE_INFO_NAME
} from './onnx-proto.js'

/** Integer constants longer than this are not decoded (axes and sizes are short). */
const MAX_INT_VALUES = 64

export interface Span {
  start: number
  end: number
}

export interface GraphNode extends Span {
  inputs: string[]
  outputs: string[]
  opType: string
  domain: string
  /** Integer and integer-list attributes (strides, dilations, axis, …), as lists. */
  ints: Record<string, number[]>
  /** String attributes (auto_pad, …). */
  strings: Record<string, string>
  /** A Constant node's value, when it is a short integer tensor. */
  intValue?: number[]
  /** A Constant node's value, when it is a single float. */
  floatValue?: number
}

export interface NamedSpan extends Span {
  name: string
}

export interface Initializer extends NamedSpan {
  /** Its values, when it is a short integer tensor. */
  intValue?: number[]
}

export interface ModelGraph {
  bytes: Uint8Array
  /** The ModelProto's fields other than the graph (opsets, IR version, …). */
  modelFields: Span[]
  /** The graph's fields that are neither nodes, initializers, inputs, outputs nor value infos. */
  otherGraphFields: Span[]
  nodes: GraphNode[]
  initializers: Initializer[]
  inputs: NamedSpan[]
  outputs: NamedSpan[]
  valueInfos: NamedSpan[]
}

function span (field: Field): Span {
  return { start: field.start, end: field.end }
}

function nameOf (bytes: Uint8Array, message: Field, nameField: number): string {
  for (const field of fields(bytes, message.valueStart, message.valueEnd)) {
    if (field.number === nameField && field.wireType === WIRE_BYTES) return fieldString(bytes, field)
  }
  return ''
}

/** A varint field's value as a signed 64-bit integer (ONNX writes -1 as ten bytes). */
function signedVarint (bytes: Uint8Array, field: Field): number {
  let value = 0n
  for (let i = field.valueEnd - 1; i >= field.valueStart; i--) value = (value << 7n) | BigInt(bytes[i] & 0x7f)
  return Number(BigInt.asIntN(64, value))
}

/** The integers of a repeated int field, packed or not, appended to `values`. */
function readIntField (bytes: Uint8Array, field: Field, values: number[]): void {
  if (field.wireType === WIRE_VARINT) values.push(signedVarint(bytes, field))
  else if (field.wireType === WIRE_BYTES) {
    // Packed: a run of varints.
    const run = packedAsFields(bytes, field)
    for (const v of fields(run)) values.push(signedVarint(run, v))
  }
}

/** What Chorus reads of a TensorProto: its shape, element type, the bytes
 * of raw_data, and the integers written as int32_data or int64_data. */
export interface TensorFields {
  dims: number[]
  type: number
  raw?: Field
  ints: number[]
}

export function readTensorFields (bytes: Uint8Array, start: number, end: number): TensorFields {
  const tensor: TensorFields = { dims: [], type: 0, ints: [] }
  for (const field of fields(bytes, start, end)) {
    if (field.number === TENSOR_DIMS) readIntField(bytes, field, tensor.dims)
    else if (field.number === TENSOR_DATA_TYPE && field.wireType === WIRE_VARINT) tensor.type = field.varint
    else if (field.number === TENSOR_INT64_DATA || field.number === TENSOR_INT32_DATA) readIntField(bytes, field, tensor.ints)
    else if (field.number === TENSOR_RAW_DATA && field.wireType === WIRE_BYTES) tensor.raw = field
  }
  return tensor
}

/** The payload range of the message a span of its parent holds (the span
 * includes the field's tag and length). */
export function payloadOf (bytes: Uint8Array, span: Span): Span {
  const field = fields(bytes, span.start, span.end).next().value
  if (field === undefined) throw new ProtobufError(`Empty field at byte ${span.start}`)
  return { start: field.valueStart, end: field.valueEnd }
}

/** A TensorProto's values when it holds at most MAX_INT_VALUES integers. */
function readIntTensor (bytes: Uint8Array, start: number, end: number): number[] | undefined {
  const { dims, type, raw, ints: values } = readTensorFields(bytes, start, end)
  const count = dims.reduce((product, d) => product * d, 1)
  if ((type !== TYPE_INT64 && type !== TYPE_INT32) || count > MAX_INT_VALUES) return undefined
  if (raw !== undefined) {
    const width = type === TYPE_INT64 ? 8 : 4
    if (raw.valueEnd - raw.valueStart !== count * width) return undefined
    const view = new DataView(bytes.buffer, bytes.byteOffset + raw.valueStart, count * width)
    for (let i = 0; i < count; i++) values.push(width === 8 ? Number(view.getBigInt64(i * 8, true)) : view.getInt32(i * 4, true))
  }
  return values.length === count ? values : undefined
}

/** A TensorProto's value when it holds exactly one float (raw_data or float_data). */
export function readSingleFloat (bytes: Uint8Array, start: number, end: number): number | undefined {
  const { dims, type, raw } = readTensorFields(bytes, start, end)
  if (type !== TYPE_FLOAT || dims.reduce((product, d) => product * d, 1) !== 1) return undefined
  let at = raw !== undefined && raw.valueEnd - raw.valueStart === 4 ? raw.valueStart : undefined
  for (const field of fields(bytes, start, end)) {
    // float_data: packed (4 bytes for one value) or a single fixed32.
    const packed = field.wireType === WIRE_BYTES && field.valueEnd - field.valueStart === 4
    if (field.number === TENSOR_FLOAT_DATA && (packed || field.wireType === WIRE_FIXED32)) at = field.valueStart
  }
  return at === undefined ? undefined : new DataView(bytes.buffer, bytes.byteOffset + at, 4).getFloat32(0, true)
}

function readAttribute (bytes: Uint8Array, attribute: Field, node: GraphNode): void {
  let name = ''
  const values: number[] = []
  let text: string | undefined
  let tensor: Field | undefined
  for (const field of fields(bytes, attribute.valueStart, attribute.valueEnd)) {
    if (field.number === ATTRIBUTE_NAME && field.wireType === WIRE_BYTES) name = fieldString(bytes, field)
    else if (field.number === ATTRIBUTE_INTS || field.number === ATTRIBUTE_INT) readIntField(bytes, field, values)
    else if (field.number === ATTRIBUTE_STRING && field.wireType === WIRE_BYTES) text = fieldString(bytes, field)
    else if (field.number === ATTRIBUTE_TENSOR && field.wireType === WIRE_BYTES) tensor = field
  }
  if (values.length > 0) node.ints[name] = values
  if (text !== undefined) node.strings[name] = text
  if (tensor !== undefined && name === 'value' && node.opType === 'Constant') {
    node.intValue = readIntTensor(bytes, tensor.valueStart, tensor.valueEnd)
    node.floatValue = readSingleFloat(bytes, tensor.valueStart, tensor.valueEnd)
  }
}

/** Re-tags a packed varint run as a sequence of field-1 varints so fields() can walk it. */
function packedAsFields (bytes: Uint8Array, field: Field): Uint8Array {
  const out: number[] = []
  for (let i = field.valueStart; i < field.valueEnd; i++) {
    if (i === field.valueStart || (bytes[i - 1] & 0x80) === 0) out.push(1 << 3)
    out.push(bytes[i])
  }
  return Uint8Array.from(out)
}

function readNode (bytes: Uint8Array, message: Field): GraphNode {
  const node: GraphNode = { ...span(message), inputs: [], outputs: [], opType: '', domain: '', ints: {}, strings: {} }
  const attributes: Field[] = []
  for (const field of fields(bytes, message.valueStart, message.valueEnd)) {
    if (field.wireType !== WIRE_BYTES) continue
    switch (field.number) {
      case NODE_INPUT: node.inputs.push(fieldString(bytes, field)); break
      case NODE_OUTPUT: node.outputs.push(fieldString(bytes, field)); break
      case NODE_OP_TYPE: node.opType = fieldString(bytes, field); break
      case NODE_DOMAIN: node.domain = fieldString(bytes, field); break
      case NODE_ATTRIBUTE: attributes.push(field); break
    }
  }
  // After the operator is known (a Constant's value is kept).
  for (const attribute of attributes) readAttribute(bytes, attribute, node)
  return node
}

/** Reads the model's graph. Throws ProtobufError when the bytes are not an ONNX model. */
export function readModelGraph (bytes: Uint8Array): ModelGraph {
  const model: ModelGraph = {
    bytes, modelFields: [], otherGraphFields: [], nodes: [], initializers: [], inputs: [], outputs: [], valueInfos: []
  }
  let graph: Field | undefined
  for (const field of fields(bytes)) {
    if (field.number === MODEL_GRAPH && field.wireType === WIRE_BYTES) graph = field
    else model.modelFields.push(span(field))
  }
  if (graph === undefined) throw new ProtobufError('The file holds no ONNX graph')
  for (const field of fields(bytes, graph.valueStart, graph.valueEnd)) {
    switch (field.number) {
      case GRAPH_NODE: model.nodes.push(readNode(bytes, field)); break
      case GRAPH_INITIALIZER: model.initializers.push({
        ...span(field), name: nameOf(bytes, field, TENSOR_NAME), intValue: readIntTensor(bytes, field.valueStart, field.valueEnd)
      }); break
      case GRAPH_INPUT: model.inputs.push({ ...span(field), name: nameOf(bytes, field, VALUE_INFO_NAME) }); break
      case GRAPH_OUTPUT: model.outputs.push({ ...span(field), name: nameOf(bytes, field, VALUE_INFO_NAME) }); break
      case GRAPH_VALUE_INFO: model.valueInfos.push({ ...span(field), name: nameOf(bytes, field, VALUE_INFO_NAME) }); break
      case GRAPH_SPARSE_INITIALIZER:
        // Never produced by Piper's exports; cutting one would need its name
        // from a nested message, so such models simply run whole.
        throw new ProtobufError('Sparse initializers are not supported by the decoder split')
      default: model.otherGraphFields.push(span(field))
    }
  }
  return model
}
