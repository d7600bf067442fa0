//! The studies' SVG charts, drawn with `plotters`' SVG backend (no bitmap, no system fonts:
//! text is laid out from the size estimate [`text_width`] and drawn by the viewer in its
//! sans-serif font).
//!
//! Every chart is laid out for the page: at most [`PAGE_W`] pixels wide when it can be (a
//! chart's panels wrap into rows, its legend flows in rows under the plots, long titles
//! wrap), with a `viewBox` so `index.html` scales it down to a narrower window. Every label
//! and legend entry lies inside the drawing, every panel's plotting area has a grey frame
//! (the only unfilled rectangles a chart draws) and holds its data, and each axis writes all
//! its ticks in one number format ([`Axis`]). `tests/suite/report_charts.rs` checks these
//! properties on the SVG files `regwatt report` writes.

mod area;
mod energy;
mod lines;
mod seed;

pub use area::{area_chart, AreaBar, AreaPanel};
pub use energy::{energy_chart, EnergyPanel, EnergyView};
pub use lines::{energy_area_chart, node_chart, LinePanel, ScatterPanel, ScatterPoint};
pub use seed::seed_chart;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use regwatt_designs::DesignSpec;

/// A drawing error as text (plotters' errors borrow the backend).
fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing a chart: {e:?}")
}

/// The width a chart is laid out for: `index.html`'s content width in a 1,280-pixel-wide
/// window (the body's 24 px margins and a scrollbar off).
pub const PAGE_W: i32 = 1200;

const FONT: &str = "sans-serif";

/// Text sizes (plotters' sizes; the SVG's `font-size` is plotters' size / 1.24).
const TITLE_SIZE: f64 = 18.0;
const PANEL_TITLE_SIZE: f64 = 15.0;
const LABEL_SIZE: f64 = 14.0;
const TICK_SIZE: f64 = 13.0;
/// Legend headings.
const HEADING_SIZE: f64 = 15.0;
/// The smallest text: the area chart's captions under each bar.
const SMALL_SIZE: f64 = 12.0;

/// Line height of text at size `s`.
fn line_h(s: f64) -> i32 {
    (s * 1.35).ceil() as i32
}

/// The plotting areas' frame.
const FRAME: RGBColor = RGBColor(170, 170, 170);

/// Component colours (Tableau 20, dark and light rows interleaved as distinct hues).
const PALETTE: [(u8, u8, u8); 20] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
    (57, 59, 121),
    (173, 73, 74),
    (99, 121, 57),
    (140, 109, 49),
    (123, 65, 115),
    (82, 84, 163),
    (206, 109, 189),
    (0, 90, 50),
    (165, 81, 0),
    (80, 80, 80),
];

fn colour(i: usize) -> RGBColor {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    RGBColor(r, g, b)
}

/// The light tint of a colour (static energy).
fn light(c: RGBColor) -> RGBColor {
    let t = |x: u8| (f64::from(x) + (255.0 - f64::from(x)) * 0.55).round() as u8;
    RGBColor(t(c.0), t(c.1), t(c.2))
}

fn component_colour(components: &[String], name: &str) -> RGBColor {
    colour(components.iter().position(|c| c == name).unwrap_or(0))
}

fn design_colour(d: DesignSpec) -> RGBColor {
    colour(DesignSpec::ALL.iter().position(|x| *x == d).unwrap_or(0))
}

/// Estimated width in pixels of `text` at plotters size `size`: 0.6 × size per character,
/// i.e. 0.744 em of the SVG's `font-size` (size / 1.24), wider than the average glyph of a
/// sans-serif font (digits are 0.64 em in DejaVu Sans), so a label laid out with it fits.
pub fn text_width(text: &str, size: f64) -> i32 {
    (size * 0.6 * text.chars().count() as f64).ceil() as i32
}

fn style(size: f64) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font())
}

