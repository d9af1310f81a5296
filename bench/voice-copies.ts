// The many-voices workload (--voices-count N): one model installed under N
// names in a folder of its own, so the service sees N distinct voices (N
// pools, N loads, evictions under a budget) while every request costs the
// same as on the one voice. Files are hard-linked where the file system
// allows it, copied otherwise.

import { copyFile, link, mkdir, rm } from 'node:fs/promises'
import { join } from 'node:path'

export interface VoiceCopies {
  dir: string
  names: string[]
  remove: () => Promise<void>
}

/** `en_US-bench-medium`, 3 → `en_US-bench_3-medium`: still a valid voice name, sorted by copy. */
export function copyName (name: string, index: number): string {
  const parts = name.split('-')
  parts[parts.length - 2] += `_${index}`
  return parts.join('-')
}

async function linkOrCopy (from: string, to: string): Promise<void> {
  try {
    await link(from, to)
  } catch {
    // Another file system, or one without hard links.
    await copyFile(from, to)
  }
}

/** `withSource`: the voice under its own name too, for runs that compare it with its copies. */
export async function makeVoiceCopies (sourceDir: string, voice: string, count: number, dir: string, withSource = false): Promise<VoiceCopies> {
  await rm(dir, { recursive: true, force: true })
  await mkdir(dir, { recursive: true })
  const names = Array.from({ length: count }, (_, i) => copyName(voice, i + 1))
  for (const name of withSource ? [voice, ...names] : names) {
    await linkOrCopy(join(sourceDir, `${voice}.onnx`), join(dir, `${name}.onnx`))
    await linkOrCopy(join(sourceDir, `${voice}.onnx.json`), join(dir, `${name}.onnx.json`))
  }
  return { dir, names, remove: async () => await rm(dir, { recursive: true, force: true }) }
}
