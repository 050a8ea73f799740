/**
 * Dates and times named in an instruction, as MiniWoB and people state them, turned into what a
 * `date` / `time` input holds (`YYYY-MM-DD`, `HH:MM`) and into the keystrokes that fill one in the
 * browser's fixed en-US locale (segments month/day/year, hour/minute/meridiem).
 */

export interface DateTimeValue {
  /** The input's value once filled: `2016-12-03` or `15:45`. */
  value: string;
  /** What to type into the focused input to get it: `12/03/2016` or `03:45PM`. */
  keys: string;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"] as const;
const MONTH_NAME = String.raw`(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?`;
const DAY = String.raw`(\d{1,2})(?:st|nd|rd|th)?`;

const pad = (n: number) => String(n).padStart(2, "0");

function monthOf(name: string): number {
  return MONTHS.indexOf(name.slice(0, 3).toLowerCase() as (typeof MONTHS)[number]) + 1;
}

function valid(y: number, m: number, d: number): DateTimeValue | null {
  if (m < 1 || m > 12 || d < 1 || d > 31 || y < 1) return null;
  return { value: `${String(y).padStart(4, "0")}-${pad(m)}-${pad(d)}`, keys: `${pad(m)}/${pad(d)}/${y}` };
}

/**
 * The first date in `text`: ISO `2016-12-03`; US `12/03/2016` (month first, as MiniWoB writes it);
 * `03-12-2016` (day first, the dashed form, unless its second part is over 12); `Dec 3, 2016`,
 * `December 3rd, 2016`, `3 December 2016`.
 */
export function parseDate(text: string): DateTimeValue | null {
  const iso = /\b(\d{4})-(\d{1,2})-(\d{1,2})\b/.exec(text);
  if (iso) return valid(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const slash = /\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/.exec(text);
  if (slash) {
    const [a, b] = [Number(slash[1]), Number(slash[2])];
    return a > 12 ? valid(Number(slash[3]), b, a) : valid(Number(slash[3]), a, b);
  }
  const dash = /\b(\d{1,2})-(\d{1,2})-(\d{4})\b/.exec(text);
  if (dash) {
    const [a, b] = [Number(dash[1]), Number(dash[2])];
    return b > 12 ? valid(Number(dash[3]), a, b) : valid(Number(dash[3]), b, a);
  }
  const monthFirst = new RegExp(String.raw`\b${MONTH_NAME}\s+${DAY},?\s+(\d{4})\b`, "i").exec(text);
  if (monthFirst) return valid(Number(monthFirst[3]), monthOf(monthFirst[1] ?? ""), Number(monthFirst[2]));
  const dayFirst = new RegExp(String.raw`\b${DAY}\s+(?:of\s+)?${MONTH_NAME},?\s+(\d{4})\b`, "i").exec(text);
  if (dayFirst) return valid(Number(dayFirst[3]), monthOf(dayFirst[2] ?? ""), Number(dayFirst[1]));
  return null;
}

/** The first clock time in `text`: `3:45 PM`, `03:45pm`, `15:45`, `3:45 p.m.`. */
export function parseTime(text: string): DateTimeValue | null {
  const m = /\b(\d{1,2}):(\d{2})(?::\d{2})?\s*([ap])?\.?\s*(m\b\.?)?/i.exec(text);
  if (!m) return null;
  let h = Number(m[1]);
  const min = Number(m[2]);
  const meridiem = m[3] && m[4] ? m[3].toLowerCase() : null;
  if (min > 59 || h > 23 || (meridiem && (h < 1 || h > 12))) return null;
  if (meridiem === "p" && h < 12) h += 12;
  if (meridiem === "a" && h === 12) h = 0;
  const h12 = h % 12 === 0 ? 12 : h % 12;
  return { value: `${pad(h)}:${pad(min)}`, keys: `${pad(h12)}:${pad(min)}${h < 12 ? "AM" : "PM"}` };
}
