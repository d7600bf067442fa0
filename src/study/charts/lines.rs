//! The node-scaling chart (a line per design over the nodes, absolute and against the
//! reference) and the energy-versus-area chart (a point per design and node).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use regwatt_designs::config::Node;
use regwatt_designs::DesignSpec;

use super::{
    canvas, category_coord, columns, design_colour, err, frame, line_h, style, text_lines, title_h,
    wrap, Axis, Key, Legend, Marker, LABEL_SIZE, PANEL_TITLE_SIZE, TICK_SIZE, TITLE_SIZE,
};

/// One panel of the node-scaling chart: a line per design over the nodes.
pub struct LinePanel {
    pub title: String,
    pub y_desc: String,
    pub series: Vec<(DesignSpec, Vec<Option<f64>>)>,
    /// The y axis starts at 0 (absolute quantities); otherwise it spans the values.
    pub from_zero: bool,
    /// A grey horizontal line at this value (the reference, 1 on a relative panel).
    pub reference: Option<f64>,
    /// The largest value the quantity can take (100 for a percentage): the axis stops there.
    pub ceiling: Option<f64>,
}

/// The y axis of a panel: its values (and the reference line's), from 0 or padded.
fn value_axis(
    values: impl Iterator<Item = f64>,
    from_zero: bool,
    extra: Option<f64>,
    ceiling: Option<f64>,
) -> Axis {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.chain(extra) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    if from_zero {
        Axis::new(
            lo.min(0.0),
            (hi * 1.05).min(ceiling.unwrap_or(f64::INFINITY)),
            6,
        )
    } else {
        // a span of at least 5 % of the values, so equal values get a readable axis
        let span = (hi - lo).max(0.05 * hi.abs().max(lo.abs()).max(1e-12));
        let pad = 0.06 * span + (span - (hi - lo)) / 2.0;
        Axis::new(lo - pad, hi + pad, 6)
    }
}

