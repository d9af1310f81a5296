// What the graph rewrites (conv-lift.ts, relative-attention.ts) share:
// writing a node or a small integer constant, a name no tensor has yet, the
// opset a model imports, and who makes and who reads each tensor.

import { bytesField, concat, fields, fieldString, stringField, varintField, WIRE_BYTES, WIRE_VARINT } from './protobuf.js'
import type { ModelGraph } from './model-graph.js'
import {
  ATTRIBUTE_INT, ATTRIBUTE_INTS, ATTRIBUTE_NAME, ATTRIBUTE_TYPE, ATTRIBUTE_TYPE_INT, ATTRIBUTE_TYPE_INTS, GRAPH_INITIALIZER, GRAPH_NODE, MODEL_OPSET_IMPORT, NODE_ATTRIBUTE,
  NODE_INPUT, NODE_OP_TYPE, NODE_OUTPUT, OPSET_DOMAIN, OPSET_VERSION, TENSOR_DATA_TYPE, TENSOR_DIMS, TENSOR_NAME, TENSOR_RAW_DATA, TYPE_INT64
} from './onnx-proto.js'

/** The default domain's opset the model imports (0 when it names none). */
export function defaultOpset (graph: ModelGraph): number {
  const { bytes } = graph
  for (const span of graph.modelFields) {
    const field = fields(bytes, span.start, span.end).next().value
    if (field === undefined || field.number !== MODEL_OPSET_IMPORT || field.wireType !== WIRE_BYTES) continue
    let domain = ''
    let version = 0
    for (const f of fields(bytes, field.valueStart, field.valueEnd)) {
      if (f.number === OPSET_DOMAIN && f.wireType === WIRE_BYTES) domain = fieldString(bytes, f)
      else if (f.number === OPSET_VERSION && f.wireType === WIRE_VARINT) version = f.varint
    }
    if (domain === '' || domain === 'ai.onnx') return version
  }
  return 0
}

export function intsAttribute (name: string, values: number[]): Uint8Array {
  return bytesField(NODE_ATTRIBUTE, concat([
    stringField(ATTRIBUTE_NAME, name), ...values.map(v => varintField(ATTRIBUTE_INTS, v)), varintField(ATTRIBUTE_TYPE, ATTRIBUTE_TYPE_INTS)
  ]))
}

export function intAttribute (name: string, value: number): Uint8Array {
  return bytesField(NODE_ATTRIBUTE, concat([stringField(ATTRIBUTE_NAME, name), varintField(ATTRIBUTE_INT, value), varintField(ATTRIBUTE_TYPE, ATTRIBUTE_TYPE_INT)]))
}

/** A NodeProto of the default domain, as a GraphProto field. */
export function nodeMessage (opType: string, inputs: string[], outputs: string[], attributes: Uint8Array[] = []): Uint8Array {
  return bytesField(GRAPH_NODE, concat([
    ...inputs.map(i => stringField(NODE_INPUT, i)), ...outputs.map(o => stringField(NODE_OUTPUT, o)),
    stringField(NODE_OP_TYPE, opType), ...attributes
  ]))
}

/** An int64 initializer of one dimension, as a GraphProto field. */
export function int64Initializer (name: string, values: readonly number[]): Uint8Array {
  const raw = new Uint8Array(8 * values.length)
  const view = new DataView(raw.buffer)
  values.forEach((value, i) => view.setBigInt64(8 * i, BigInt(value), true))
  return bytesField(GRAPH_INITIALIZER, concat([
    varintField(TENSOR_DIMS, values.length), varintField(TENSOR_DATA_TYPE, TYPE_INT64), stringField(TENSOR_NAME, name), bytesField(TENSOR_RAW_DATA, raw)
  ]))
}

/** Every name a tensor of the graph has: inputs, initializers and node outputs and inputs. */
export function tensorNames (graph: ModelGraph): Set<string> {
  return new Set<string>([
    ...graph.nodes.flatMap(n => [...n.inputs, ...n.outputs]), ...graph.initializers.map(i => i.name), ...graph.inputs.map(i => i.name)
  ])
}

/** A name no tensor of the graph has, then taken. */
export function freshName (taken: Set<string>, base: string): string {
  let name = base
  for (let n = 1; taken.has(name); n++) name = `${base}_${n}`
  taken.add(name)
  return name
}

/** The node making each tensor, and the nodes reading it (graph outputs count as a reader, -1). */
export interface GraphLinks {
  producer: Map<string, number>
  readers: Map<string, number[]>
}

export function graphLinks (graph: ModelGraph): GraphLinks {
  const producer = new Map<string, number>()
  const readers = new Map<string, number[]>()
  const read = (name: string, by: number) => {
    const list = readers.get(name)
    if (list === undefined) readers.set(name, [by])
    else list.push(by)
  }
  graph.nodes.forEach((node, index) => {
    node.outputs.forEach(output => producer.set(output, index))
    node.inputs.forEach(input => { if (input !== '') read(input, index) })
  })
  graph.outputs.forEach(output => read(output.name, -1))
  return { producer, readers }
}
