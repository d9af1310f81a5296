// onnx.proto's field numbers, for the messages Chorus reads and writes, and
// the two messages it writes itself: a float tensor's value info and a model
// around a graph of its making. One place, so that the reader
// (model-graph.ts) and the writers (decoder-split.ts, encoder-template.ts)
// cannot disagree.

import { bytesField, bytesFieldHeader, concat, stringField, varintField } from './protobuf.js'

// ModelProto
export const MODEL_IR_VERSION = 1
export const MODEL_GRAPH = 7
export const MODEL_OPSET_IMPORT = 8
// OperatorSetIdProto
export const OPSET_DOMAIN = 1
export const OPSET_VERSION = 2
// GraphProto
export const GRAPH_NODE = 1
export const GRAPH_NAME = 2
export const GRAPH_INITIALIZER = 5
export const GRAPH_INPUT = 11
export const GRAPH_OUTPUT = 12
export const GRAPH_VALUE_INFO = 13
export const GRAPH_SPARSE_INITIALIZER = 15
// NodeProto
export const NODE_INPUT = 1
export const NODE_OUTPUT = 2
export const NODE_OP_TYPE = 4
export const NODE_ATTRIBUTE = 5
export const NODE_DOMAIN = 7
// AttributeProto
export const ATTRIBUTE_NAME = 1
export const ATTRIBUTE_INT = 3
export const ATTRIBUTE_STRING = 4
export const ATTRIBUTE_TENSOR = 5
export const ATTRIBUTE_INTS = 8
export const ATTRIBUTE_TYPE = 20
export const ATTRIBUTE_TYPE_INT = 2
export const ATTRIBUTE_TYPE_INTS = 7
// TensorProto, and its DataType values
export const TENSOR_DIMS = 1
export const TENSOR_DATA_TYPE = 2
export const TENSOR_FLOAT_DATA = 4
export const TENSOR_INT32_DATA = 5
export const TENSOR_INT64_DATA = 7
export const TENSOR_NAME = 8
export const TENSOR_RAW_DATA = 9
export const TYPE_FLOAT = 1
export const TYPE_INT32 = 6
export const TYPE_INT64 = 7
// ValueInfoProto, TypeProto, TypeProto.Tensor, TensorShapeProto and its Dimension
export const VALUE_INFO_NAME = 1
const VALUE_INFO_TYPE = 2
const TYPE_TENSOR = 1
const TENSOR_TYPE_ELEM = 1
const TENSOR_TYPE_SHAPE = 2
const SHAPE_DIM = 1
const DIM_VALUE = 1

/** A ValueInfoProto of a float tensor: of the shape `dims`, or, without
 * them, of a shape left for ONNX Runtime to infer. */
export function floatValueInfo (name: string, dims?: readonly number[]): Uint8Array {
  const type = [varintField(TENSOR_TYPE_ELEM, TYPE_FLOAT)]
  if (dims !== undefined) {
    type.push(bytesField(TENSOR_TYPE_SHAPE, concat(dims.map(d => bytesField(SHAPE_DIM, varintField(DIM_VALUE, d))))))
  }
  return concat([stringField(VALUE_INFO_NAME, name), bytesField(VALUE_INFO_TYPE, bytesField(TYPE_TENSOR, concat(type)))])
}

/** A ModelProto: the model's own fields as they were read, around a graph
 * made of `graphParts` (GraphProto fields, each already encoded). */
export function modelWithGraph (modelFields: readonly Uint8Array[], graphParts: readonly Uint8Array[]): Uint8Array {
  const length = graphParts.reduce((sum, part) => sum + part.length, 0)
  return concat([...modelFields, bytesFieldHeader(MODEL_GRAPH, length), ...graphParts])
}
