// This folder's unit files (*.unit.ts), in one process: test/helpers/unit-files.ts.

import { runUnitFiles } from '../helpers/unit-files.js'

await runUnitFiles(import.meta.url)
