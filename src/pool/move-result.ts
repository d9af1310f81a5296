// Piscina.move() for a worker's result, without loading Piscina's pool into
// the worker: `import { Piscina } from 'piscina'` in a voice worker loads the
// whole pool implementation (queues, histograms, async hooks) into every
// thread, several megabytes each. The host recognises a movable result by
// the marker that its own `common.js` sets, so this module loads that file,
// the one the host already loaded, from the installed package. If a Piscina
// release moves it, the worker fails to start with this module's error
// (test/pool/move-result.unit.ts checks the transfer). The moved buffers are
// the main thread's from then on (docs/memory.md).

import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

const require = createRequire(import.meta.url)

interface PiscinaCommon {
  markMovable: (value: object) => void
  isMovable: (value: unknown) => boolean
}

function piscinaCommon (): PiscinaCommon {
  const file = join(dirname(require.resolve('piscina')), 'common.js')
  const common = require(file) as Partial<PiscinaCommon>
  if (typeof common.markMovable !== 'function' || typeof common.isMovable !== 'function') {
    throw new Error(`${file} no longer exports markMovable and isMovable: update src/pool/move-result.ts for this Piscina release`)
  }
  return common as PiscinaCommon
}

const common = piscinaCommon()
// Global symbols: the same as Piscina.transferableSymbol and Piscina.valueSymbol.
const TRANSFERABLE = Symbol.for('Piscina.transferable')
const VALUE = Symbol.for('Piscina.valueOf')

/** Sends a result with the given buffers transferred rather than copied. */
export function moveResult<T> (result: T, buffers: ArrayBuffer[]): T {
  const movable = {
    get [TRANSFERABLE] () { return buffers },
    get [VALUE] () { return result }
  }
  common.markMovable(movable)
  return movable as unknown as T
}

// Once, when the worker starts: the host must see a marked result as movable.
if (!common.isMovable(moveResult({}, []))) throw new Error('Piscina does not recognise a moved result: update src/pool/move-result.ts for this Piscina release')
