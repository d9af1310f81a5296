// The `chorus` command as tests start it, a child process: node on the
// command's bundle while it is current (scripts/build-dev-workers.ts; tap's
// before step makes it), else through tsx from the sources, so what runs is
// always the current source; from the bundle a start costs a few hundred ms
// less, and the CLI tests start the command dozens of times. Without tap's
// preload (nodeCommand).

import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { importSource } from './source-tree.js'
import { nodeCommand, TSX_ARGS } from './tsx.js'

const { freshBundle } = await importSource<typeof import('../../src/dev-workers.mjs')>('src/dev-workers.mjs')

export const BIN = join(PACKAGE_ROOT, 'src/bin.cts')

/** The file and arguments that run `chorus ...args`, for spawn or execFile. */
export function chorusCommand (args: string[]): [file: string, args: string[]] {
  // The harness is imported by a URL computed at run time (src/cli.ts), which
  // a bundle cannot follow to TypeScript: `chorus bench` runs from the sources.
  const bundle = args[0] === 'bench' ? undefined : freshBundle(BIN)
  const node = bundle === undefined ? [...TSX_ARGS, BIN] : [fileURLToPath(bundle)]
  return nodeCommand([...node, ...args])
}
