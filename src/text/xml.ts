// A small XML document as a tree, read by saxes (a strict, well-formedness
// checking parser, ISC): elements with their attributes and where their start
// tag is, text with its decoded content and its exact range in the source,
// so a word of SSML maps back to the characters the client sent. Documents
// are bounded by their callers (a request's text, a lexicon file). DOCTYPE,
// processing instructions and CDATA sections are refused: neither SSML nor
// PLS needs them, and a DTD could define entities.

import { SaxesParser } from 'saxes'
import { applyEdits, type Edit } from './normalize/offsets.js'
import type { SpokenText } from './normalize/index.js'
import type { MarkupPlace } from './errors.js'

export interface XmlText {
  kind: 'text'
  /** The content with entities and character references resolved, mapping back into the source. */
  spoken: SpokenText
  place: MarkupPlace
}

export interface XmlElement {
  kind: 'element'
  name: string
  attributes: Record<string, string>
  children: XmlNode[]
  /** The start tag's `<`. */
  place: MarkupPlace
  /** Source range from the start tag's `<` to the end tag's `>`, [start, end). */
  start: number
  end: number
}

export type XmlNode = XmlText | XmlElement

/** Not well-formed, or a construct this reader refuses: where, and what. */
export class XmlSyntaxError extends Error {
  constructor (readonly place: MarkupPlace, readonly reason: string) {
    super(`${reason} at line ${place.line}, column ${place.column}`)
  }
}

/** Elements nested deeper than this are refused: readers walk the tree recursively. */
export const MAX_XML_DEPTH = 64

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: '\'' }
const REFERENCE = /&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g

/** The source range [start, end) decoded, with its map back (saxes has checked every reference). */
function decoded (source: string, start: number, end: number): SpokenText {
  const raw = source.slice(start, end)
  const edits: Edit[] = []
  for (const match of raw.matchAll(REFERENCE)) {
    const name = match[1]
    const text = name.startsWith('#x') ? String.fromCodePoint(parseInt(name.slice(2), 16)) : name.startsWith('#') ? String.fromCodePoint(Number(name.slice(1))) : ENTITIES[name] ?? match[0]
    edits.push({ start: match.index, end: match.index + match[0].length, text })
  }
  const { text, map } = applyEdits(raw, edits)
  return {
    text,
    toOriginal (from, to) {
      const [a, b] = map.toSource(from, to)
      return [a + start, b + start]
    }
  }
}

/** Line and column (1-based, code points) of source indices asked for in
 * increasing order, counted once over the source whatever its length. */
function placeCounter (source: string): (index: number) => MarkupPlace {
  let at = 0
  let line = 1
  let column = 1
  return index => {
    for (; at < Math.min(index, source.length); at++) {
      const code = source.charCodeAt(at)
      if (code === 10) {
        line++
        column = 1
      } else if (code < 0xDC00 || code > 0xDFFF) {
        // A low surrogate is the second half of a code point already counted.
        column++
      }
    }
    return { line, column }
  }
}

/** The root element of `source`; throws XmlSyntaxError with the place of the first fault. */
export function parseXml (source: string): XmlElement {
  const parser = new SaxesParser({ position: true })
  const placeOf = placeCounter(source)
  const stack: XmlElement[] = []
  let root: XmlElement | undefined
  // Where the last markup ended: the next text starts there.
  let markupEnd = 0
  let fault: XmlSyntaxError | undefined
  // The place of the last character read.
  const here = (): MarkupPlace => placeOf(Math.max(0, parser.position - 1))
  const refuse = (reason: string): void => { fault ??= new XmlSyntaxError(here(), reason) }
  parser.on('error', error => { fault ??= new XmlSyntaxError(here(), error.message.replace(/^\d+:\d+: /, '').replace(/\.$/, '')) })
  parser.on('opentagstart', tag => {
    // saxes has read `<`, the name and one character more.
    if (stack.length >= MAX_XML_DEPTH) refuse(`elements nested more than ${MAX_XML_DEPTH} deep`)
    const start = parser.position - tag.name.length - 2
    const element: XmlElement = { kind: 'element', name: tag.name, attributes: {}, children: [], place: placeOf(start), start, end: start }
    stack.at(-1)?.children.push(element)
    root ??= element
    stack.push(element)
  })
  parser.on('opentag', tag => {
    const element = stack.at(-1) as XmlElement
    for (const [name, value] of Object.entries(tag.attributes)) element.attributes[name] = typeof value === 'string' ? value : value.value
    markupEnd = parser.position
  })
  parser.on('closetag', () => {
    const element = stack.pop()
    if (element !== undefined) element.end = parser.position
    markupEnd = parser.position
  })
  parser.on('text', () => {
    // The text ends at the `<` just read (text outside the root is only white space).
    const end = parser.position - 1
    const parent = stack.at(-1)
    if (parent !== undefined && end > markupEnd) parent.children.push({ kind: 'text', spoken: decoded(source, markupEnd, end), place: placeOf(markupEnd) })
  })
  parser.on('comment', () => { markupEnd = source.indexOf('-->', Math.max(0, parser.position - 3)) + 3 })
  parser.on('xmldecl', () => { markupEnd = source.indexOf('?>') + 2 })
  parser.on('doctype', () => refuse('a DOCTYPE, which is not allowed here'))
  parser.on('processinginstruction', () => refuse('a processing instruction, which is not allowed here'))
  parser.on('cdata', () => refuse('a CDATA section, which is not allowed here: write the text with &lt; and &amp;'))
  try {
    parser.write(source).close()
  } catch (error) {
    if (fault === undefined) throw error
  }
  if (fault !== undefined) throw fault
  if (root === undefined) throw new XmlSyntaxError(here(), 'no root element')
  return root
}

/** The text of an element that may hold only text: its children's text joined, or undefined if it holds an element. */
export function onlyText (element: XmlElement): string | undefined {
  let text = ''
  for (const child of element.children) {
    if (child.kind === 'element') return undefined
    text += child.spoken.text
  }
  return text
}
