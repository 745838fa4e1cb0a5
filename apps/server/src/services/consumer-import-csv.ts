import type { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { refuse } from '../refusals.ts';

/**
 * Reading the operator's CSV files (consumer imports, letter links): a header row names the
 * columns, every problem is reported with its line and column, and nothing is written unless the
 * whole file is valid (the callers run inside one transaction).
 */

export interface ImportProblem {
  /** 1-based line of the file. */
  line: number;
  /** 1-based column of the file; 0 when the problem is the whole line. */
  column: number;
  field: string;
  message: string;
}

/** How many problems an error lists; a file with thousands of bad rows names the first ones. */
const maxReportedProblems = 50;

export const importFileMessages = {
  moreProblems: (count: number) => `${count} more problems are not listed.`,
  noHeader: 'The file is empty: the first line must name the columns.',
  noRows: 'The file names its columns but holds no rows.',
  unknownColumn: (name: string, known: readonly string[]) =>
    `Unknown column "${name}". The columns are: ${known.join(', ')}.`,
  duplicateColumn: (name: string) => `The column "${name}" appears twice.`,
  missingColumn: (name: string) => `The required column "${name}" is missing.`,
  malformed: (reason: string) => `The line is not valid CSV: ${reason}`,
  required: 'A value is required.',
} as const;

/** `line 4, column 3 (email)`, or `line 4` for a problem with the whole line. */
function locationOf(problem: Pick<ImportProblem, 'line' | 'column' | 'field'>): string {
  if (problem.column === 0) return `line ${problem.line}`;
  return `line ${problem.line}, column ${problem.column} (${problem.field})`;
}

/** Collects the problems of a file, counting past the ones it keeps. */
export class ProblemList {
  readonly kept: ImportProblem[] = [];
  count = 0;

  add(problem: ImportProblem): void {
    this.count += 1;
    if (this.kept.length < maxReportedProblems) this.kept.push(problem);
  }

  get isEmpty(): boolean {
    return this.count === 0;
  }

  /** Throws every problem of the file at once, as `InvalidImportFile`, when it has any. */
  throwIfAny(): void {
    if (this.count === 0) return;
    const listed = this.kept.map((problem) => ({ field: locationOf(problem), message: problem.message }));
    if (this.count > listed.length) {
      listed.push({ field: 'file', message: importFileMessages.moreProblems(this.count - listed.length) });
    }
    throw refuse('invalidImportFile', this.count, { errors: listed });
  }
}

export interface ColumnSpec<Name extends string> {
  name: Name;
  required: boolean;
  /** Other header spellings operators use, e.g. `zip` for `postalCode`. */
  aliases?: readonly string[];
}

/** One data row: each known column's trimmed text ('' when empty or absent) and its 1-based column. */
export interface CsvRow<Name extends string> {
  line: number;
  values: Record<Name, string>;
  columnOf: Record<Name, number>;
}

/** Header names compare without case, spaces, hyphens or underscores: `Consumer ID` is `consumerId`. */
function headerKey(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

function mapHeader<Name extends string>(
  header: string[],
  columns: readonly ColumnSpec<Name>[],
  problems: ProblemList,
): Record<Name, number> | null {
  const byKey = new Map<string, Name>();
  for (const column of columns) {
    for (const spelling of [column.name, ...(column.aliases ?? [])])
      byKey.set(headerKey(spelling), column.name);
  }
  const positions = {} as Record<Name, number>;
  const seen = new Set<Name>();
  header.forEach((text, index) => {
    const name = byKey.get(headerKey(text));
    const column = index + 1;
    if (name === undefined) {
      problems.add({
        line: 1,
        column,
        field: text,
        message: importFileMessages.unknownColumn(
          text,
          columns.map((spec) => spec.name),
        ),
      });
    } else if (seen.has(name)) {
      problems.add({ line: 1, column, field: name, message: importFileMessages.duplicateColumn(name) });
    } else {
      seen.add(name);
      positions[name] = column;
    }
  });
  for (const column of columns) {
    if (column.required && !seen.has(column.name)) {
      problems.add({
        line: 1,
        column: 0,
        field: column.name,
        message: importFileMessages.missingColumn(column.name),
      });
    }
  }
  return problems.isEmpty ? positions : null;
}

/**
 * Streams the data rows of a CSV file. Problems with the header or the CSV itself go to
 * `problems`; a file whose header is unusable yields no rows. Blank lines are skipped.
 */
export async function* readCsvRows<Name extends string>(
  input: Readable,
  columns: readonly ColumnSpec<Name>[],
  problems: ProblemList,
): AsyncGenerator<CsvRow<Name>> {
  const parser = input.pipe(
    parse({ bom: true, trim: true, skip_empty_lines: true, relax_column_count: true, info: true }),
  );
  let positions: Record<Name, number> | null | undefined;
  let headerLength = 0;
  let rows = 0;
  try {
    for await (const entry of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const { record, info } = entry;
      if (positions === undefined) {
        headerLength = record.length;
        positions = mapHeader(record, columns, problems);
        if (positions === null) return;
        continue;
      }
      if (positions === null) return;
      rows += 1;
      if (record.length !== headerLength) {
        problems.add({
          line: info.lines,
          column: 0,
          field: 'line',
          message: `The line has ${record.length} values; the header names ${headerLength} columns.`,
        });
        continue;
      }
      const values = {} as Record<Name, string>;
      const columnOf = {} as Record<Name, number>;
      for (const column of columns) {
        const position = positions[column.name];
        values[column.name] = position === undefined ? '' : (record[position - 1] ?? '');
        columnOf[column.name] = position ?? 0;
      }
      yield { line: info.lines, values, columnOf };
    }
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const line = (error as CsvError & { lines?: number }).lines ?? 0;
    problems.add({ line, column: 0, field: 'line', message: importFileMessages.malformed(error.message) });
    return;
  } finally {
    parser.destroy();
  }
  if (positions === undefined) {
    problems.add({ line: 1, column: 0, field: 'header', message: importFileMessages.noHeader });
  } else if (positions !== null && rows === 0) {
    problems.add({ line: 2, column: 0, field: 'rows', message: importFileMessages.noRows });
  }
}
