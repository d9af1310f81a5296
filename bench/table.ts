// Tables for the terminal (aligned columns) and for Markdown, from the same
// rows, and the number formats used in them.

export interface Column {
  header: string
  /** Numbers read best right-aligned. */
  align?: 'left' | 'right'
}

export function textTable (columns: readonly Column[], rows: readonly string[][]): string {
  const widths = columns.map((column, i) => Math.max(column.header.length, ...rows.map(row => row[i].length)))
  const line = (cells: readonly string[]) => cells
    .map((cell, i) => columns[i].align === 'left' ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))
    .join('  ')
    .trimEnd()
  return [line(columns.map(c => c.header)), line(widths.map(w => '-'.repeat(w))), ...rows.map(line)].join('\n')
}

export function markdownTable (columns: readonly Column[], rows: readonly string[][]): string {
  const escape = (cell: string) => cell.replace(/\|/g, '\\|')
  const line = (cells: readonly string[]) => `| ${cells.map(escape).join(' | ')} |`
  const rule = `|${columns.map(c => c.align === 'left' ? ' --- ' : ' ---: ').join('|')}|`
  return [line(columns.map(c => c.header)), rule, ...rows.map(line)].join('\n')
}

/** A figure with about three significant digits; "–" when missing. */
export function num (value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–'
  if (Number.isInteger(value)) return String(value)
  const magnitude = Math.abs(value)
  if (magnitude >= 100) return value.toFixed(0)
  if (magnitude >= 10) return value.toFixed(1)
  if (magnitude >= 1) return value.toFixed(2)
  return value.toFixed(3)
}

export function ratio (value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '–' : `${value.toFixed(value >= 10 ? 1 : 2)}×`
}

export function megabytes (bytes: number | null | undefined): string {
  return bytes === null || bytes === undefined || !Number.isFinite(bytes) ? '–' : (bytes / 1e6).toFixed(0)
}