/// `text` broken at spaces into lines no wider than `max_w` at `size` (a word longer than
/// the line stays whole on its own line).
pub fn wrap(text: &str, size: f64, max_w: i32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if !line.is_empty() && text_width(&candidate, size) > max_w {
            lines.push(std::mem::take(&mut line));
            line = word.to_string();
        } else {
            line = candidate;
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// A numeric axis: its range, its ticks (a 1-2-5 step, the range's ends on ticks) and the one
/// number format every tick is written in.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<f64>,
    step: f64,
    /// Decimals of the fixed format, or of the mantissa in exponent notation.
    decimals: usize,
    /// Exponent notation (values ≥ 10^5 or steps below 10^-3).
    exponent: bool,
}

impl Axis {
    /// An axis over at least `lo..hi` with at most about `max_ticks` ticks.
    pub fn new(lo: f64, hi: f64, max_ticks: usize) -> Axis {
        let (mut lo, mut hi) = if lo.is_finite() && hi.is_finite() {
            (lo.min(hi), lo.max(hi))
        } else {
            (0.0, 1.0)
        };
        if hi - lo <= 1e-12 * hi.abs().max(lo.abs()) {
            // one value: a range above it (and below it when negative)
            let pad = if hi == 0.0 { 1.0 } else { 0.5 * hi.abs() };
            if lo < 0.0 {
                lo -= pad;
            }
            hi += pad;
        }
        // the 1-2-2.5-5 step nearest (in ratio) to an even split into `max_ticks - 1` steps
        let raw = (hi - lo) / max_ticks.saturating_sub(1).max(1) as f64;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 2.5, 5.0, 10.0]
            .iter()
            .map(|m| m * mag)
            .min_by(|a, b| {
                let d = |s: f64| (s / raw).ln().abs();
                d(*a).total_cmp(&d(*b))
            })
            .unwrap_or(mag);
        let first = (lo / step + 1e-9).floor();
        let last = (hi / step - 1e-9).ceil();
        let top = first.abs().max(last.abs()) * step;
        let exponent = top >= 1e5 || step < 1e-3;
        // decimals that write the step exactly (2.5: one more than 2 or 5)
        let step_decimals = (0..=12usize)
            .find(|d| {
                let x = step * 10f64.powi(*d as i32);
                (x - x.round()).abs() < 1e-6 * x.abs().max(1.0)
            })
            .unwrap_or(12);
        let decimals = if exponent {
            // the mantissa's decimals that write the step at the largest tick's exponent
            let step_exp = step.log10().floor() as i32;
            let extra = i32::from(step / 10f64.powi(step_exp) == 2.5);
            (top.log10().floor() as i32 - step_exp + extra).max(0) as usize
        } else {
            step_decimals
        };
        let ticks: Vec<f64> = (0..=(last - first) as i64)
            .map(|i| (first + i as f64) * step)
            .collect();
        Axis {
            lo: first * step,
            hi: last * step,
            ticks,
            step,
            decimals,
            exponent,
        }
    }

    /// A tick value in the axis's format.
    pub fn format(&self, v: f64) -> String {
        // snap to the tick grid (no -0, no 0.30000000000000004)
        let v = (v / self.step).round() * self.step + 0.0;
        if self.exponent {
            format!("{v:.*e}", self.decimals)
        } else {
            format!("{v:.*}", self.decimals)
        }
    }

    /// Width of a y axis's label area: the widest tick label, the tick marks and the gap
    /// plotters leaves (10 px), and the rotated axis description.
    pub fn label_area(&self) -> i32 {
        let widest = self
            .ticks
            .iter()
            .map(|v| text_width(&self.format(*v), TICK_SIZE))
            .max()
            .unwrap_or(0);
        widest + 10 + 8 + line_h(LABEL_SIZE)
    }

    /// The axis as a plotters coordinate whose key points are the ticks.
    fn coord(&self) -> Ticked {
        category_coord(self.lo, self.hi, self.ticks.clone())
    }
}

/// A plotters coordinate over `lo..hi` with its mesh lines and labels at given ticks only
/// (plotters' `WithKeyPoints` does the same but cannot take a label formatter for `f64`).
#[derive(Clone)]
struct Ticked {
    inner: plotters::coord::types::RangedCoordf64,
    ticks: Vec<f64>,
}

impl plotters::coord::ranged1d::Ranged for Ticked {
    type ValueType = f64;
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(v, limit)
    }

    fn key_points<H: plotters::coord::ranged1d::KeyPointHint>(&self, hint: H) -> Vec<f64> {
        // no light mesh lines between the ticks
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }
}

/// A coordinate over `lo..hi` with ticks at `ticks` (empty: none; a categorical axis).
fn category_coord(lo: f64, hi: f64, ticks: Vec<f64>) -> Ticked {
    Ticked {
        inner: (lo..hi).into(),
        ticks,
    }
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// A white SVG canvas of `size` with `lines` of title from the top.
fn canvas<'a>(svg: &'a mut String, size: (i32, i32), lines: &[String]) -> anyhow::Result<Area<'a>> {
    let root = SVGBackend::with_string(svg, (size.0.max(1) as u32, size.1.max(1) as u32))
        .into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    text_lines(&root, lines, TITLE_SIZE, (10, 8))?;
    Ok(root)
}

/// Height of a title of `n` lines (with its padding).
fn title_h(n: usize) -> i32 {
    8 + n as i32 * line_h(TITLE_SIZE) + 10
}

