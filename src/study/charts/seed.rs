//! The chart of one seed figure (`regwatt reproduce`, `figures/ID.svg`): regwatt's value per
//! workload as bars (or its one value), the seed's value as a dashed line. Plain SVG text: the
//! figure is a handful of bars.

use regwatt_designs::reproduce::{number, Row};

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The SVG of `r` (a row with a value; without one, an empty frame with the title).
pub fn seed_chart(r: &Row) -> String {
    let bars: Vec<(String, f64)> = if r.per_workload.is_empty() {
        r.regwatt_value
            .map(|v| vec![("regwatt".to_string(), v)])
            .unwrap_or_default()
    } else {
        r.per_workload.clone()
    };
    let (w, h, left, top, bottom) = (760.0_f64, 420.0_f64, 70.0_f64, 60.0_f64, 120.0_f64);
    let plot_h = h - top - bottom;
    let plot_w = w - left - 20.0;
    let mut lo = bars
        .iter()
        .map(|b| b.1)
        .fold(r.seed_value.min(0.0), f64::min);
    let mut hi = bars
        .iter()
        .map(|b| b.1)
        .fold(r.seed_value.max(0.0), f64::max);
    if hi - lo < 1e-12 {
        hi += 1.0;
        lo -= 1.0;
    }
    let pad = 0.05 * (hi - lo);
    let (lo, hi) = (lo - pad, hi + pad);
    let y = |v: f64| top + plot_h * (hi - v) / (hi - lo);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n<text x=\"{left}\" y=\"22\" font-size=\"14\">{} ({}): {}</text>\n<text x=\"{left}\" y=\"40\">seed {} {} (dashed); regwatt {} {}, size {}</text>\n",
        esc(&r.figure),
        esc(&r.seed),
        esc(&r.metric),
        number(r.seed_value),
        esc(&r.unit),
        r.regwatt_value.map_or("not run".into(), number),
        esc(&r.unit),
        esc(&r.size),
    );
    // axis: zero line and the extremes
    for v in [lo, 0.0, hi] {
        if v < lo || v > hi {
            continue;
        }
        s.push_str(&format!(
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#bbb\"/>\n<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n",
            left + plot_w,
            y(v),
            y(v),
            left - 6.0,
            y(v) + 4.0,
            number(v)
        ));
    }
    let n = bars.len().max(1) as f64;
    let slot = plot_w / n;
    for (i, (name, v)) in bars.iter().enumerate() {
        let x = left + slot * i as f64 + slot * 0.15;
        let (y0, y1) = (y(0.0_f64.clamp(lo, hi)), y(*v));
        let (top_y, height) = if y1 < y0 {
            (y1, y0 - y1)
        } else {
            (y0, y1 - y0)
        };
        s.push_str(&format!(
            "<rect x=\"{x:.1}\" y=\"{top_y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#4a7fb5\"><title>{}: {}</title></rect>\n",
            slot * 0.7,
            height.max(0.5),
            esc(name),
            number(*v)
        ));
        let lx = x + slot * 0.35;
        let ly = top + plot_h + 12.0;
        s.push_str(&format!(
            "<text x=\"{lx:.1}\" y=\"{ly:.1}\" text-anchor=\"end\" transform=\"rotate(-45 {lx:.1} {ly:.1})\">{}</text>\n",
            esc(name)
        ));
    }
    s.push_str(&format!(
        "<line x1=\"{left}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#c0392b\" stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n</svg>\n",
        left + plot_w,
        y(r.seed_value),
        y(r.seed_value)
    ));
    s
}
