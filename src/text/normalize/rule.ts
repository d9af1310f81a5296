// What every rule is: a pure function from a text to the edits it makes to
// it (offsets.ts applies them and keeps the map back).

import type { Edit } from './offsets.js'

export type Rule = (text: string) => Edit[]

/**
 * The edits `edit` makes for each match of a global `pattern`, in order;
 * undefined leaves a match alone. An edit may cover part of its match (a
 * marker inside it) but never text before an earlier edit's end.
 */
export function matchEdits (text: string, pattern: RegExp, edit: (match: RegExpExecArray) => Edit | Edit[] | undefined): Edit[] {
  if (!pattern.global) throw new TypeError(`Rule pattern ${pattern} needs the g flag`)
  const edits: Edit[] = []
  for (const match of text.matchAll(pattern)) {
    const made = edit(match as RegExpExecArray)
    if (made === undefined) continue
    for (const one of Array.isArray(made) ? made : [made]) {
      const last = edits.at(-1)
      // A later match may not reach back into an earlier edit.
      if (last !== undefined && one.start < last.end) continue
      edits.push(one)
    }
  }
  return edits
}

/** Replaces the whole match. */
export function replaceMatch (match: RegExpExecArray, text: string): Edit {
  return { start: match.index, end: match.index + match[0].length, text }
}
