//! The studies' SVG charts, drawn with `plotters`' SVG backend (no bitmap, no system fonts:
//! text is laid out from plotters' own size estimate and drawn by the viewer in its
//! sans-serif font). Every chart has a title, axis descriptions with units and a legend in
//! its own column beside the plots, so no label is drawn over data or another label: bar
//! labels are rotated, one per bar, in a band sized for the longest.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use regwatt_designs::config::Node;
use regwatt_designs::DesignSpec;

/// A drawing error as text (plotters' errors borrow the backend).
fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing a chart: {e:?}")
}

const FONT: &str = "sans-serif";

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

/// Estimated width in pixels of `text` at `size` (plotters' own estimate for SVG text).
fn text_width(text: &str, size: f64) -> i32 {
    (size * 0.6 * text.chars().count() as f64).ceil() as i32
}

fn style(size: f64) -> TextStyle<'static> {
    TextStyle::from((FONT, size).into_font())
}

/// A white SVG canvas of `size` with `title` in a band `title_h` high.
fn canvas<'a>(
    svg: &'a mut String,
    size: (u32, u32),
    title: &str,
    title_h: i32,
) -> anyhow::Result<DrawingArea<SVGBackend<'a>, plotters::coord::Shift>> {
    let root = SVGBackend::with_string(svg, size).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    root.draw_text(
        title,
        &style(15.0).pos(Pos::new(HPos::Left, VPos::Center)),
        (10, title_h / 2),
    )
    .map_err(err)?;
    Ok(root)
}

/// `n` panels `panel_w` wide side by side below the title band.
fn side_by_side<'a>(
    root: &DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
    n: usize,
    panel_w: i32,
    title_h: i32,
) -> Vec<DrawingArea<SVGBackend<'a>, plotters::coord::Shift>> {
    let h = root.dim_in_pixel().1 as i32;
    (0..n)
        .map(|i| {
            root.clone()
                .shrink((panel_w * i as i32, title_h), (panel_w, h - title_h))
        })
        .collect()
}

/// A legend in a column: (swatch colours, label) rows from `(x, y)`.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    (x, mut y): (i32, i32),
    heading: &str,
    rows: &[(Vec<RGBColor>, String)],
) -> anyhow::Result<i32> {
    area.draw_text(
        heading,
        &style(14.0).pos(Pos::new(HPos::Left, VPos::Top)),
        (x, y),
    )
    .map_err(err)?;
    y += 22;
    for (colours, label) in rows {
        for (i, c) in colours.iter().enumerate() {
            let x0 = x + 10 * i as i32;
            area.draw(&Rectangle::new([(x0, y), (x0 + 10, y + 12)], c.filled()))
                .map_err(err)?;
        }
        let tx = x + 10 * colours.len().max(1) as i32 + 6;
        area.draw_text(
            label,
            &style(12.0).pos(Pos::new(HPos::Left, VPos::Top)),
            (tx, y),
        )
        .map_err(err)?;
        y += 18;
    }
    Ok(y)
}

/// One design's panel of the energy chart: a bar per workload (and the geometric mean),
/// each a stack of (component, dynamic, static) segments normalised to the reference.
pub struct EnergyPanel {
    pub title: String,
    pub bars: Vec<Option<Vec<(String, f64, f64)>>>,
}

