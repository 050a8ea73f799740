export interface ChartSeries {
  name: string;
  /** [x, y] points, drawn in order. */
  points: ReadonlyArray<readonly [number, number]>;
  color: string;
  dashed?: boolean;
}

export interface LineChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  series: ReadonlyArray<ChartSeries>;
  /** y axis range (default [0, 1]). */
  yRange?: readonly [number, number];
  width?: number;
  height?: number;
}

/** Escapes text for XML content and attribute values. */
export function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

function num(x: number): string {
  return (Math.round(x * 100) / 100).toString();
}

/** A self-contained SVG line chart (axes, ticks, one polyline per series, a legend). No dependencies. */
export function renderLineChartSvg(spec: LineChartSpec): string {
  const width = spec.width ?? 760;
  const height = spec.height ?? 420;
  const [y0, y1] = spec.yRange ?? [0, 1];
  const left = 60;
  const right = 230;
  const top = 40;
  const bottom = 50;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const xs = spec.series.flatMap((s) => s.points.map((p) => p[0]));
  const x0 = xs.length > 0 ? Math.min(...xs) : 0;
  const x1 = xs.length > 0 ? Math.max(...xs) : 1;
  const sx = (x: number) => left + (x1 === x0 ? plotW / 2 : ((x - x0) / (x1 - x0)) * plotW);
  const sy = (y: number) => top + plotH - ((Math.min(y1, Math.max(y0, y)) - y0) / (y1 - y0 || 1)) * plotH;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="white"/>`);
  out.push(
    `<text x="${num(width / 2)}" y="22" text-anchor="middle" font-size="15">${escapeXml(spec.title)}</text>`,
  );
  for (let i = 0; i <= 5; i++) {
    const y = y0 + ((y1 - y0) * i) / 5;
    out.push(
      `<line x1="${left}" y1="${num(sy(y))}" x2="${left + plotW}" y2="${num(sy(y))}" stroke="#e5e5e5"/>`,
    );
    out.push(`<text x="${left - 6}" y="${num(sy(y) + 4)}" text-anchor="end">${num(y)}</text>`);
  }
  for (const x of [...new Set(xs)].sort((a, b) => a - b)) {
    out.push(`<text x="${num(sx(x))}" y="${top + plotH + 16}" text-anchor="middle">${num(x)}</text>`);
  }
  out.push(
    `<line x1="${left}" y1="${top + plotH}" x2="${left + plotW}" y2="${top + plotH}" stroke="black"/>`,
  );
  out.push(`<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotH}" stroke="black"/>`);
  out.push(
    `<text x="${num(left + plotW / 2)}" y="${height - 12}" text-anchor="middle">${escapeXml(spec.xLabel)}</text>`,
  );
  out.push(
    `<text x="16" y="${num(top + plotH / 2)}" text-anchor="middle" transform="rotate(-90 16 ${num(top + plotH / 2)})">${escapeXml(spec.yLabel)}</text>`,
  );
  spec.series.forEach((s, i) => {
    const dash = s.dashed ? ` stroke-dasharray="6 4"` : "";
    const pts = s.points.map((p) => `${num(sx(p[0]))},${num(sy(p[1]))}`).join(" ");
    out.push(
      `<polyline fill="none" stroke="${escapeXml(s.color)}" stroke-width="2"${dash} points="${pts}"/>`,
    );
    for (const p of s.points) {
      out.push(`<circle cx="${num(sx(p[0]))}" cy="${num(sy(p[1]))}" r="2.5" fill="${escapeXml(s.color)}"/>`);
    }
    const ly = top + 10 + i * 18;
    const lx = left + plotW + 16;
    out.push(
      `<line x1="${lx}" y1="${ly}" x2="${lx + 24}" y2="${ly}" stroke="${escapeXml(s.color)}" stroke-width="2"${dash}/>`,
    );
    out.push(`<text x="${lx + 30}" y="${ly + 4}">${escapeXml(s.name)}</text>`);
  });
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
