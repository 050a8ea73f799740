import { readdirSync, readFileSync } from "node:fs";

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** The executable name as the kernel reports it (may be cut to 15 characters). */
  comm: string;
  cmdline: string;
}

function readProcess(pid: number): ProcessInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" ");
    const state = fields[0];
    if (state === "Z" || state === "X") return null;
    const ppid = Number(fields[1]);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
    return { pid, ppid, comm, cmdline };
  } catch {
    return null;
  }
}

/** Every live process on the machine (Linux /proc); empty where /proc is missing. */
export function listProcesses(): ProcessInfo[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const out: ProcessInfo[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const info = readProcess(Number(name));
    if (info) out.push(info);
  }
  return out;
}

/** Live descendants of `rootPid` (children, grandchildren, ...), zombies excluded. */
export function listDescendants(rootPid: number = process.pid): ProcessInfo[] {
  const all = listProcesses();
  const byParent = new Map<number, ProcessInfo[]>();
  for (const p of all) {
    const list = byParent.get(p.ppid) ?? [];
    list.push(p);
    byParent.set(p.ppid, list);
  }
  const out: ProcessInfo[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    for (const child of byParent.get(pid) ?? []) {
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

/**
 * Memory of a process in bytes (0 when it is gone): "rss" (resident set, shared pages counted in
 * full) or "pss" (proportional set: shared pages split between their users).
 */
export function rssBytes(pid: number, kind: "rss" | "pss" = "rss"): number {
  try {
    const text =
      kind === "rss"
        ? readFileSync(`/proc/${pid}/status`, "utf8")
        : readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const m = (kind === "rss" ? /VmRSS:\s+(\d+)\s+kB/ : /^Pss:\s+(\d+)\s+kB/m).exec(text);
    return m?.[1] ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Summed memory of the Chromium processes below `rootPid`. */
export function chromiumRssBytes(rootPid: number = process.pid, kind: "rss" | "pss" = "rss"): number {
  return listDescendants(rootPid)
    .filter((p) => /chrom/i.test(p.comm))
    .reduce((sum, p) => sum + rssBytes(p.pid, kind), 0);
}
