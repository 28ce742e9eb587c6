// A CSV row read against its header: the one fault a lenient reader cannot see by itself.

/**
 * What is wrong with a row that has filled cells past its header's last column, or null. A separator inside a cell
 * nobody quoted ("Kowalski, Jan", 150,50) moves every cell after it one column on, so each was read under the wrong
 * header and the last one dropped. Short rows, and empty cells past the header (a trailing separator), are fine.
 */
export function extraCellsProblem(cells: readonly unknown[], columns: number): string | null {
  if (!cells.slice(columns).some((cell) => String(cell).trim() !== '')) return null;
  return `${cells.length} cells where the header has ${columns} columns (a separator inside a cell that is not quoted?)`;
}
