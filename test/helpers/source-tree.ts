// Where the test sources are. `npm test` runs the test files compiled into
// dist/test; `npx tap test/x.test.ts` runs them from the sources. Files only
// the source tree has (TypeScript entries a child or worker loads through
// tsx, .mjs fixtures, data) are found from the package root, never from the
// running file's own URL, so both ways find the same files.

import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PACKAGE_ROOT } from '../../src/package-root.js'

const TEST_ROOT = join(PACKAGE_ROOT, 'test')

/** The absolute path of `relative` (to test/) in the source tree. */
export function testSource (relative: string): string {
  return join(TEST_ROOT, relative)
}

/** The file URL of `relative` (to test/) in the source tree. */
export function testSourceUrl (relative: string): URL {
  return pathToFileURL(testSource(relative))
}

/** Imports a module from the source tree, `fromRoot` relative to the
 * package root: an .mjs file (tsc copies none into dist), or TypeScript that
 * must run as source (a compiled test then registers tsx for it). T is its
 * type, given as `typeof import('…')`, which compiles to nothing. */
export async function importSource<T> (fromRoot: string): Promise<T> {
  if (COMPILED && /\.[cm]?ts$/.test(fromRoot)) await tsxRegistered()
  return await import(pathToFileURL(join(PACKAGE_ROOT, fromRoot)).href) as T
}

/** This file runs compiled (dist/test), without tsx in the process. */
const COMPILED = import.meta.url.endsWith('.js')
let registration: Promise<void> | undefined

async function tsxRegistered (): Promise<void> {
  registration ??= import('tsx/esm/api').then(api => { api.register() })
  await registration
}
