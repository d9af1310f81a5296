// The model's phoneme table: the embedding the phoneme ids index (a Gather
// of the text encoder whose indices are the `input` ids), whose first
// dimension is the number of symbols the model knows. A config whose
// num_symbols or phoneme ids pass it would make every run fail, or worse,
// so the folder scan compares them before the voice is offered. The table's
// shape is read from the file's fields without its weights: the nodes and
// the initializers' headers, with bounded reads (file-fields.ts).

import { open } from 'node:fs/promises'
import { basename } from 'node:path'
import { expectedMessage } from '../../validate.js'
import type { VoiceConfig } from '../voice-config.js'
import { FileFields, WalkLimitError, type FileField, type ReadLimits } from './file-fields.js'
import {
  ATTRIBUTE_NAME, ATTRIBUTE_TENSOR, GRAPH_INITIALIZER, GRAPH_NODE, MODEL_GRAPH, NODE_ATTRIBUTE, NODE_INPUT, NODE_OP_TYPE,
  NODE_OUTPUT, TENSOR_DIMS, TENSOR_NAME
} from './onnx-proto.js'
import { fields, ProtobufError, WIRE_BYTES, WIRE_VARINT } from './protobuf.js'

/** The graph input that carries the phoneme ids (Piper's signature). */
const IDS_INPUT = 'input'
/** Identity nodes followed from the Gather back to the table, at most. */
const MAX_IDENTITY_HOPS = 8
/** Enough for any real model's nodes and initializer headers many times over. */
export const TABLE_READ_LIMITS: ReadLimits = { bytes: 64 * 1024 * 1024, fields: 4_000_000 }

interface GraphFacts {
  /** The first input of each Gather whose indices are the ids. */
  tables: string[]
  /** Identity nodes: output → input. */
  identities: Map<string, string>
  /** The shapes of initializers and Constant nodes' values, by name. */
  shapes: Map<string, number[]>
}

/** A TensorProto's dims and name, its data skipped. */
async function tensorHeader (file: FileFields, start: number, end: number): Promise<{ name: string, dims: number[] }> {
  let name = ''
  const dims: number[] = []
  for await (const field of file.fields(start, end)) {
    if (field.number === TENSOR_NAME && field.wireType === WIRE_BYTES) name = await file.string(field)
    else if (field.number === TENSOR_DIMS && field.wireType === WIRE_VARINT) dims.push(field.varint)
    else if (field.number === TENSOR_DIMS && field.wireType === WIRE_BYTES) {
      // Packed: a run of varints, re-read as fields of number 1.
      const packed = await file.bytes(field.valueStart, field.valueEnd)
      const tagged = new Uint8Array(packed.length * 2)
      let length = 0
      for (let i = 0; i < packed.length; i++) {
        if (i === 0 || (packed[i - 1] & 0x80) === 0) tagged[length++] = 1 << 3
        tagged[length++] = packed[i]
      }
      for (const value of fields(tagged.subarray(0, length))) dims.push(value.varint)
    }
  }
  return { name, dims }
}

/** A Constant node's value's shape, when its attribute is a tensor named `value`. */
async function constantShape (file: FileFields, attribute: FileField): Promise<number[] | undefined> {
  let name = ''
  let tensor: FileField | undefined
  for await (const field of file.fields(attribute.valueStart, attribute.valueEnd)) {
    if (field.number === ATTRIBUTE_NAME && field.wireType === WIRE_BYTES) name = await file.string(field)
    else if (field.number === ATTRIBUTE_TENSOR && field.wireType === WIRE_BYTES) tensor = field
  }
  return name === 'value' && tensor !== undefined ? (await tensorHeader(file, tensor.valueStart, tensor.valueEnd)).dims : undefined
}

