// Builds small ONNX models in memory: enough of onnx.proto (ModelProto,
// GraphProto, NodeProto, TensorProto, ValueInfoProto) to describe graphs of
// standard operators with float and int64 tensors.

import { ProtoWriter } from './protobuf-writer.js'

export const TensorType = { FLOAT: 1, INT64: 7 } as const
export type TensorElementType = typeof TensorType[keyof typeof TensorType]

/** A dimension: a fixed size or a symbolic name. */
export type Dim = number | string

export interface ValueInfo {
  name: string
  type: TensorElementType
  shape: Dim[]
}

export interface Initializer {
  name: string
  type: TensorElementType
  dims: number[]
  values: Float32Array | bigint[]
}

export type AttributeValue =
  | { kind: 'int', value: number }
  | { kind: 'ints', value: number[] }
  | { kind: 'float', value: number }
  | { kind: 'tensor', value: Initializer }

export interface Node {
  opType: string
  inputs: string[]
  outputs: string[]
  attributes?: Record<string, AttributeValue>
}

export interface Graph {
  name: string
  nodes: Node[]
  initializers: Initializer[]
  inputs: ValueInfo[]
  outputs: ValueInfo[]
}

// AttributeProto.AttributeType values.
const AttributeType = { FLOAT: 1, INT: 2, TENSOR: 4, INTS: 7 } as const

function writeTensor (w: ProtoWriter, tensor: Initializer): void {
  for (const dim of tensor.dims) w.varint(1, dim)
  w.varint(2, tensor.type)
  w.string(8, tensor.name)
  if (tensor.values instanceof Float32Array) {
    // raw_data: little-endian, as ONNX requires.
    const bytes = new Uint8Array(tensor.values.length * 4)
    const view = new DataView(bytes.buffer)
    tensor.values.forEach((v, i) => view.setFloat32(i * 4, v, true))
    w.bytes(9, bytes)
  } else {
    w.packedInt64(7, tensor.values)
  }
}

function writeValueInfo (w: ProtoWriter, info: ValueInfo): void {
  w.string(1, info.name)
  w.message(2, type => type.message(1, tensorType => {
    tensorType.varint(1, info.type)
    tensorType.message(2, shape => {
      for (const dim of info.shape) {
        shape.message(1, d => typeof dim === 'number' ? d.varint(1, dim) : d.string(2, dim))
      }
    })
  }))
}

function writeAttribute (w: ProtoWriter, name: string, attribute: AttributeValue): void {
  w.string(1, name)
  switch (attribute.kind) {
    case 'int':
      w.varint(3, attribute.value).varint(20, AttributeType.INT)
      break
    case 'ints':
      for (const v of attribute.value) w.varint(8, v)
      w.varint(20, AttributeType.INTS)
      break
    case 'float':
      w.float32(2, attribute.value).varint(20, AttributeType.FLOAT)
      break
    case 'tensor':
      w.message(5, t => writeTensor(t, attribute.value)).varint(20, AttributeType.TENSOR)
      break
  }
}

function writeNode (w: ProtoWriter, node: Node, index: number): void {
  for (const input of node.inputs) w.string(1, input)
  for (const output of node.outputs) w.string(2, output)
  w.string(3, `${node.opType}_${index}`)
  w.string(4, node.opType)
  for (const [name, attribute] of Object.entries(node.attributes ?? {})) {
    w.message(5, a => writeAttribute(a, name, attribute))
  }
}

/** Serialises a model with the default-domain opset `opset`. */
export function encodeModel (graph: Graph, opset: number, producer: string): Uint8Array {
  const model = new ProtoWriter()
  model.varint(1, 8) // ir_version 8 (ONNX 1.10+), understood by every current runtime
  model.string(2, producer)
  model.message(7, g => {
    graph.nodes.forEach((node, i) => g.message(1, n => writeNode(n, node, i)))
    g.string(2, graph.name)
    for (const init of graph.initializers) g.message(5, t => writeTensor(t, init))
    for (const input of graph.inputs) g.message(11, v => writeValueInfo(v, input))
    for (const output of graph.outputs) g.message(12, v => writeValueInfo(v, output))
  })
  model.message(8, o => o.string(1, '').varint(2, opset))
  return model.finish()
}
