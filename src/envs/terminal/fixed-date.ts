import { defineCommand } from "just-bash";
import { FIXED_DATE, FIXED_EPOCH_SECONDS } from "./system-paths.ts";

const pad = (n: number) => String(n).padStart(2, "0");
const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `date` on the fixed clock (UTC): the default format, or `+FORMAT` with the common specifiers. */
export function formatFixedDate(format: string | undefined): string {
  const d = FIXED_DATE;
  const fields: Record<string, string> = {
    Y: String(d.getUTCFullYear()),
    m: pad(d.getUTCMonth() + 1),
    d: pad(d.getUTCDate()),
    H: pad(d.getUTCHours()),
    M: pad(d.getUTCMinutes()),
    S: pad(d.getUTCSeconds()),
    s: String(FIXED_EPOCH_SECONDS),
    a: DAYS[d.getUTCDay()] ?? "",
    b: MONTHS[d.getUTCMonth()] ?? "",
    Z: "UTC",
    z: "+0000",
    "%": "%",
  };
  fields.F = `${fields.Y}-${fields.m}-${fields.d}`;
  fields.T = `${fields.H}:${fields.M}:${fields.S}`;
  if (format === undefined) {
    return `${fields.a} ${fields.b} ${String(d.getUTCDate()).padStart(2, " ")} ${fields.T} UTC ${fields.Y}`;
  }
  return format.replace(/%(.)/g, (whole, key: string) => fields[key] ?? whole);
}

export const dateCommand = defineCommand("date", async (args) => {
  const format = args.find((a) => a.startsWith("+"));
  return { stdout: `${formatFixedDate(format?.slice(1))}\n`, stderr: "", exitCode: 0 };
});
