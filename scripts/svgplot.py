"""A hand-written SVG line chart of soak rows (no plotting library): memory in one panel, latency in another."""
from xml.sax.saxutils import escape

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"]


def _panel(rows, keys, labels, top, title, unit, width=900, height=260, left=70, right=200):
    """One panel's SVG elements: each key of `rows` as a line over `minute`."""
    parts = []
    xs = [r["minute"] for r in rows]
    values = [r.get(k) for r in rows for k in keys if isinstance(r.get(k), (int, float))]
    if not xs or not values:
        return parts
    x_max = max(xs) or 1
    y_max = max(values) * 1.1 or 1
    plot_w = width - left - right

    def x(m):
        return left + plot_w * (m / x_max)

    def y(v):
        return top + height - height * (v / y_max)

    parts.append(f'<text x="{left}" y="{top - 10}" font-size="14" font-weight="bold">{escape(title)}</text>')
    parts.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{height}" fill="none" stroke="#999"/>')
    for i in range(5):
        v = y_max * i / 4
        parts.append(f'<line x1="{left}" y1="{y(v):.1f}" x2="{left + plot_w}" y2="{y(v):.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" font-size="11" text-anchor="end">{v:.1f}</text>')
    for i in range(6):
        m = x_max * i / 5
        parts.append(f'<text x="{x(m):.1f}" y="{top + height + 16}" font-size="11" text-anchor="middle">{m:.0f}</text>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{top + height + 32}" font-size="11" text-anchor="middle">minute</text>')
    parts.append(f'<text x="16" y="{top + height / 2}" font-size="11" transform="rotate(-90 16 {top + height / 2})" '
                 f'text-anchor="middle">{escape(unit)}</text>')
    for index, (key, label) in enumerate(zip(keys, labels)):
        color = COLORS[index % len(COLORS)]
        points = [(x(r["minute"]), y(r[key])) for r in rows if isinstance(r.get(key), (int, float))]
        if points:
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
            parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="1.6"/>')
        ly = top + 14 + 18 * index
        parts.append(f'<line x1="{left + plot_w + 12}" y1="{ly - 4}" x2="{left + plot_w + 32}" y2="{ly - 4}" '
                     f'stroke="{color}" stroke-width="2"/>')
        parts.append(f'<text x="{left + plot_w + 38}" y="{ly}" font-size="11">{escape(label)}</text>')
    return parts


def write(path, rows, services, title):
    """Writes the chart of `rows` (dicts with `minute`, `rss_mb_<service>`, the p99s) to `path`."""
    width, height = 900, 700
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" viewBox="0 0 {width} {height}">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{width / 2}" y="24" font-size="16" text-anchor="middle">{escape(title)}</text>']
    parts += _panel(rows, [f"rss_mb_{s}" for s in services], services, 60, "Resident memory (VmRSS)", "MB")
    parts += _panel(rows, ["quote_price_ms_p99", "request_ms_p99", "quote_price_ms_p50", "request_ms_p50"],
                    ["quote→price p99", "request p99", "quote→price p50", "request p50"], 390,
                    "Latency per minute", "ms")
    parts.append("</svg>")
    with open(path, "w") as handle:
        handle.write("\n".join(parts) + "\n")
