// Client-sent numbers compared with Int columns: PostgreSQL's integer stops at 2^31 - 1 and refuses a larger operand
// (SQLite's does not), so a revision or feed position past it is clamped here instead of failing the query.
/** The largest value an Int column holds on PostgreSQL (no revision, version or sequence number goes past it). */
export const INT_COLUMN_MAX = 2_147_483_647;

/** `n`, or INT_COLUMN_MAX when larger: "after" or "before" it then selects what the unclamped number would. */
export const clampToIntColumn = (n: number) => Math.min(n, INT_COLUMN_MAX);
