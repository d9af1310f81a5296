// Node's flags for a child process that runs the TypeScript sources: tsx in
// its main thread only (src/tsx-main-thread.mjs), as tap runs the tests.

import { fileURLToPath } from 'node:url'

export const TSX_MAIN_THREAD = fileURLToPath(new URL('../../src/tsx-main-thread.mjs', import.meta.url))
export const TSX_ARGS = ['--import', TSX_MAIN_THREAD]
