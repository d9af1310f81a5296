// The one shape of an SSML refusal: what was expected, for which element or
// attribute, what arrived, and where.

import { placeText, invalidSsml, type MarkupPlace } from '../errors.js'

export function refuseSsml (what: string, name: string, received: string, place: MarkupPlace): never {
  throw invalidSsml(`Expected ${what} for ${name} but received ${received} at ${placeText(place)}`,
    { details: { line: place.line, column: place.column, expected: what } })
}
