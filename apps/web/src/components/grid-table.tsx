// A data grid of the list and admin pages: a caption for screen readers, one header row of column names, then the rows.
import type { ReactNode, TableHTMLAttributes } from 'react';

interface GridTableProps extends TableHTMLAttributes<HTMLTableElement> {
  /** Read by screen readers only. */
  caption: ReactNode;
  columns: string[];
  /** The body rows (`<tr>`s). */
  children: ReactNode;
}

export function GridTable({ caption, columns, className = 'grid', children, ...table }: GridTableProps) {
  return (
    <table className={className} {...table}>
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column} scope="col">
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
