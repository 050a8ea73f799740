/** One parsed CSV record and the 1-based line of the file where it starts. */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** A problem found while reading CSV text (unterminated quote, stray quote). */
export interface CsvProblem {
  line: number;
  message: string;
}

/**
 * A small RFC 4180 reader: comma-separated fields, double-quoted fields may hold commas, newlines and
 * doubled quotes (`""`). Accepts LF and CRLF line ends and a UTF-8 BOM. Blank lines are skipped.
 * Malformed quoting is reported per record instead of thrown, so the caller can name the line.
 */
export function readCsv(text: string): { records: CsvRecord[]; problems: CsvProblem[] } {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  const problems: CsvProblem[] = [];
  let line = 1;
  let i = 0;
  while (i < src.length) {
    const start = line;
    const fields: string[] = [];
    let field = "";
    let quoted = false;
    let wasQuoted = false;
    let problem: string | undefined;
    let ended = false;
    while (i < src.length && !ended) {
      const ch = src[i] as string;
      if (quoted) {
        if (ch === '"') {
          if (src[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          quoted = false;
          i++;
          continue;
        }
        if (ch === "\n") line++;
        field += ch;
        i++;
        continue;
      }
      if (ch === '"') {
        if (field.length === 0 && !wasQuoted) {
          quoted = true;
          wasQuoted = true;
        } else {
          problem ??= "a quote inside an unquoted field (quote the whole field and double inner quotes)";
          field += ch;
        }
        i++;
      } else if (ch === ",") {
        fields.push(field);
        field = "";
        wasQuoted = false;
        i++;
      } else if (ch === "\r" && src[i + 1] === "\n") {
        i += 2;
        ended = true;
      } else if (ch === "\n") {
        i++;
        ended = true;
      } else {
        if (wasQuoted) problem ??= "text after a closing quote";
        field += ch;
        i++;
      }
    }
    if (quoted) problem ??= "a quoted field is not closed before the end of the file";
    fields.push(field);
    if (ended) line++;
    const blank = fields.length === 1 && fields[0] === "" && !wasQuoted;
    if (problem !== undefined) problems.push({ line: start, message: problem });
    else if (!blank) records.push({ line: start, fields });
  }
  return { records, problems };
}
