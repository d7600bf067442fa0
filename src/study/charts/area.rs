//! The area-overhead budget chart: per design, its components' area changes against the
//! reference beside the overhead its seed paper published; a saving goes below the zero line.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{
    canvas, category_coord, columns, component_colour, err, frame, line_h, style, text_width,
    title_h, wrap, Axis, Key, Legend, HEADING_SIZE, LABEL_SIZE, PANEL_TITLE_SIZE, SMALL_SIZE,
    TICK_SIZE, TITLE_SIZE,
};

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

/// Per design, a stack of component area changes (positive ones up from the zero line,
/// negative ones down) beside the published overhead (grey), each labelled with its value;
/// one panel per node, as many side by side as fit.
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
    let val = |v: f64| format!("{v:+.2}%");
    // a design's slot holds two bars, each as wide as its value label
    let label_w = panels
        .iter()
        .flat_map(|p| p.bars.iter())
        .flat_map(|b| [Some(b.total_pct), b.published_pct])
        .flatten()
        .map(|v| text_width(&val(v), TICK_SIZE))
        .chain(
            panels
                .iter()
                .flat_map(|p| p.bars.iter())
                .map(|b| text_width(&b.design, LABEL_SIZE) / 2),
        )
        .max()
        .unwrap_or(40)
        .max(text_width("regwatt", SMALL_SIZE));
    let slot = 2 * (label_w + 8) + 12;
    let plot_h = 320;
    let axis = budget_axis(panels, plot_h);
    let y_area = axis.label_area();
    let panel_w = y_area + slot * designs as i32 + 16;
    let cols = columns(panels.len(), panel_w);
    let rows = panels.len().div_ceil(cols).max(1);
    let used: Vec<&String> = components
        .iter()
        .filter(|c| {
            panels
                .iter()
                .flat_map(|p| p.bars.iter())
                .any(|b| b.segments.iter().any(|(n, _)| n == *c))
        })
        .collect();
    // lighter than any component colour (the palette's greys are 127 and 80)
    let grey = RGBColor(200, 200, 200);
    let mut entries: Vec<(Key, String)> = used
        .iter()
        .map(|c| {
            (
                Key::Boxes(vec![component_colour(components, c)]),
                (*c).clone(),
            )
        })
        .collect();
    entries.push((Key::Boxes(vec![grey]), "published by the seed paper".into()));
    let legend = Legend {
        heading: "component (regwatt's bars, left of each pair)".into(),
        entries,
    };
    let w = (panel_w * cols as i32).max(text_width(&legend.heading, HEADING_SIZE) + 20);
    let title_lines = wrap(title, TITLE_SIZE, w - 20);
    let th = title_h(title_lines.len());
    let panel_title_h = line_h(PANEL_TITLE_SIZE) + 6;
    let under = line_h(LABEL_SIZE) + line_h(SMALL_SIZE) + 8; // design names, bar captions
    let panel_h = panel_title_h + plot_h + under + 12;
    let legend_h = legend.height(w - 20);
    let h = th + panel_h * rows as i32 + legend_h + 16;

    let mut svg = String::new();
    {
        let root = canvas(&mut svg, (w, h), &title_lines)?;
        for (i, p) in panels.iter().enumerate() {
            let (c, r) = ((i % cols) as i32, (i / cols) as i32);
            let (x0, y0) = (c * panel_w, th + r * panel_h);
            root.draw_text(
                &p.title,
                &style(PANEL_TITLE_SIZE).pos(Pos::new(HPos::Left, VPos::Top)),
                (x0 + y_area, y0),
            )
            .map_err(err)?;
            let area = root
                .clone()
                .shrink((x0, y0 + panel_title_h), (panel_w, plot_h + 8));
            let nb = p.bars.len().max(1);
            let mut chart = ChartBuilder::on(&area)
                .margin_top(6)
                .margin_right(16)
                .x_label_area_size(2)
                .y_label_area_size(y_area)
                .build_cartesian_2d(category_coord(0.0, nb as f64, vec![]), axis.coord())
                .map_err(err)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .y_desc("area overhead [% of the reference's area]")
                .y_label_formatter(&|v| axis.format(*v))
                .label_style(style(TICK_SIZE))
                .axis_desc_style(style(LABEL_SIZE))
                .draw()
                .map_err(err)?;
            frame(&root, chart.plotting_area().get_pixel_range())?;
            // the zero line
            chart
                .draw_series(LineSeries::new(
                    [(0.0, 0.0), (nb as f64, 0.0)],
                    BLACK.stroke_width(1),
                ))
                .map_err(err)?;
            // a value's label beyond the bar's end: above a rise, below a fall
            let label = |(px, py): (i32, i32), v: f64, text: &str| -> anyhow::Result<()> {
                let (vpos, dy) = if v >= 0.0 {
                    (VPos::Bottom, -3)
                } else {
                    (VPos::Top, 3)
                };
                root.draw_text(
                    text,
                    &style(TICK_SIZE).pos(Pos::new(HPos::Center, vpos)),
                    (px, py + dy),
                )
                .map_err(err)
            };
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
                        .draw_series([Rectangle::new([(x + 0.08, y0), (x + 0.46, y1)], c.filled())])
                        .map_err(err)?;
                }
                // the total's label beyond the stack on the total's side
                let at = if b.total_pct >= 0.0 {
                    up.max(b.total_pct)
                } else {
                    down.min(b.total_pct)
                };
                label(chart.backend_coord(&(x + 0.27, at)), at, &val(b.total_pct))?;
                match b.published_pct {
                    Some(pp) => {
                        chart
                            .draw_series([Rectangle::new(
                                [(x + 0.54, 0.0), (x + 0.92, pp)],
                                grey.filled(),
                            )])
                            .map_err(err)?;
                        label(chart.backend_coord(&(x + 0.73, pp)), pp, &val(pp))?;
                    }
                    None => label(chart.backend_coord(&(x + 0.73, 0.0)), 0.0, "n/a")?,
                }
                let (lx, _) = chart.backend_coord(&(x + 0.5, 0.0));
                let ly = y0 + panel_title_h + plot_h + 8 + 4;
                root.draw_text(
                    &b.design,
                    &style(LABEL_SIZE).pos(Pos::new(HPos::Center, VPos::Top)),
                    (lx, ly),
                )
                .map_err(err)?;
                for (dx, t) in [(0.27, "regwatt"), (0.73, "seed")] {
                    let (tx, _) = chart.backend_coord(&(x + dx, 0.0));
                    root.draw_text(
                        t,
                        &style(SMALL_SIZE).pos(Pos::new(HPos::Center, VPos::Top)),
                        (tx, ly + line_h(LABEL_SIZE)),
                    )
                    .map_err(err)?;
                }
            }
        }
        legend.draw(&root, (10, th + panel_h * rows as i32 + 6), w - 20)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The y axis of the area chart: every bar (a stack's rises and falls, its total, the
/// published overhead) and 0, with room for the value labels beyond the longest bars.
fn budget_axis(panels: &[AreaPanel], plot_h: i32) -> Axis {
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for b in panels.iter().flat_map(|p| p.bars.iter()) {
        let pos: f64 = b.segments.iter().map(|s| s.1.max(0.0)).sum();
        let neg: f64 = b.segments.iter().map(|s| s.1.min(0.0)).sum();
        for v in [pos, neg, b.total_pct, b.published_pct.unwrap_or(0.0)] {
            hi = hi.max(v);
            lo = lo.min(v);
        }
    }
    // room for the value labels above the highest bar and below the lowest
    let span = (hi - lo).max(1.0);
    let pad = span * f64::from(line_h(TICK_SIZE) + 6) / f64::from(plot_h);
    Axis::new(if lo < 0.0 { lo - pad } else { 0.0 }, hi + pad, 7)
}
