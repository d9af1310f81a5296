// Builds an ONNX graph node by node, the way a traced export names it:
// every tensor is `/<scope>/<Op>_<n>_output_0`, small constants are Constant
// nodes, weights are initializers named for the module that holds them.
// Weights are pseudo-random from one seeded generator, drawn in the order
// they are declared, so a model is the same bytes on every run and machine.

import { TensorType, type AttributeValue, type Graph, type Initializer, type Node, type ValueInfo } from './onnx-writer.js'

/** Past-the-end for Slice bounds: ONNX clamps it to the axis length. */
export const TO_END = 2 ** 53 - 1

export type Attributes = Record<string, AttributeValue>

export const ints = (value: number[]): AttributeValue => ({ kind: 'ints', value })
export const int = (value: number): AttributeValue => ({ kind: 'int', value })
export const float = (value: number): AttributeValue => ({ kind: 'float', value })

/** Two xorshift32 streams summed: fast, and plenty for weights that only need to look random. */
class Random {
  private s0: bigint
  private s1: bigint

  constructor (seed: number) {
    this.s0 = BigInt.asUintN(64, BigInt(seed) * 0x9e3779b97f4a7c15n + 1n)
    this.s1 = BigInt.asUintN(64, this.s0 * 0xbf58476d1ce4e5b9n + 7n)
  }

  /** Fills `out` with uniform values in [-bound, bound). */
  fill (out: Float32Array, bound: number): void {
    // 32-bit halves of the state in plain numbers: BigInt per value would
    // make a 20 M-weight voice take seconds.
    let a = Number(this.s0 & 0xffffffffn) | 1
    let b = Number(this.s1 & 0xffffffffn) | 1
    for (let i = 0; i < out.length; i++) {
      a ^= a << 13; a ^= a >>> 17; a ^= a << 5
      b ^= b << 17; b ^= b >>> 7; b ^= b << 9
      out[i] = (((a + b) >>> 0) / 2 ** 31 - 1) * bound
    }
    this.s0 = BigInt(a >>> 0)
    this.s1 = BigInt(b >>> 0)
  }
}

export class GraphBuilder {
  readonly nodes: Node[] = []
  readonly initializers: Initializer[] = []
  private readonly counts = new Map<string, number>()
  private readonly random: Random
  private scopes: string[] = []

  constructor (seed: number) {
    this.random = new Random(seed)
  }

  /** Runs `build` with `name` appended to the scope of the tensors it makes. */
  scope<T> (name: string, build: () => T): T {
    this.scopes.push(name)
    try {
      return build()
    } finally {
      this.scopes.pop()
    }
  }

  private fresh (opType: string): string {
    const prefix = `/${this.scopes.join('/')}${this.scopes.length > 0 ? '/' : ''}${opType}`
    const n = this.counts.get(prefix) ?? 0
    this.counts.set(prefix, n + 1)
    return n === 0 ? prefix : `${prefix}_${n}`
  }

  /** Adds a node with `outputs` results; returns their names. */
  node (opType: string, inputs: string[], attributes?: Attributes, outputs = 1): string[] {
    const base = this.fresh(opType)
    const names = Array.from({ length: outputs }, (_, i) => `${base}_output_${i}`)
    this.nodes.push({ opType, inputs, outputs: names, attributes })
    return names
  }

  op (opType: string, inputs: string[], attributes?: Attributes): string {
    return this.node(opType, inputs, attributes)[0]
  }

  /** A node whose single output has a given name (a graph output). */
  named (name: string, opType: string, inputs: string[], attributes?: Attributes): string {
    this.nodes.push({ opType, inputs, outputs: [name], attributes })
    return name
  }

  private constant (value: Initializer): string {
    return this.op('Constant', [], { value: { kind: 'tensor', value } })
  }

  /** An int64 constant: a 1-D tensor, or a scalar when `scalar`. */
  i64 (values: number[], scalar = false): string {
    return this.constant({ name: '', type: TensorType.INT64, dims: scalar ? [] : [values.length], values: values.map(BigInt) })
  }

  f32 (values: number[], scalar = false): string {
    return this.constant({ name: '', type: TensorType.FLOAT, dims: scalar ? [] : [values.length], values: Float32Array.from(values) })
  }

  /** A weight of uniform random values in ±bound. */
  weight (name: string, dims: number[], bound: number): string {
    const values = new Float32Array(dims.reduce((a, b) => a * b, 1))
    this.random.fill(values, bound)
    this.initializers.push({ name, type: TensorType.FLOAT, dims, values })
    return name
  }

  /** A weight of fixed values (layer-norm gains and offsets, calibration). */
  fixed (name: string, dims: number[], value: number | number[]): string {
    const count = dims.reduce((a, b) => a * b, 1)
    const values = typeof value === 'number' ? new Float32Array(count).fill(value) : Float32Array.from(value)
    this.initializers.push({ name, type: TensorType.FLOAT, dims, values })
    return name
  }

  graph (name: string, inputs: ValueInfo[], outputs: ValueInfo[]): Graph {
    return { name, nodes: this.nodes, initializers: this.initializers, inputs, outputs }
  }
}
