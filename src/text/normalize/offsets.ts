// Edits to a text and the map from the edited text back to the one it came
// from, in UTF-16 code units (JavaScript string indices).
//
// The map is a list of segments that tile the output: a copied segment maps
// position by position, so untouched text maps to itself; a replaced segment
// maps as a whole, so any part of "five dollars" made from "$5" maps back to
// all of "$5". Deletions are replaced segments with no output: no range of
// the output can land in them, so a word beside a dropped emoji maps to the
// word alone.

export interface Edit {
  /** The source range replaced, [start, end). */
  start: number
  end: number
  /** What replaces it ('' deletes). */
  text: string
}

interface Segment {
  /** Output range. */
  from: number
  to: number
  /** Source range. */
  sourceFrom: number
  sourceTo: number
  copied: boolean
}

/** Maps a range of an edited text to the range of its source that made it. */
export interface RangeMap {
  toSource (start: number, end: number): [number, number]
}

class OffsetMap implements RangeMap {
  /** Segments with output, in order; deletions are left out (nothing maps into them). */
  private readonly segments: Segment[]

  constructor (segments: Segment[], private readonly outputLength: number, private readonly sourceLength: number) {
    this.segments = segments.filter(s => s.to > s.from)
  }

  /** The first segment whose output ends after `position`. */
  private indexAfter (position: number): number {
    let low = 0
    let high = this.segments.length
    while (low < high) {
      const middle = (low + high) >> 1
      if (this.segments[middle].to > position) high = middle
      else low = middle + 1
    }
    return low
  }

  private mapStart (position: number): number {
    const segment = this.segments[this.indexAfter(position)]
    if (segment === undefined) return this.sourceLength
    return segment.copied ? segment.sourceFrom + (position - segment.from) : segment.sourceFrom
  }

  private mapEnd (position: number): number {
    if (position <= 0) return this.segments[0]?.sourceFrom ?? 0
    const segment = this.segments[this.indexAfter(position - 1)]
    if (segment === undefined) return this.sourceLength
    return segment.copied ? segment.sourceFrom + (position - segment.from) : segment.sourceTo
  }

  toSource (start: number, end: number): [number, number] {
    const from = clamp(start, this.outputLength)
    const to = Math.max(from, clamp(end, this.outputLength))
    if (to === from) {
      const at = this.mapStart(from)
      return [at, at]
    }
    return [this.mapStart(from), this.mapEnd(to)]
  }
}

function clamp (position: number, length: number): number {
  return Math.min(length, Math.max(0, Math.trunc(position)))
}

/** The source with `edits` applied (sorted by start, not overlapping) and the map back. */
export function applyEdits (source: string, edits: readonly Edit[]): { text: string, map: OffsetMap } {
  const segments: Segment[] = []
  // Parts joined once: one flat string, however many edits.
  const parts: string[] = []
  let length = 0
  let at = 0
  const copy = (until: number): void => {
    if (until <= at) return
    segments.push({ from: length, to: length + until - at, sourceFrom: at, sourceTo: until, copied: true })
    parts.push(source.slice(at, until))
    length += until - at
    at = until
  }
  for (const edit of edits) {
    if (edit.start < at || edit.end < edit.start || edit.end > source.length) {
      throw new RangeError(`Edits overlap or leave the text: [${edit.start}, ${edit.end}) after ${at} of ${source.length}`)
    }
    copy(edit.start)
    segments.push({ from: length, to: length + edit.text.length, sourceFrom: edit.start, sourceTo: edit.end, copied: false })
    parts.push(edit.text)
    length += edit.text.length
    at = edit.end
  }
  copy(source.length)
  return { text: parts.join(''), map: new OffsetMap(segments, length, source.length) }
}

/** Maps through each layer in turn, the last edit's layer first. */
export function composeMaps (layers: readonly RangeMap[]): RangeMap {
  return {
    toSource (start, end) {
      let range: [number, number] = [start, end]
      for (let i = layers.length - 1; i >= 0; i--) range = layers[i].toSource(range[0], range[1])
      return range
    }
  }
}
