// tap's `before` (package.json): runs once before any test file, also when a
// single file is run with `npx tap test/x.test.ts`. It makes the bench voices
// the tests load and the worker bundles their threads start from.

import { ensureBenchVoices } from './make-bench-voices.js'
import { ensureDevWorkers } from './build-dev-workers.js'

await Promise.all([ensureBenchVoices(), ensureDevWorkers()])
