// `npm test`'s pretest step after the tools check: rebuild tap if its
// plugins changed, compile the tests, and lint, at the same time (each is
// one busy core for 10-30 s; one after another they took ~65 s on a clean
// clone). Each step's output is printed whole when it ends, and the step
// fails if any of them failed.

import { spawn } from 'node:child_process'

const STEPS = [
  ['tap build', 'node', ['scripts/ensure-tap-build.mjs']],
  ['tsc', 'node', ['scripts/build-tests.mjs']],
  ['lint', 'npm', ['run', 'lint', '--silent']]
]

function run ([name, command, args]) {
  return new Promise(resolve => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    const output = []
    child.stdout.on('data', chunk => output.push(chunk))
    child.stderr.on('data', chunk => output.push(chunk))
    child.on('error', error => resolve({ name, code: 1, output: [Buffer.from(`${error.message}\n`)] }))
    child.on('close', code => resolve({ name, code: code ?? 1, output }))
  })
}

const results = await Promise.all(STEPS.map(run))
for (const { name, code, output } of results) {
  process.stdout.write(Buffer.concat(output))
  if (code !== 0) console.error(`pretest: ${name} failed (exit code ${code})`)
}
process.exitCode = results.some(result => result.code !== 0) ? 1 : 0
