// The JSON fault finder: it agrees with JSON.parse on what is JSON, and
// names the line and column of the first fault without quoting the text.

import fc from 'fast-check'
import t from 'tap'
import { jsonSyntaxFault } from '../../src/shared/json-syntax.js'
import { fuzzParameters } from '../helpers/fuzz.js'

const parses = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

t.test('faults: where, and what the grammar wanted', async t => {
  const cases: Array<[string, { line: number, column: number, expected: string }]> = [
    ['k7Qm2xv9LrT4pW8sYb3n\n', { line: 1, column: 1, expected: 'a value' }],
    ['', { line: 1, column: 1, expected: 'a value' }],
    ['{"keys": {"a": 1,}}', { line: 1, column: 18, expected: 'a property name in double quotes' }],
    ['{\n  "keys": {\n    "a" 1\n  }\n}', { line: 3, column: 9, expected: "':'" }],
    ['{"keys": [1 2]}', { line: 1, column: 13, expected: "',' or ']'" }],
    ['{"keys": {}} x', { line: 1, column: 14, expected: 'the end of the text' }],
    ['{"keys": "a\u0001b"}', { line: 1, column: 12, expected: 'a well-formed string' }],
    ['{"keys": "\\x"}', { line: 1, column: 12, expected: 'a well-formed string' }],
    ['{"keys": 01}', { line: 1, column: 11, expected: "',' or '}'" }],
    ['{"keys": tru}', { line: 1, column: 10, expected: 'a value' }],
    ['[[[[', { line: 1, column: 5, expected: 'a value' }],
    ['{"keys": "unterminated', { line: 1, column: 23, expected: 'a well-formed string' }]
  ]
  for (const [text, where] of cases) {
    t.notOk(parses(text), `${JSON.stringify(text)} is not JSON`)
    t.match(jsonSyntaxFault(text), where, JSON.stringify(text))
  }
  for (const text of ['{}', ' [1, -2.5e+3, "a\\u00e9\\n", true, false, null, {"a": []}] ', '"x"', '0']) t.equal(jsonSyntaxFault(text), undefined, text)
  t.equal(jsonSyntaxFault('['.repeat(100_000) + ']'.repeat(100_000)), undefined, 'deep nesting costs no stack')
})

t.test('agrees with JSON.parse on JSON and on damaged JSON', async t => {
  const damaged = fc.tuple(fc.json(), fc.nat(), fc.string({ maxLength: 3 }), fc.nat({ max: 3 })).map(([text, at, insert, remove]) => {
    const cut = at % (text.length + 1)
    return text.slice(0, cut) + insert + text.slice(cut + remove)
  })
  fc.assert(fc.property(fc.oneof(fc.json(), damaged, fc.string()), text => (jsonSyntaxFault(text) === undefined) === parses(text)), fuzzParameters(3000))
  t.pass('3000 texts')
})
