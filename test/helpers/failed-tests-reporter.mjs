// tap's reporter for `npm test` (package.json "tap".reporter): the TAP
// stream passes through unchanged, and the closing lines name every test
// that was skipped or left to do, with its reason, and every test that
// failed, in full (file > subtest > assertion). tap's own reporters end with
// counts only ("# { total: 4, pass: 2, fail: 2, skip: 1 }"), so a failure in
// a long CI log had to be searched for, and a skip went unseen. Plain
// JavaScript: tap's runner loads it without tsx. `--reporter=base` still
// gives tap's coloured one.

import { Transform } from 'node:stream'

export default class FailedTestsReporter extends Transform {
  #partial = ''
  /** Names of the subtests enclosing the current line, by depth. */
  #path = []
  /** The indentation of the YAML block being skipped, or -1. */
  #yamlIndent = -1
  #failed = []
  /** "name: reason" of each test point marked # SKIP, and of each # TODO. */
  #skipped = []
  #todo = []

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
    const sections = [
      section('Skipped', this.#skipped, 'skip'),
      section('Todo', this.#todo, 'todo'),
      section('Failed', leaves, 'not ok')
    ].join('')
    done(null, sections === '' ? undefined : sections)
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
    const point = /^(not ok|ok) \d+(?: - (.*?))?(?: # (.*))?$/.exec(body)
    if (point === null) return
    const name = [...this.#path.slice(0, depth), point[2] ?? '(unnamed)'].join(' > ')
    const directive = /^(todo|skip)\b\s*(.*)$/i.exec(point[3] ?? '')
    if (directive !== null) {
      const list = directive[1].toLowerCase() === 'skip' ? this.#skipped : this.#todo
      list.push(`${name}: ${directive[2] === '' ? '(no reason given)' : directive[2]}`)
    } else if (point[1] === 'not ok') {
      this.#failed.push(name)
    }
  }
}

/** The closing lines for one kind of outcome, or nothing when none had it. */
function section (title, entries, mark) {
  if (entries.length === 0) return ''
  return `# ${title} (${entries.length}):\n${entries.map(entry => `#   ${mark} ${entry}\n`).join('')}`
}
