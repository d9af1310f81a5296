// Node's flags for a child process that runs the TypeScript sources: tsx in
// its main thread only (src/tsx-main-thread.mjs), as tap runs the tests.

import { join } from 'node:path'
import { PACKAGE_ROOT } from '../../src/package-root.js'

export const TSX_MAIN_THREAD = join(PACKAGE_ROOT, 'src/tsx-main-thread.mjs')
export const TSX_ARGS = ['--import', TSX_MAIN_THREAD]

/** `node ...args` for spawn or execFile, started through `/usr/bin/env -u
 * NODE_OPTIONS`: tap adds its processinfo preload to every child's
 * NODE_OPTIONS, whatever env the test passes, and its module hooks made a
 * child's start 2-3x slower (a user's shell has no such preload). */
export function nodeCommand (args: string[]): [file: string, args: string[]] {
  return ['/usr/bin/env', ['-u', 'NODE_OPTIONS', process.execPath, ...args]]
}