async function readNode (file: FileFields, node: FileField, facts: GraphFacts): Promise<void> {
  const inputs: string[] = []
  const outputs: string[] = []
  const attributes: FileField[] = []
  let opType = ''
  for await (const field of file.fields(node.valueStart, node.valueEnd)) {
    if (field.wireType !== WIRE_BYTES) continue
    if (field.number === NODE_INPUT) inputs.push(await file.string(field))
    else if (field.number === NODE_OUTPUT) outputs.push(await file.string(field))
    else if (field.number === NODE_OP_TYPE) opType = await file.string(field)
    else if (field.number === NODE_ATTRIBUTE) attributes.push(field)
  }
  if (opType === 'Gather' && inputs[1] === IDS_INPUT) facts.tables.push(inputs[0])
  else if (opType === 'Identity' && inputs.length === 1 && outputs.length === 1) facts.identities.set(outputs[0], inputs[0])
  else if (opType === 'Constant' && outputs.length === 1) {
    for (const attribute of attributes) {
      const dims = await constantShape(file, attribute)
      if (dims !== undefined) facts.shapes.set(outputs[0], dims)
    }
  }
}

async function graphFacts (file: FileFields, size: number): Promise<GraphFacts | undefined> {
  let graph: FileField | undefined
  for await (const field of file.fields(0, size)) {
    if (field.number === MODEL_GRAPH && field.wireType === WIRE_BYTES) graph = field
  }
  if (graph === undefined) return undefined
  const facts: GraphFacts = { tables: [], identities: new Map(), shapes: new Map() }
  for await (const field of file.fields(graph.valueStart, graph.valueEnd)) {
    if (field.wireType !== WIRE_BYTES) continue
    if (field.number === GRAPH_NODE) await readNode(file, field, facts)
    else if (field.number === GRAPH_INITIALIZER) {
      const { name, dims } = await tensorHeader(file, field.valueStart, field.valueEnd)
      facts.shapes.set(name, dims)
    }
  }
  return facts
}

/**
 * The rows of the model's phoneme table, read from the file at `path` (of
 * `size` bytes) without its weights; undefined when the model has no table
 * to compare with (a graph that does not embed its ids, or one too large
 * to walk within `limits`). Throws ProtobufError when the file's
 * fields are malformed.
 */
export async function phonemeTableRows (path: string, size: number, limits = TABLE_READ_LIMITS): Promise<number | undefined> {
  const handle = await open(path, 'r')
  try {
    const facts = await graphFacts(new FileFields(handle, size, limits), size)
    const tables = new Set(facts?.tables)
    if (facts === undefined || tables.size !== 1) return undefined
    let table = [...tables][0]
    for (let hop = 0; hop < MAX_IDENTITY_HOPS && facts.identities.has(table); hop++) table = facts.identities.get(table) as string
    const dims = facts.shapes.get(table)
    return dims?.length === 2 && dims[0] > 0 ? dims[0] : undefined
  } catch (error) {
    if (error instanceof WalkLimitError) return undefined
    throw error
  } finally {
    await handle.close()
  }
}

/**
 * Why `config` (read from `configFile`) does not fit a model whose phoneme
 * table has `rows` rows, or undefined when it does: num_symbols may not pass
 * the table, nor may any phoneme id reach past its last row.
 */
export function symbolsProblem (config: VoiceConfig, rows: number, configFile: string): string | undefined {
  const where = `${basename(configFile)} (the model's phoneme table has ${rows} rows)`
  if (config.numSymbols !== undefined && config.numSymbols > rows) {
    return `${expectedMessage(`at most ${rows}`, 'num_symbols', config.numSymbols)} in ${where}`
  }
  for (const [phoneme, ids] of Object.entries(config.phonemeIdMap)) {
    const outside = ids.find(id => id >= rows)
    if (outside !== undefined) return `${expectedMessage(`ids below ${rows}`, `phoneme_id_map[${JSON.stringify(phoneme)}]`, outside)} in ${where}`
  }
  return undefined
}

/**
 * Why the voice of `config` and the model at `modelPath` cannot work
 * together, or undefined: the model's fields are malformed, or the config
 * does not fit its phoneme table (symbolsProblem). A model without a table
 * to compare with passes.
 */
export async function phonemeTableProblem (modelPath: string, size: number, config: VoiceConfig, configFile: string): Promise<string | undefined> {
  let rows: number | undefined
  try {
    rows = await phonemeTableRows(modelPath, size)
  } catch (error) {
    if (error instanceof ProtobufError) return `${basename(modelPath)}: the file is not an ONNX model (${error.message})`
    throw error
  }
  return rows === undefined ? undefined : symbolsProblem(config, rows, configFile)
}
