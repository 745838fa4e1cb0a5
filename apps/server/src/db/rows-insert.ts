import { getTableColumns, getTableName } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { fixedText, StatementPart, sqlPart } from './sql.ts';

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A JSON value goes as text, which both drivers pass unchanged; every other value as its column's type. */
const castOf = (column: PgColumn) => (column.getSQLType() === 'jsonb' ? 'text::jsonb' : column.getSQLType());

/**
 * The insert of rows into `table`, built from the schema once: a fixed text for each number of
 * rows, each placeholder cast to its column's type, each value as the column hands it to the
 * driver. A part, so it can join the statement of the writes it belongs to; with `where`, the rows
 * go in only when that condition holds in the statement.
 */
export function rowsInsert<Table extends PgTable, Key extends keyof Table['$inferInsert'] & string>(
  table: Table,
  keys: readonly Key[],
): (rows: readonly Required<Pick<Table['$inferInsert'], Key>>[], where?: StatementPart) => StatementPart {
  const byKey: Record<string, PgColumn> = getTableColumns(table);
  const columns = keys.map((key) => {
    const column = byKey[key];
    if (column === undefined) throw new Error(`${getTableName(table)} has no column ${key}`);
    return { key, column };
  });
  const into = fixedText(
    `INSERT INTO ${quoted(getTableName(table))} (${columns.map(({ column }) => quoted(column.name)).join(', ')})`,
  );
  const afterValues = columns.map(
    ({ column }, index) => `::${castOf(column)}${index === columns.length - 1 ? ')' : ', '}`,
  );
  const textsOf = (rows: number) => {
    const texts = ['VALUES ('];
    for (let row = 0; row < rows; row++) {
      if (row > 0) texts[texts.length - 1] += ', (';
      texts.push(...afterValues);
    }
    return texts;
  };
  const oneRow = textsOf(1);
  return (rows, where) => {
    const values = new StatementPart(
      rows.length === 1 ? oneRow : textsOf(rows.length),
      rows.flatMap((row) =>
        columns.map(({ key, column }) => {
          const value: unknown = row[key];
          return value === null || value === undefined ? null : column.mapToDriverValue(value);
        }),
      ),
    );
    return where === undefined
      ? sqlPart`${into} ${values}`
      : sqlPart`${into} SELECT * FROM (${values}) AS v WHERE ${where}`;
  };
}
