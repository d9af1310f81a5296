// npm run test:hostile: issues 27's and 42's hostile probes as one suite,
// i.e. test/hostile/*.test.ts and the tests elsewhere that reproduce each
// finding (listed, with the probes, in test/hostile/findings.ts). All of them are
// also part of npm test; this runs only them. Extra arguments go to tap.

import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { hostileFiles } from './findings.js'

const own = readdirSync('test/hostile').filter(name => name.endsWith('.test.ts')).map(name => `test/hostile/${name}`)
const files = [...new Set([...own, ...hostileFiles()])]
const result = spawnSync('npx', ['tap', '--timeout=1200', ...process.argv.slice(2), ...files], { stdio: 'inherit' })
process.exit(result.status ?? 1)