/// Stacked energy bars, one panel per design (a shared y scale), bar labels under the last.
pub fn energy_chart(
    title: &str,
    labels: &[String],
    panels: &[EnergyPanel],
    components: &[String],
) -> anyhow::Result<String> {
    let n = labels.len().max(1);
    let bar_w = 26;
    let plot_w = (n as i32 * bar_w).max(300);
    let y_area = 80;
    let legend_w = 24
        + components
            .iter()
            .map(|c| text_width(c, 12.0))
            .max()
            .unwrap_or(80)
            .max(150);
    let label_h = labels
        .iter()
        .map(|l| text_width(l, 12.0))
        .max()
        .unwrap_or(40)
        + 14;
    let panel_h = 210;
    let title_h = 40;
    let w = (y_area + plot_w + 30 + legend_w) as u32;
    let h = (title_h + panel_h * panels.len() as i32 + label_h + 30) as u32;
    let ymax = panels
        .iter()
        .flat_map(|p| p.bars.iter().flatten())
        .map(|segs| segs.iter().map(|(_, d, s)| d + s).sum::<f64>())
        .fold(1.0f64, f64::max)
        * 1.08;
    let mut svg = String::new();
    {
        let root = canvas(&mut svg, (w, h), title, title_h)?;
        let mut top = title_h;
        let last = panels.len().saturating_sub(1);
        for (pi, p) in panels.iter().enumerate() {
            let bottom = top + panel_h + if pi == last { label_h } else { 0 };
            let area = root
                .clone()
                .shrink((0, top), (y_area + plot_w + 20, bottom - top));
            let mut chart = ChartBuilder::on(&area)
                .margin_top(24)
                .margin_right(10)
                .x_label_area_size(if pi == last { label_h } else { 6 })
                .y_label_area_size(y_area)
                .build_cartesian_2d(0f64..n as f64, 0f64..ymax)
                .map_err(err)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(0)
                .y_labels(5)
                .y_desc("energy / reference total")
                .y_label_formatter(&|v| format!("{v:.2}"))
                .label_style(style(12.0))
                .axis_desc_style(style(12.0))
                .draw()
                .map_err(err)?;
            root.draw_text(
                &format!("design {}", p.title),
                &style(13.0).pos(Pos::new(HPos::Left, VPos::Top)),
                (y_area + 8, top + 4),
            )
            .map_err(err)?;
            // the reference's total
            chart
                .draw_series(LineSeries::new(
                    [(0.0, 1.0), (n as f64, 1.0)],
                    BLACK.mix(0.35).stroke_width(1),
                ))
                .map_err(err)?;
            for (i, bar) in p.bars.iter().enumerate() {
                let Some(segs) = bar else { continue };
                let (x0, x1) = (i as f64 + 0.12, i as f64 + 0.88);
                let mut y = 0.0;
                // dynamic energy of every component first, then static
                for (name, d, _) in segs {
                    let c = component_colour(components, name);
                    chart
                        .draw_series([Rectangle::new([(x0, y), (x1, y + d)], c.filled())])
                        .map_err(err)?;
                    y += d;
                }
                for (name, _, s) in segs {
                    let c = light(component_colour(components, name));
                    chart
                        .draw_series([Rectangle::new([(x0, y), (x1, y + s)], c.filled())])
                        .map_err(err)?;
                    y += s;
                }
            }
            if n > 1 {
                // the geometric mean apart from the workloads
                let xg = (n - 1) as f64;
                chart
                    .draw_series(LineSeries::new(
                        [(xg, 0.0), (xg, ymax)],
                        BLACK.mix(0.5).stroke_width(1),
                    ))
                    .map_err(err)?;
            }
            if pi == last {
                for (i, l) in labels.iter().enumerate() {
                    let (px, py) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
                    root.draw_text(
                        l,
                        &style(12.0)
                            .transform(FontTransform::Rotate270)
                            .pos(Pos::new(HPos::Right, VPos::Center)),
                        (px, py + 6),
                    )
                    .map_err(err)?;
                }
            }
            top = bottom;
        }
        let mut rows: Vec<(Vec<RGBColor>, String)> = components
            .iter()
            .map(|c| {
                let col = component_colour(components, c);
                (vec![col, light(col)], c.clone())
            })
            .collect();
        rows.push((vec![], String::new()));
        let gray = RGBColor(110, 110, 110);
        rows.push((vec![gray], "solid: dynamic energy".into()));
        rows.push((vec![light(gray)], "light: static energy".into()));
        legend(
            &root,
            (y_area + plot_w + 30, title_h + 24),
            "component",
            &rows,
        )?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// One panel of the node-scaling chart: a line per design over the nodes.
pub struct LinePanel {
    pub title: String,
    pub y_desc: String,
    pub series: Vec<(DesignSpec, Vec<Option<f64>>)>,
}

/// Lines against the node (largest first, evenly spaced), panels side by side, a legend of
/// designs beside them.
pub fn node_chart(title: &str, nodes: &[Node], panels: &[LinePanel]) -> anyhow::Result<String> {
    let panel_w = 360;
    let legend_w = 150;
    let title_h = 40;
    let h = 420u32;
    let w = (panel_w * panels.len() as i32 + legend_w) as u32;
    let n = nodes.len().max(1);
    let mut svg = String::new();
    {
        let root = canvas(&mut svg, (w, h), title, title_h)?;
        for (p, area) in panels
            .iter()
            .zip(side_by_side(&root, panels.len(), panel_w, title_h))
        {
            let ymax = p
                .series
                .iter()
                .flat_map(|(_, v)| v.iter().flatten())
                .fold(0.0f64, |a, &b| a.max(b))
                .max(1e-12)
                * 1.1;
            let mut chart = ChartBuilder::on(&area)
                .caption(&p.title, style(13.0))
                .margin(10)
                .x_label_area_size(40)
                .y_label_area_size(62)
                .build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0f64..ymax)
                .map_err(err)?;
            chart
                .configure_mesh()
                .x_labels(n + 1)
                .x_desc("node [nm]")
                .y_desc(&p.y_desc)
                .x_label_formatter(&|x| {
                    // a label at each node's position only
                    if (x - x.round()).abs() > 1e-6 || *x < 0.0 {
                        return String::new();
                    }
                    nodes
                        .get(x.round() as usize)
                        .map_or_else(String::new, |nd| format!("{}", nd.nm()))
                })
                .y_label_formatter(&|v| format_axis(*v))
                .label_style(style(11.0))
                .axis_desc_style(style(12.0))
                .draw()
                .map_err(err)?;
            // earlier designs drawn wider beneath later ones, so lines that coincide stay
            // visible
            let count = p.series.len() as u32;
            for (i, (d, values)) in p.series.iter().enumerate() {
                let c = design_colour(*d);
                let width = 2 + 2 * (count - 1 - i as u32);
                let pts: Vec<(f64, f64)> = values
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| v.map(|v| (i as f64, v)))
                    .collect();
                chart
                    .draw_series(LineSeries::new(pts.clone(), c.stroke_width(width)))
                    .map_err(err)?;
                chart
                    .draw_series(
                        pts.iter()
                            .map(|&p| Circle::new(p, 2 + width as i32 / 2, c.filled())),
                    )
                    .map_err(err)?;
            }
        }
        let designs: Vec<DesignSpec> = panels
            .first()
            .map(|p| p.series.iter().map(|(d, _)| *d).collect())
            .unwrap_or_default();
        let rows: Vec<(Vec<RGBColor>, String)> = designs
            .iter()
            .map(|d| (vec![design_colour(*d)], d.name().to_string()))
            .collect();
        legend(
            &root,
            (panel_w * panels.len() as i32 + 10, title_h + 30),
            "design",
            &rows,
        )?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// An axis number: few digits, exponent notation when tiny or huge.
fn format_axis(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 {
        "0".into()
    } else if !(1e-2..1e5).contains(&a) {
        format!("{v:.1e}")
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// One design of the area chart: its components' area changes (% of the reference's total),
/// its total overhead and the seed's published one.
pub struct AreaBar {
    pub design: String,
    pub segments: Vec<(String, f64)>,
    pub total_pct: f64,
    pub published_pct: Option<f64>,
}

/// One node's panel of the area chart.
pub struct AreaPanel {
    pub title: String,
    pub bars: Vec<AreaBar>,
}

/// Per design, a stack of component area changes beside the published overhead (grey); one
/// panel per node, side by side.
pub fn area_chart(
    title: &str,
    panels: &[AreaPanel],
    components: &[String],
) -> anyhow::Result<String> {
    let designs = panels
        .iter()
        .map(|p| p.bars.len())
        .max()
        .unwrap_or(1)
        .max(1);
    let panel_w = 110 + 120 * designs as i32;
    let used: Vec<&String> = components
        .iter()
        .filter(|c| {
            panels
                .iter()
                .flat_map(|p| p.bars.iter())
                .any(|b| b.segments.iter().any(|(n, _)| n == *c))
        })
        .collect();
    let legend_w = 40
        + used
            .iter()
            .map(|c| text_width(c, 12.0))
            .max()
            .unwrap_or(80)
            .max(text_width("published by the seed", 12.0))
            .max(text_width("component (regwatt)", 14.0));
    let title_h = 40;
    let h = 460u32;
    let w = (panel_w * panels.len() as i32 + legend_w) as u32;
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for b in panels.iter().flat_map(|p| p.bars.iter()) {
        let pos: f64 = b.segments.iter().map(|s| s.1.max(0.0)).sum();
        let neg: f64 = b.segments.iter().map(|s| s.1.min(0.0)).sum();
        hi = hi
            .max(pos)
            .max(b.published_pct.unwrap_or(0.0))
            .max(b.total_pct);
        lo = lo.min(neg).min(b.total_pct);
    }
    let span = (hi - lo).max(1.0);
    let (lo, hi) = (
        lo - 0.08 * span * f64::from(u8::from(lo < 0.0)),
        hi + 0.15 * span,
    );
    let grey = RGBColor(150, 150, 150);
    let mut svg = String::new();
    {
        let root = canvas(&mut svg, (w, h), title, title_h)?;
        for (p, area) in panels
            .iter()
            .zip(side_by_side(&root, panels.len(), panel_w, title_h))
        {
            let nb = p.bars.len().max(1);
            let mut chart = ChartBuilder::on(&area)
                .caption(&p.title, style(13.0))
                .margin(10)
                .x_label_area_size(46)
                .y_label_area_size(62)
                .build_cartesian_2d(0f64..nb as f64, lo..hi)
                .map_err(err)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(0)
                .y_desc("area overhead [% of the reference's area]")
                .y_label_formatter(&|v| format!("{v:.1}"))
                .label_style(style(11.0))
                .axis_desc_style(style(12.0))
                .draw()
                .map_err(err)?;
            chart
                .draw_series(LineSeries::new(
                    [(0.0, 0.0), (nb as f64, 0.0)],
                    BLACK.stroke_width(1),
                ))
                .map_err(err)?;
            for (i, b) in p.bars.iter().enumerate() {
                let x = i as f64;
                let (mut up, mut down) = (0.0, 0.0);
                for (name, v) in &b.segments {
                    let c = component_colour(components, name);
                    let (y0, y1) = if *v >= 0.0 {
                        up += v;
                        (up - v, up)
                    } else {
                        down += v;
                        (down, down - v)
                    };
                    chart
                        .draw_series([Rectangle::new([(x + 0.1, y0), (x + 0.45, y1)], c.filled())])
                        .map_err(err)?;
                }
                let val = |v: f64| format!("{v:+.1}%");
                let (px, py) = chart.backend_coord(&(x + 0.275, up.max(b.total_pct)));
                root.draw_text(
                    &val(b.total_pct),
                    &style(11.0).pos(Pos::new(HPos::Center, VPos::Bottom)),
                    (px, py - 3),
                )
                .map_err(err)?;
                let (qx, qy) = chart.backend_coord(&(x + 0.725, b.published_pct.unwrap_or(0.0)));
                match b.published_pct {
                    Some(pp) => {
                        chart
                            .draw_series([Rectangle::new(
                                [(x + 0.55, 0.0), (x + 0.9, pp)],
                                grey.filled(),
                            )])
                            .map_err(err)?;
                        root.draw_text(
                            &val(pp),
                            &style(11.0).pos(Pos::new(HPos::Center, VPos::Bottom)),
                            (qx, qy - 3),
                        )
                        .map_err(err)?;
                    }
                    None => {
                        root.draw_text(
                            "n/a",
                            &style(11.0).pos(Pos::new(HPos::Center, VPos::Bottom)),
                            (qx, qy - 3),
                        )
                        .map_err(err)?;
                    }
                }
                let (lx, ly) = chart.backend_coord(&(x + 0.5, lo));
                root.draw_text(
                    &b.design,
                    &style(12.0).pos(Pos::new(HPos::Center, VPos::Top)),
                    (lx, ly + 6),
                )
                .map_err(err)?;
                for (dx, t) in [(0.275, "regwatt"), (0.725, "seed")] {
                    let (tx, _) = chart.backend_coord(&(x + dx, lo));
                    root.draw_text(
                        t,
                        &style(10.0).pos(Pos::new(HPos::Center, VPos::Top)),
                        (tx, ly + 22),
                    )
                    .map_err(err)?;
                }
            }
        }
        let mut rows: Vec<(Vec<RGBColor>, String)> = used
            .iter()
            .map(|c| (vec![component_colour(components, c)], (*c).clone()))
            .collect();
        rows.push((vec![grey], "published by the seed".into()));
        legend(
            &root,
            (panel_w * panels.len() as i32 + 10, title_h + 30),
            "component (regwatt)",
            &rows,
        )?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
