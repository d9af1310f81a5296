// An ONNX model read as far as cutting it needs: the graph's nodes (their
// inputs, outputs, operator and integer-list attributes), the names of its
// initializers, inputs and outputs, each with the byte range of its message so
// it can be written back unchanged. Field numbers are onnx.proto's.

import { fields, fieldString, ProtobufError, WIRE_BYTES, WIRE_VARINT, type Field } from './protobuf.js'

const MODEL_GRAPH = 7
const GRAPH_NODE = 1
const GRAPH_INITIALIZER = 5
const GRAPH_INPUT = 11
const GRAPH_OUTPUT = 12
const GRAPH_VALUE_INFO = 13
const GRAPH_SPARSE_INITIALIZER = 15
const NODE_INPUT = 1
const NODE_OUTPUT = 2
const NODE_OP_TYPE = 4
const NODE_ATTRIBUTE = 5
const NODE_DOMAIN = 7
const ATTRIBUTE_NAME = 1
const ATTRIBUTE_INTS = 8
const TENSOR_NAME = 8
const VALUE_INFO_NAME = 1

export interface Span {
  start: number
  end: number
}

export interface GraphNode extends Span {
  inputs: string[]
  outputs: string[]
  opType: string
  domain: string
  /** Integer-list attributes (strides, dilations, kernel_shape, …). */
  ints: Record<string, number[]>
}

export interface NamedSpan extends Span {
  name: string
}

export interface ModelGraph {
  bytes: Uint8Array
  /** The ModelProto's fields other than the graph (opsets, IR version, …). */
  modelFields: Span[]
  /** The graph's fields that are neither nodes, initializers, inputs, outputs nor value infos. */
  otherGraphFields: Span[]
  nodes: GraphNode[]
  initializers: NamedSpan[]
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

function readInts (bytes: Uint8Array, attribute: Field): { name: string, values: number[] } {
  let name = ''
  const values: number[] = []
  for (const field of fields(bytes, attribute.valueStart, attribute.valueEnd)) {
    if (field.number === ATTRIBUTE_NAME && field.wireType === WIRE_BYTES) name = fieldString(bytes, field)
    else if (field.number === ATTRIBUTE_INTS && field.wireType === WIRE_VARINT) values.push(field.varint)
    else if (field.number === ATTRIBUTE_INTS && field.wireType === WIRE_BYTES) {
      // Packed: a run of varints.
      for (const v of fields(packedAsFields(bytes, field))) values.push(v.varint)
    }
  }
  return { name, values }
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
  const node: GraphNode = { ...span(message), inputs: [], outputs: [], opType: '', domain: '', ints: {} }
  for (const field of fields(bytes, message.valueStart, message.valueEnd)) {
    if (field.wireType !== WIRE_BYTES) continue
    switch (field.number) {
      case NODE_INPUT: node.inputs.push(fieldString(bytes, field)); break
      case NODE_OUTPUT: node.outputs.push(fieldString(bytes, field)); break
      case NODE_OP_TYPE: node.opType = fieldString(bytes, field); break
      case NODE_DOMAIN: node.domain = fieldString(bytes, field); break
      case NODE_ATTRIBUTE: {
        const { name, values } = readInts(bytes, field)
        if (values.length > 0) node.ints[name] = values
        break
      }
    }
  }
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
      case GRAPH_INITIALIZER: model.initializers.push({ ...span(field), name: nameOf(bytes, field, TENSOR_NAME) }); break
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
