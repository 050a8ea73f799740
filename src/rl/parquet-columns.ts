import type { SchemaElement } from "hyparquet-writer";

/**
 * A small description of nested Parquet columns, turned into the flat schema `hyparquet-writer`
 * takes (the standard 3-level LIST: `<name>` LIST → repeated `list` → `element`; a struct is a group)
 * and into the values it writes (int64 as BigInt). Every field is required: the records are validated
 * before they get here.
 */
export type ParquetType =
  | "string"
  | "boolean"
  | "int64"
  | "double"
  | { list: ParquetType }
  | { struct: ReadonlyArray<readonly [string, ParquetType]> };

/** The top-level columns of a file, in order. */
export type ParquetColumns = ReadonlyArray<readonly [string, ParquetType]>;

const LEAF: Record<string, Omit<SchemaElement, "name">> = {
  string: { type: "BYTE_ARRAY", converted_type: "UTF8" },
  boolean: { type: "BOOLEAN" },
  int64: { type: "INT64" },
  double: { type: "DOUBLE" },
};

function elements(name: string, type: ParquetType): SchemaElement[] {
  if (typeof type === "string") return [{ name, ...LEAF[type], repetition_type: "REQUIRED" }];
  if ("list" in type)
    return [
      { name, repetition_type: "REQUIRED", converted_type: "LIST", num_children: 1 },
      { name: "list", repetition_type: "REPEATED", num_children: 1 },
      ...elements("element", type.list),
    ];
  return [
    { name, repetition_type: "REQUIRED", num_children: type.struct.length },
    ...type.struct.flatMap(([field, t]) => elements(field, t)),
  ];
}

/** The flat Parquet schema (root first) of `columns`. */
export function parquetSchema(columns: ParquetColumns): SchemaElement[] {
  return [
    { name: "root", num_children: columns.length },
    ...columns.flatMap(([name, t]) => elements(name, t)),
  ];
}

/** `value` as the writer takes it for `type`: int64 as BigInt, structs with exactly their fields. */
export function parquetValue(type: ParquetType, value: unknown): unknown {
  if (type === "int64") return BigInt(value as number);
  if (typeof type === "string") return value;
  if ("list" in type) return (value as unknown[]).map((v) => parquetValue(type.list, v));
  const record = value as Record<string, unknown>;
  return Object.fromEntries(type.struct.map(([field, t]) => [field, parquetValue(t, record[field])]));
}

/** The writer's column data for `rows` (objects keyed by the top-level column names). */
export function parquetColumnData(
  columns: ParquetColumns,
  rows: ReadonlyArray<Record<string, unknown>>,
): Array<{ name: string; data: unknown[] }> {
  return columns.map(([name, t]) => ({ name, data: rows.map((r) => parquetValue(t, r[name])) }));
}