/// Lines against the node (largest first, evenly spaced), panels in a grid as wide as the
/// page allows, the legend of designs under them.
pub fn node_chart(title: &str, nodes: &[Node], panels: &[LinePanel]) -> anyhow::Result<String> {
    let panel_w = 500;
    let axes: Vec<Axis> = panels
        .iter()
        .map(|p| {
            value_axis(
                p.series
                    .iter()
                    .flat_map(|(_, v)| v.iter().flatten().copied()),
                p.from_zero,
                p.reference,
                p.ceiling,
            )
        })
        .collect();
    let y_area = axes.iter().map(Axis::label_area).max().unwrap_or(60);
    let cols = columns(panels.len(), panel_w);
    let rows = panels.len().div_ceil(cols).max(1);
    let w = panel_w * cols as i32;
    let n = nodes.len().max(1);
    let designs: Vec<DesignSpec> = panels
        .first()
        .map(|p| p.series.iter().map(|(d, _)| *d).collect())
        .unwrap_or_default();
    let legend = Legend {
        heading: "design".into(),
        entries: designs
            .iter()
            .map(|d| (Key::Boxes(vec![design_colour(*d)]), d.name().to_string()))
            .collect(),
    };
    let title_lines = wrap(title, TITLE_SIZE, w - 20);
    let th = title_h(title_lines.len());
    let panel_titles: Vec<Vec<String>> = panels
        .iter()
        .map(|p| wrap(&p.title, PANEL_TITLE_SIZE, panel_w - y_area - 16))
        .collect();
    let ptitle_h =
        panel_titles.iter().map(Vec::len).max().unwrap_or(1) as i32 * line_h(PANEL_TITLE_SIZE) + 4;
    let plot_h = 240;
    let x_area = line_h(TICK_SIZE) + line_h(LABEL_SIZE) + 8;
    let panel_h = ptitle_h + plot_h + x_area + 14;
    let legend_h = legend.height(w - 20);
    let h = th + panel_h * rows as i32 + legend_h + 12;
    let mut svg = String::new();
    {
        let root = canvas(&mut svg, (w, h), &title_lines)?;
        for (i, ((p, lines), axis)) in panels.iter().zip(&panel_titles).zip(&axes).enumerate() {
            let (c, r) = ((i % cols) as i32, (i / cols) as i32);
            let (x0, y0) = (c * panel_w, th + r * panel_h);
            text_lines(&root, lines, PANEL_TITLE_SIZE, (x0 + y_area, y0))?;
            let area = root
                .clone()
                .shrink((x0, y0 + ptitle_h), (panel_w, plot_h + x_area + 6));
            let mut chart = ChartBuilder::on(&area)
                .margin_top(6)
                .margin_right(20)
                .x_label_area_size(x_area)
                .y_label_area_size(y_area)
                .build_cartesian_2d(
                    category_coord(-0.5, n as f64 - 0.5, (0..n).map(|i| i as f64).collect()),
                    axis.coord(),
                )
                .map_err(err)?;
            chart
                .configure_mesh()
                .x_desc("node [nm]")
                .y_desc(&p.y_desc)
                .x_label_formatter(&|x| {
                    nodes
                        .get(x.round().max(0.0) as usize)
                        .map_or_else(String::new, |nd| format!("{}", nd.nm()))
                })
                .y_label_formatter(&|v| axis.format(*v))
                .label_style(style(TICK_SIZE))
                .axis_desc_style(style(LABEL_SIZE))
                .draw()
                .map_err(err)?;
            frame(&root, chart.plotting_area().get_pixel_range())?;
            if let Some(r) = p.reference {
                chart
                    .draw_series(LineSeries::new(
                        [(-0.5, r), (n as f64 - 0.5, r)],
                        BLACK.mix(0.35).stroke_width(1),
                    ))
                    .map_err(err)?;
            }
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
        legend.draw(&root, (10, th + panel_h * rows as i32 + 4), w - 20)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// One design at one node in the energy-versus-area chart.
pub struct ScatterPoint {
    pub design: DesignSpec,
    /// Index into the chart's node names (its marker).
    pub node: usize,
    pub x: f64,
    pub y: f64,
}

/// One GPU's panel of the energy-versus-area chart.
pub struct ScatterPanel {
    pub title: String,
    pub points: Vec<ScatterPoint>,
}

/// Points of (x, y) per design (colour) and node (marker shape), one panel per GPU, the
/// reference's (1, 1) marked by grey lines; legends of designs and nodes under the panels.
pub fn energy_area_chart(
    title: &str,
    x_desc: &str,
    y_desc: &str,
    nodes: &[String],
    panels: &[ScatterPanel],
) -> anyhow::Result<String> {
    let panel_w = 580;
    let axes: Vec<(Axis, Axis)> = panels
        .iter()
        .map(|p| {
            (
                value_axis(p.points.iter().map(|q| q.x), false, Some(1.0), None),
                value_axis(p.points.iter().map(|q| q.y), false, Some(1.0), None),
            )
        })
        .collect();
    let y_area = axes.iter().map(|a| a.1.label_area()).max().unwrap_or(60);
    let cols = columns(panels.len(), panel_w);
    let rows = panels.len().div_ceil(cols).max(1);
    let w = panel_w * cols as i32;
    let mut designs: Vec<DesignSpec> = panels
        .iter()
        .flat_map(|p| p.points.iter().map(|q| q.design))
        .collect();
    designs.sort();
    designs.dedup();
    let mut entries: Vec<(Key, String)> = designs
        .iter()
        .map(|d| (Key::Boxes(vec![design_colour(*d)]), d.name().to_string()))
        .collect();
    let mark = RGBColor(90, 90, 90);
    entries.extend(
        nodes
            .iter()
            .enumerate()
            .map(|(i, nd)| (Key::Marker(Marker::nth(i), mark), nd.clone())),
    );
    let legend = Legend {
        heading: "design (colour) and node (marker)".into(),
        entries,
    };
    let title_lines = wrap(title, TITLE_SIZE, w - 20);
    let th = title_h(title_lines.len());
    let ptitle_h = line_h(PANEL_TITLE_SIZE) + 4;
    let plot_h = 320;
    let x_area = line_h(TICK_SIZE) + line_h(LABEL_SIZE) + 8;
    let panel_h = ptitle_h + plot_h + x_area + 14;
    let legend_h = legend.height(w - 20);
    let h = th + panel_h * rows as i32 + legend_h + 12;
    let mut svg = String::new();
    {
        let root = canvas(&mut svg, (w, h), &title_lines)?;
        for (i, (p, (xa, ya))) in panels.iter().zip(&axes).enumerate() {
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
                .shrink((x0, y0 + ptitle_h), (panel_w, plot_h + x_area + 6));
            let mut chart = ChartBuilder::on(&area)
                .margin_top(6)
                .margin_right(24)
                .x_label_area_size(x_area)
                .y_label_area_size(y_area)
                .build_cartesian_2d(xa.coord(), ya.coord())
                .map_err(err)?;
            chart
                .configure_mesh()
                .x_desc(x_desc)
                .y_desc(y_desc)
                .x_label_formatter(&|v| xa.format(*v))
                .y_label_formatter(&|v| ya.format(*v))
                .label_style(style(TICK_SIZE))
                .axis_desc_style(style(LABEL_SIZE))
                .draw()
                .map_err(err)?;
            frame(&root, chart.plotting_area().get_pixel_range())?;
            let grey = BLACK.mix(0.35).stroke_width(1);
            chart
                .draw_series(LineSeries::new([(1.0, ya.lo), (1.0, ya.hi)], grey))
                .map_err(err)?;
            chart
                .draw_series(LineSeries::new([(xa.lo, 1.0), (xa.hi, 1.0)], grey))
                .map_err(err)?;
            for q in &p.points {
                let at = chart.backend_coord(&(q.x, q.y));
                Marker::nth(q.node).draw(&root, at, design_colour(q.design))?;
            }
        }
        legend.draw(&root, (10, th + panel_h * rows as i32 + 4), w - 20)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
