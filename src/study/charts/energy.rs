//! The per-design energy charts: one panel per design, a stacked bar per workload and the
//! geometric mean, either the total energy (dynamic solid, static light) against the
//! reference's total, or the dynamic energy alone against the reference's dynamic energy.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{
    canvas, category_coord, component_colour, err, frame, light, line_h, style, text_width,
    title_h, wrap, Axis, Key, Legend, LABEL_SIZE, PAGE_W, PANEL_TITLE_SIZE, TICK_SIZE,
};

/// The width an energy chart is laid out for: two of them (the total and the dynamic energy)
/// side by side in a 1,920-pixel-wide window, one under the other in a 1,280-pixel one.
const PAIR_W: i32 = (PAGE_W * 3) / 4;

/// What an energy chart's bars are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnergyView {
    /// Dynamic and static energy of every component, against the reference's total energy.
    Total,
    /// Dynamic energy of every component, against the reference's dynamic energy.
    Dynamic,
}

/// One design's panel of the energy chart: a bar per workload (and the geometric mean),
/// each a stack of (component, dynamic, static) segments normalised to the reference
/// (static 0 in the dynamic view).
pub struct EnergyPanel {
    pub title: String,
    pub bars: Vec<Option<Vec<(String, f64, f64)>>>,
}

/// Stacked energy bars, one panel per design under each other (a shared y scale), bar labels
/// under the last, the legend of components under them; at most [`PAIR_W`] wide unless the
/// bars would be narrower than 14 px (about 55 workloads).
pub fn energy_chart(
    title: &str,
    view: EnergyView,
    labels: &[String],
    panels: &[EnergyPanel],
    components: &[String],
) -> anyhow::Result<String> {
    let n = labels.len().max(1);
    let ymax = panels
        .iter()
        .flat_map(|p| p.bars.iter().flatten())
        .map(|segs| segs.iter().map(|(_, d, s)| d + s).sum::<f64>())
        .fold(1.0f64, f64::max);
    let axis = Axis::new(0.0, ymax * 1.04, 6);
    let y_area = axis.label_area();
    let slot = ((PAIR_W - y_area - 20) / n as i32).clamp(14, 48);
    let plot_w = (slot * n as i32).max(400);
    let slot_px = f64::from(plot_w) / n as f64;
    let half = (0.38f64).min(20.0 / slot_px);
    let w0 = y_area + plot_w + 20;

    let used: Vec<&String> = components
        .iter()
        .filter(|c| {
            panels
                .iter()
                .flat_map(|p| p.bars.iter().flatten())
                .any(|segs| segs.iter().any(|(n, _, _)| n == *c))
        })
        .collect();
    let mut entries: Vec<(Key, String)> = used
        .iter()
        .map(|c| {
            let col = component_colour(components, c);
            let key = match view {
                EnergyView::Total => Key::Boxes(vec![col, light(col)]),
                EnergyView::Dynamic => Key::Boxes(vec![col]),
            };
            (key, (*c).clone())
        })
        .collect();
    if view == EnergyView::Total {
        let gray = RGBColor(110, 110, 110);
        entries.push((Key::Boxes(vec![gray]), "solid: dynamic energy".into()));
        entries.push((Key::Boxes(vec![light(gray)]), "light: static energy".into()));
    }
    let legend = Legend {
        heading: "component".into(),
        entries,
    };
    let w = w0;
    let title_lines = wrap(title, super::TITLE_SIZE, w - 20);
    let th = title_h(title_lines.len());
    let panel_title_h = line_h(PANEL_TITLE_SIZE) + 4;
    let plot_h = 210;
    let block = panel_title_h + plot_h + 10;
    let label_h = labels
        .iter()
        .map(|l| text_width(l, LABEL_SIZE))
        .max()
        .unwrap_or(40)
        + 14;
    let legend_h = legend.height(w - 20);
    let h = th + block * panels.len() as i32 + label_h + legend_h + 16;
    let y_desc = match view {
        EnergyView::Total => "energy / reference total",
        EnergyView::Dynamic => "dynamic / reference dynamic",
    };

    let mut svg = String::new();
    {
        let root = canvas(&mut svg, (w, h), &title_lines)?;
        let mut plot_bottom = th;
        for (pi, p) in panels.iter().enumerate() {
            let top = th + block * pi as i32;
            root.draw_text(
                &format!("design {}", p.title),
                &style(PANEL_TITLE_SIZE).pos(Pos::new(HPos::Left, VPos::Top)),
                (y_area + 4, top + 2),
            )
            .map_err(err)?;
            let area = root.clone().shrink((0, top + panel_title_h), (w0, plot_h));
            let mut chart = ChartBuilder::on(&area)
                .margin_top(2)
                .margin_right(20)
                .x_label_area_size(0)
                .y_label_area_size(y_area)
                .build_cartesian_2d(category_coord(0.0, n as f64, vec![]), axis.coord())
                .map_err(err)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .y_desc(y_desc)
                .y_label_formatter(&|v| axis.format(*v))
                .label_style(style(TICK_SIZE))
                .axis_desc_style(style(LABEL_SIZE))
                .draw()
                .map_err(err)?;
            let range = chart.plotting_area().get_pixel_range();
            plot_bottom = range.1.end;
            frame(&root, range)?;
            // the reference's energy
            chart
                .draw_series(LineSeries::new(
                    [(0.0, 1.0), (n as f64, 1.0)],
                    BLACK.mix(0.35).stroke_width(1),
                ))
                .map_err(err)?;
            for (i, bar) in p.bars.iter().enumerate() {
                let Some(segs) = bar else { continue };
                let c = i as f64 + 0.5;
                let (x0, x1) = (c - half, c + half);
                let mut y = 0.0;
                // dynamic energy of every component first, then static
                let parts = segs
                    .iter()
                    .map(|(name, d, _)| (component_colour(components, name), *d))
                    .chain(
                        segs.iter()
                            .map(|(name, _, s)| (light(component_colour(components, name)), *s)),
                    );
                for (col, v) in parts {
                    if v > 0.0 {
                        chart
                            .draw_series([Rectangle::new([(x0, y), (x1, y + v)], col.filled())])
                            .map_err(err)?;
                        y += v;
                    }
                }
            }
            if n > 1 {
                // the geometric mean apart from the workloads
                let xg = (n - 1) as f64;
                chart
                    .draw_series(LineSeries::new(
                        [(xg, axis.lo), (xg, axis.hi)],
                        BLACK.mix(0.5).stroke_width(1),
                    ))
                    .map_err(err)?;
            }
            if pi + 1 == panels.len() {
                for (i, l) in labels.iter().enumerate() {
                    let (px, _) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
                    root.draw_text(
                        l,
                        &style(LABEL_SIZE)
                            .transform(FontTransform::Rotate270)
                            .pos(Pos::new(HPos::Right, VPos::Center)),
                        (px, plot_bottom + 6),
                    )
                    .map_err(err)?;
                }
            }
        }
        legend.draw(&root, (10, plot_bottom + label_h + 6), w - 20)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