/// Lines of text at `size` from `(x, y)` down, left-aligned, tops at each line.
fn text_lines(
    area: &Area<'_>,
    lines: &[String],
    size: f64,
    (x, y): (i32, i32),
) -> anyhow::Result<()> {
    for (i, l) in lines.iter().enumerate() {
        area.draw_text(
            l,
            &style(size).pos(Pos::new(HPos::Left, VPos::Top)),
            (x, y + i as i32 * line_h(size)),
        )
        .map_err(err)?;
    }
    Ok(())
}

/// A grey frame around a chart's plotting area (pixel ranges as plotters reports them).
fn frame(
    root: &Area<'_>,
    (xr, yr): (std::ops::Range<i32>, std::ops::Range<i32>),
) -> anyhow::Result<()> {
    root.draw(&Rectangle::new(
        [(xr.start, yr.start), (xr.end - 1, yr.end - 1)],
        FRAME.stroke_width(1),
    ))
    .map_err(err)
}

/// A legend entry's key.
#[derive(Clone, Debug)]
pub enum Key {
    /// Colour boxes side by side (a component's solid and light energy, a design).
    Boxes(Vec<RGBColor>),
    /// A marker shape ([`Marker`]) in a colour.
    Marker(Marker, RGBColor),
}

impl Key {
    fn width(&self) -> i32 {
        match self {
            Key::Boxes(c) => 12 * c.len().max(1) as i32,
            Key::Marker(..) => 12,
        }
    }
}

/// A legend: a heading, then its entries flowing left to right in rows as wide as the chart.
pub struct Legend {
    pub heading: String,
    pub entries: Vec<(Key, String)>,
}

const LEGEND_ROW: i32 = 20;

impl Legend {
    fn entry_w(key: &Key, label: &str) -> i32 {
        key.width() + 6 + text_width(label, LABEL_SIZE) + 22
    }

    /// Each entry's offset from the legend's origin, and the legend's height, in `width`:
    /// columns as wide as the widest entry, filled row by row.
    fn layout(&self, width: i32) -> (Vec<(i32, i32)>, i32) {
        let col_w = self
            .entries
            .iter()
            .map(|(k, l)| Self::entry_w(k, l))
            .max()
            .unwrap_or(1);
        let cols = (width / col_w).max(1) as usize;
        let top = line_h(HEADING_SIZE) + 4;
        let pos: Vec<(i32, i32)> = (0..self.entries.len())
            .map(|i| {
                (
                    (i % cols) as i32 * col_w,
                    top + (i / cols) as i32 * LEGEND_ROW,
                )
            })
            .collect();
        (
            pos,
            top + self.entries.len().div_ceil(cols) as i32 * LEGEND_ROW,
        )
    }

    /// Height of the legend laid out in `width`.
    pub fn height(&self, width: i32) -> i32 {
        self.layout(width).1
    }

    /// Draws the legend from `(x, y)` in `width`.
    fn draw(&self, area: &Area<'_>, (x, y): (i32, i32), width: i32) -> anyhow::Result<()> {
        area.draw_text(
            &self.heading,
            &style(HEADING_SIZE).pos(Pos::new(HPos::Left, VPos::Top)),
            (x, y),
        )
        .map_err(err)?;
        let (pos, _) = self.layout(width);
        for ((key, label), (dx, dy)) in self.entries.iter().zip(pos) {
            let (ex, ey) = (x + dx, y + dy);
            match key {
                Key::Boxes(colours) => {
                    for (i, c) in colours.iter().enumerate() {
                        let x0 = ex + 12 * i as i32;
                        area.draw(&Rectangle::new(
                            [(x0, ey + 2), (x0 + 11, ey + 14)],
                            c.filled(),
                        ))
                        .map_err(err)?;
                    }
                }
                Key::Marker(m, c) => m.draw(area, (ex + 6, ey + 8), *c)?,
            }
            area.draw_text(
                label,
                &style(LABEL_SIZE).pos(Pos::new(HPos::Left, VPos::Top)),
                (ex + key.width() + 6, ey),
            )
            .map_err(err)?;
        }
        Ok(())
    }
}

/// A point marker: one shape per node in the energy-versus-area chart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Triangle,
    Square,
    Diamond,
    RingCircle,
    RingTriangle,
    Cross,
}

impl Marker {
    /// The `i`-th marker (they repeat after seven).
    pub fn nth(i: usize) -> Marker {
        const ALL: [Marker; 7] = [
            Marker::Circle,
            Marker::Triangle,
            Marker::Square,
            Marker::Diamond,
            Marker::RingCircle,
            Marker::RingTriangle,
            Marker::Cross,
        ];
        ALL[i % ALL.len()]
    }

