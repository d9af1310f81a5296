// Where a text stops being JSON, without quoting it. JSON.parse's messages
// quote the text around the fault ("Unexpected token 'k', "k7Qm2xv9Lr"... is
// not valid JSON"), which for a file of secrets prints the start of one; and
// they give no line. This scanner follows JSON's grammar (RFC 8259) to the
// first fault and reports its line and column and what was expected there,
// in the grammar's words only. Iterative: nesting costs an array entry, not
// a stack frame.

export interface JsonSyntaxFault {
  /** Code units from the start of the text. */
  offset: number
  /** 1-based. */
  line: number
  column: number
  /** What the grammar wanted there, e.g. "a value" or "',' or '}'". */
  expected: string
}

type Want = 'value' | 'value-or-end' | 'key' | 'key-or-end' | 'after'

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const LITERALS = ['true', 'false', 'null']
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't'])

function skipSpace (text: string, from: number): number {
  let i = from
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++
  return i
}

/** The end of the string that opens at `from`, or the negated offset (minus one) of its fault. */
function scanString (text: string, from: number): number {
  let i = from + 1
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === 0x22) return i + 1
    if (c < 0x20) return -i - 1
    if (c === 0x5c) {
      const escape = text[i + 1] ?? ''
      if (escape === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return -(i + 1) - 1
        i += 6
        continue
      }
      if (!ESCAPES.has(escape)) return -(i + 1) - 1
      i += 2
      continue
    }
    i++
  }
  return -i - 1
}

/** The end of the scalar (string, number, literal) at `from`, or the negated offset (minus one) of its fault. */
function scanScalar (text: string, from: number): number {
  if (text[from] === '"') return scanString(text, from)
  NUMBER.lastIndex = from
  if (NUMBER.test(text)) return NUMBER.lastIndex
  const literal = LITERALS.find(word => text.startsWith(word, from))
  return literal === undefined ? -from - 1 : from + literal.length
}

function fault (text: string, offset: number, expected: string): JsonSyntaxFault {
  const before = text.slice(0, offset)
  const lineStart = before.lastIndexOf('\n') + 1
  return { offset, line: before.split('\n').length, column: offset - lineStart + 1, expected }
}

/** The first fault of `text` as JSON, or undefined when it is JSON. */
export function jsonSyntaxFault (text: string): JsonSyntaxFault | undefined {
  const open: Array<'}' | ']'> = []
  let want: Want = 'value'
  let i = 0
  for (;;) {
    i = skipSpace(text, i)
    const c = text[i]
    if (want === 'value-or-end' || want === 'key-or-end') {
      if (c === open.at(-1)) {
        open.pop()
        i++
        want = 'after'
      } else {
        want = want === 'key-or-end' ? 'key' : 'value'
      }
      continue
    }
    if (want === 'after') {
      const close = open.at(-1)
      if (close === undefined) return i === text.length ? undefined : fault(text, i, 'the end of the text')
      if (c === ',') want = close === '}' ? 'key' : 'value'
      else if (c === close) open.pop()
      else return fault(text, i, `',' or '${close}'`)
      i++
      continue
    }
    if (want === 'key') {
      if (c !== '"') return fault(text, i, 'a property name in double quotes')
      const end = scanString(text, i)
      if (end < 0) return fault(text, -end - 1, 'a well-formed string')
      i = skipSpace(text, end)
      if (text[i] !== ':') return fault(text, i, "':'")
      i++
      want = 'value'
      continue
    }
    if (c === '{' || c === '[') {
      open.push(c === '{' ? '}' : ']')
      i++
      want = c === '{' ? 'key-or-end' : 'value-or-end'
      continue
    }
    const end = c === undefined ? -i - 1 : scanScalar(text, i)
    if (end < 0) return fault(text, -end - 1, c === '"' ? 'a well-formed string' : 'a value')
    i = end
    want = 'after'
  }
}
