// The `chorus` command as tests start it, a child process: node on the
// command's bundle while it is current (scripts/build-dev-workers.ts; tap's
// before step makes it), else through tsx from the sources, so what runs is
// always the current source. From the bundle a start costs a few hundred ms
// less, and the CLI tests start the command dozens of times.

import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freshBundle } from '../../src/dev-workers.mjs'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { TSX_ARGS } from './tsx.js'

export const BIN = join(PACKAGE_ROOT, 'src/bin.cts')

/** Node's arguments that run `chorus ...args`. */
export function chorusArgs (args: string[]): string[] {
  // The harness is imported by a URL computed at run time (src/cli.ts), which
  // a bundle cannot follow to TypeScript: `chorus bench` runs from the sources.
  const bundle = args[0] === 'bench' ? undefined : freshBundle(BIN)
  return bundle === undefined ? [...TSX_ARGS, BIN, ...args] : [fileURLToPath(bundle), ...args]
}
