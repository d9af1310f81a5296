// A minimal protocol-buffers encoder: just the wire types the ONNX model
// writer needs (varints, length-delimited bytes and nested messages, packed
// repeated numbers). Field numbers come from onnx.proto.

export class ProtoWriter {
  private readonly chunks: Uint8Array[] = []

  private raw (bytes: Uint8Array): this {
    this.chunks.push(bytes)
    return this
  }

  private varintBytes (value: bigint): Uint8Array {
    // Negative int64 values are encoded as their two's complement (10 bytes).
    let v = BigInt.asUintN(64, value)
    const out: number[] = []
    do {
      let byte = Number(v & 0x7fn)
      v >>= 7n
      if (v !== 0n) byte |= 0x80
      out.push(byte)
    } while (v !== 0n)
    return Uint8Array.from(out)
  }

  private tag (field: number, wireType: number): this {
    return this.raw(this.varintBytes(BigInt((field << 3) | wireType)))
  }

  varint (field: number, value: number | bigint): this {
    return this.tag(field, 0).raw(this.varintBytes(BigInt(value)))
  }

  bytes (field: number, value: Uint8Array): this {
    return this.tag(field, 2).raw(this.varintBytes(BigInt(value.length))).raw(value)
  }

  string (field: number, value: string): this {
    return this.bytes(field, new TextEncoder().encode(value))
  }

  message (field: number, build: (writer: ProtoWriter) => void): this {
    const nested = new ProtoWriter()
    build(nested)
    return this.bytes(field, nested.finish())
  }

  float32 (field: number, value: number): this {
    const buffer = new Uint8Array(4)
    new DataView(buffer.buffer).setFloat32(0, value, true)
    return this.tag(field, 5).raw(buffer)
  }

  packedInt64 (field: number, values: readonly (number | bigint)[]): this {
    const body = new ProtoWriter()
    for (const value of values) body.raw(body.varintBytes(BigInt(value)))
    return this.bytes(field, body.finish())
  }

  finish (): Uint8Array {
    const length = this.chunks.reduce((sum, chunk) => sum + chunk.length, 0)
    const out = new Uint8Array(length)
    let offset = 0
    for (const chunk of this.chunks) {
      out.set(chunk, offset)
      offset += chunk.length
    }
    return out
  }
}
