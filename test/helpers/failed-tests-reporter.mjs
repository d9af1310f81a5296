// tap's reporter for `npm test` (package.json "tap".reporter): the TAP
// stream passes through unchanged, and the closing lines name every test
// that failed, in full (file > subtest > assertion). tap's own reporters end
// with counts only ("# { total: 4, pass: 2, fail: 2 }"), so a failure in a
// long CI log had to be searched for. Plain JavaScript: tap's runner loads
// it without tsx. `--reporter=base` still gives tap's coloured one.

import { Transform } from 'node:stream'

export default class FailedTestsReporter extends Transform {
  #partial = ''
  /** Names of the subtests enclosing the current line, by depth. */
  #path = []
  /** The indentation of the YAML block being skipped, or -1. */
  #yamlIndent = -1
  #failed = []

  _transform (chunk, _encoding, done) {
    const lines = (this.#partial + String(chunk)).split('\n')
    this.#partial = lines.pop() ?? ''
    for (const line of lines) this.#read(line)
    done(null, chunk)
  }

  _flush (done) {
    this.#read(this.#partial)
    // A failed subtest fails its parents too: only the innermost are named.
    const leaves = this.#failed.filter(name => !this.#failed.some(other => other.startsWith(`${name} > `)))
    if (leaves.length === 0) return done()
    done(null, `# Failed (${leaves.length}):\n${leaves.map(name => `#   not ok ${name}\n`).join('')}`)
  }

  #read (line) {
    const body = line.trimStart()
    const indent = line.length - body.length
    // Diagnostics (YAML between --- and ...) may quote source that reads like TAP.
    if (this.#yamlIndent >= 0) {
      if (indent === this.#yamlIndent && body === '...') this.#yamlIndent = -1
      return
    }
    if (body === '---') {
      this.#yamlIndent = indent
      return
    }
    const depth = Math.floor(indent / 4)
    const subtest = /^# Subtest: (.*)$/.exec(body)
    if (subtest !== null) {
      this.#path.length = depth
      this.#path[depth] = subtest[1]
      return
    }
    const point = /^not ok \d+(?: - (.*?))?(?: # (.*))?$/.exec(body)
    if (point === null || /^(todo|skip)\b/i.test(point[2] ?? '')) return
    this.#failed.push([...this.#path.slice(0, depth), point[1] ?? '(unnamed)'].join(' > '))
  }
}