    /// Draws the marker centred at `(x, y)` (pixels), about 12 pixels across.
    fn draw(self, area: &Area<'_>, (x, y): (i32, i32), c: RGBColor) -> anyhow::Result<()> {
        let tri = vec![(x, y - 6), (x + 6, y + 5), (x - 6, y + 5)];
        match self {
            Marker::Circle => area.draw(&Circle::new((x, y), 5, c.filled())),
            Marker::RingCircle => area.draw(&Circle::new((x, y), 5, c.stroke_width(2))),
            Marker::Triangle => area.draw(&Polygon::new(tri, c.filled())),
            Marker::RingTriangle => {
                let mut closed = tri.clone();
                closed.push(tri[0]);
                area.draw(&PathElement::new(closed, c.stroke_width(2)))
            }
            Marker::Square => area.draw(&Polygon::new(
                vec![
                    (x - 5, y - 5),
                    (x + 5, y - 5),
                    (x + 5, y + 5),
                    (x - 5, y + 5),
                ],
                c.filled(),
            )),
            Marker::Diamond => area.draw(&Polygon::new(
                vec![(x, y - 6), (x + 6, y), (x, y + 6), (x - 6, y)],
                c.filled(),
            )),
            Marker::Cross => {
                area.draw(&PathElement::new(
                    vec![(x - 5, y - 5), (x + 5, y + 5)],
                    c.stroke_width(2),
                ))
                .map_err(err)?;
                area.draw(&PathElement::new(
                    vec![(x - 5, y + 5), (x + 5, y - 5)],
                    c.stroke_width(2),
                ))
            }
        }
        .map_err(err)
    }
}

/// Panels of `panel_w` in as many columns as fit in [`PAGE_W`] (at least one).
fn columns(n: usize, panel_w: i32) -> usize {
    ((PAGE_W / panel_w.max(1)) as usize).clamp(1, n.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_ticks_share_one_format() {
        let a = Axis::new(0.0, 108.0, 6);
        let t: Vec<String> = a.ticks.iter().map(|v| a.format(*v)).collect();
        assert_eq!(t, ["0", "20", "40", "60", "80", "100", "120"]);
        let a = Axis::new(0.0, 1.08, 6);
        let t: Vec<String> = a.ticks.iter().map(|v| a.format(*v)).collect();
        assert_eq!(t, ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0", "1.2"]);
        let a = Axis::new(-10.3, 4.0, 7);
        let t: Vec<String> = a.ticks.iter().map(|v| a.format(*v)).collect();
        assert_eq!(
            t,
            ["-12.5", "-10.0", "-7.5", "-5.0", "-2.5", "0.0", "2.5", "5.0"]
        );
        assert_eq!((a.lo, a.hi), (-12.5, 5.0));
        let a = Axis::new(0.0, 2.5e6, 6);
        let t: Vec<String> = a.ticks.iter().map(|v| a.format(*v)).collect();
        assert_eq!(t, ["0.0e0", "5.0e5", "1.0e6", "1.5e6", "2.0e6", "2.5e6"]);
        // every tick of an axis has the same number of decimals
        for (lo, hi) in [
            (0.0, 0.0031),
            (0.2, 7.0),
            (-9.65, 12.0),
            (0.0, 2.5e6),
            (1.0, 1.0),
        ] {
            let a = Axis::new(lo, hi, 6);
            assert!(a.lo <= lo && a.hi >= hi, "{lo}..{hi}: {a:?}");
            let dec: Vec<usize> = a
                .ticks
                .iter()
                .map(|v| {
                    let s = a.format(*v);
                    let m = s.split('e').next().unwrap_or("").to_string();
                    m.split('.').nth(1).map_or(0, str::len)
                })
                .collect();
            assert!(dec.windows(2).all(|w| w[0] == w[1]), "{lo}..{hi}: {dec:?}");
            assert!(a.ticks.len() >= 2 && a.ticks.len() <= 12, "{a:?}");
        }
    }

    #[test]
    fn wrap_keeps_lines_within_the_width() {
        let t = "Area-overhead budget, gtx480: each component's area change as a share of the reference's total";
        let lines = wrap(t, 15.0, 300);
        assert!(lines.len() > 1);
        assert!(
            lines.iter().all(|l| text_width(l, 15.0) <= 300),
            "{lines:?}"
        );
        assert_eq!(lines.join(" "), t);
        assert_eq!(wrap("", 12.0, 100), vec![String::new()]);
    }

    #[test]
    fn legend_rows_stay_within_the_width() {
        let l = Legend {
            heading: "component".into(),
            entries: (0..12)
                .map(|i| (Key::Boxes(vec![colour(i)]), format!("component_{i}")))
                .collect(),
        };
        let (pos, h) = l.layout(400);
        for ((k, label), (x, _)) in l.entries.iter().zip(&pos) {
            assert!(x + Legend::entry_w(k, label) <= 400, "{label} at {x}");
        }
        assert!(h >= 4 * LEGEND_ROW, "12 entries wrap into rows: {h}");
    }
}
