// Where a whole answer waits for its last sentence: a whole WAV file carries
// its exact length in its header and Content-Length, so none of it can be
// sent before all of it is made. Up to the answer's share of memory
// (TTS_RESPONSE_BUFFER_BYTES, and only while the service's TTS_BUFFER_BYTES
// has room) its bytes stay in memory; the rest goes to an unlinked file in
// TTS_SPOOL_DIR, which the kernel frees when it is closed, whatever happens
// to the process. Silence is only counted, and made when it is read, so
// pauses cost neither memory nor disk. Read back in order, in pieces, at the
// reader's pace.

import { randomUUID } from 'node:crypto'
import { open, unlink, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import type { ByteBudget } from './byte-budget.js'
import { spoolFailed } from './errors.js'

/** Bytes handed to the reader at once. */
export const SPOOL_PIECE_BYTES = 64 * 1024

/** Read-only zeros that silence is cut from. */
const ZEROS = new Uint8Array(SPOOL_PIECE_BYTES)

type Part =
  | { kind: 'memory', bytes: Uint8Array }
  | { kind: 'file', start: number, length: number }
  | { kind: 'zeros', length: number }

export interface SpoolSettings {
  /** The most one answer keeps in memory. */
  memoryBytes: number
  /** Every response's buffered bytes together: memory is kept only while it has room. */
  budget: ByteBudget
  /** The folder of the spilled files. */
  dir: string
}

export class AnswerSpool {
  private readonly parts: Part[] = []
  private file: FileHandle | undefined
  private fileBytes = 0
  /** Bytes kept in memory, counted in the budget until read or closed. */
  private memoryBytes = 0
  private closed = false
  /** Every byte written, silence included. */
  length = 0

  constructor (private readonly settings: SpoolSettings) {}

  /** Bytes spilled to disk so far. */
  get spilledBytes (): number {
    return this.fileBytes
  }

  /** Keeps `bytes` (not copied: the caller hands them over), in memory while
   * the answer's share and the service's budget allow, else on disk. */
  async write (bytes: Uint8Array): Promise<void> {
    if (bytes.length === 0) return
    const { memoryBytes, budget } = this.settings
    if (this.memoryBytes + bytes.length <= memoryBytes && budget.tryTake(bytes.length)) {
      this.memoryBytes += bytes.length
      this.parts.push({ kind: 'memory', bytes })
    } else {
      const file = this.file ?? await this.openFile()
      const start = this.fileBytes
      await writeAll(file, bytes, start)
      this.fileBytes += bytes.length
      const last = this.parts.at(-1)
      if (last?.kind === 'file' && last.start + last.length === start) last.length += bytes.length
      else this.parts.push({ kind: 'file', start, length: bytes.length })
    }
    this.length += bytes.length
  }

  /** Counts `length` zero bytes: nothing is stored. */
  zeros (length: number): void {
    if (length <= 0) return
    const last = this.parts.at(-1)
    if (last?.kind === 'zeros') last.length += length
    else this.parts.push({ kind: 'zeros', length })
    this.length += length
  }

  /** The bytes in order, in pieces of at most SPOOL_PIECE_BYTES, each made
   * or read when asked for; memory goes back to the budget as it is read. */
  async * read (): AsyncGenerator<Uint8Array> {
    for (const part of this.parts.splice(0)) {
      if (part.kind === 'memory') {
        for (let at = 0; at < part.bytes.length; at += SPOOL_PIECE_BYTES) {
          const piece = part.bytes.subarray(at, at + SPOOL_PIECE_BYTES)
          // The reader's queue counts it from here.
          this.memoryBytes -= piece.length
          this.settings.budget.give(piece.length)
          yield piece
        }
      } else if (part.kind === 'zeros') {
        for (let left = part.length; left > 0; left -= SPOOL_PIECE_BYTES) yield ZEROS.subarray(0, Math.min(left, SPOOL_PIECE_BYTES))
      } else {
        for (let at = 0; at < part.length; at += SPOOL_PIECE_BYTES) yield await this.readFile(part.start + at, Math.min(SPOOL_PIECE_BYTES, part.length - at))
      }
    }
  }

  /** Frees what is left: the memory's budget and the file. Safe to call twice. */
  async close (): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.parts.length = 0
    this.settings.budget.give(this.memoryBytes)
    this.memoryBytes = 0
    await this.file?.close()
  }

  private async openFile (): Promise<FileHandle> {
    if (this.closed) throw new Error('The answer spool is closed')
    const path = join(this.settings.dir, `chorus-answer-${process.pid}-${randomUUID()}.pcm`)
    let file: FileHandle
    try {
      file = await open(path, 'wx+', 0o600)
    } catch (error) {
      throw spoolFailed(error)
    }
    try {
      // Unlinked at once: the file lives only as long as the handle.
      await unlink(path)
    } catch (error) {
      await file.close()
      throw spoolFailed(error)
    }
    this.file = file
    return file
  }

  private async readFile (position: number, length: number): Promise<Uint8Array> {
    const bytes = Buffer.allocUnsafe(length)
    let done = 0
    while (done < length) {
      const { bytesRead } = await (this.file as FileHandle).read(bytes, done, length - done, position + done)
      if (bytesRead === 0) throw spoolFailed(new Error(`the spooled file ended ${length - done} bytes early`))
      done += bytesRead
    }
    return bytes
  }
}

async function writeAll (file: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  let done = 0
  try {
    while (done < bytes.length) {
      const { bytesWritten } = await file.write(bytes, done, bytes.length - done, position + done)
      done += bytesWritten
    }
  } catch (error) {
    throw spoolFailed(error)
  }
}
