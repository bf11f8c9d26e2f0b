// JSON kept in a text column: written by the repositories themselves, read back as the type the record declares.
/** Parses a JSON column as the type its record field expects (the repository wrote it from that type). */
export const fromJson = <T>(text: string): T => JSON.parse(text) as T;
