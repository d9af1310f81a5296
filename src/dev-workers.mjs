// Worker threads started from the TypeScript sources (tests, tsx) need their
// modules compiled, and registering tsx in each thread compiles them again
// in every thread. scripts/build-dev-workers.ts
// bundles each worker entry ahead of time into the git-ignored .dev-workers/,
// beside a manifest that lists every file the bundle was built from with a
// hash of their contents. A thread runs the bundle only while every one of
// those files still hashes the same; otherwise it registers tsx and imports
// the sources, so what runs is always the current source. The built package
// starts its compiled .js workers and never loads this file.
//
// tap's `before` step runs with coverage on (the tests themselves do not), and
// tap fails a run whose coverage is incomplete: test support is left out.
/* c8 ignore start */

import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const SOURCE_ROOT = fileURLToPath(new URL('..', import.meta.url))
export const BUNDLE_DIR = join(SOURCE_ROOT, '.dev-workers')

/** Where the manifest of the entry at `entryPath` (absolute) lives. */
export function manifestPath (entryPath) {
  return join(BUNDLE_DIR, `${relative(SOURCE_ROOT, entryPath)}.json`)
}

/** A hash of `files` (paths relative to SOURCE_ROOT) and their contents;
 * `read` gives a file's bytes (the builder passes what it bundled). The
 * root counts too: a bundle holds its sources' absolute URLs, so a copied
 * or moved tree builds its own. */
export function sourcesHash (files, read = file => readFileSync(join(SOURCE_ROOT, file))) {
  const hash = createHash('sha256').update(`${SOURCE_ROOT}\0`)
  for (const file of files) {
    const bytes = read(file)
    hash.update(`${file}\0${bytes.length}\0`).update(bytes)
  }
  return hash.digest('hex')
}

/** The bundle's URL when its manifest vouches for the current sources, else undefined. */
export function freshBundle (entryPath) {
  try {
    const manifest = JSON.parse(readFileSync(manifestPath(entryPath), 'utf8'))
    if (sourcesHash(manifest.sources) !== manifest.hash) return undefined
    return pathToFileURL(join(BUNDLE_DIR, manifest.bundle)).href
  } catch {
    // No manifest yet, or a source it lists is gone: the sources decide.
    return undefined
  }
}

/** Imports the worker entry `entryUrl` (a .ts file's URL): its bundle when fresh, else through tsx. */
export async function importWorker (entryUrl) {
  const bundle = freshBundle(fileURLToPath(entryUrl))
  if (bundle !== undefined) {
    // The bundle's inline source map gives stacks the sources' files and lines, as tsx does.
    process.setSourceMapsEnabled(true)
    return await import(bundle)
  }
  const { register } = await import('tsx/esm/api')
  register()
  return await import(entryUrl)
}
/* c8 ignore stop */
