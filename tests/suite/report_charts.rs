//! `regwatt report`'s charts as a reader sees them. One small report (vectorAdd and
//! reduction, every design on both presets, always on and drowsy, at 40 and 12 nm) is the
//! fixture, and every SVG it writes under `studies/` is parsed:
//!
//! * every `<text>`'s box, estimated as the chart code lays text out (0.6 × plotters' size per
//!   character, the SVG's `font-size` being plotters' size / 1.24; one em high, placed by its
//!   `text-anchor` and `dy`, turned by its `rotate`), and every rect, line, polyline, polygon
//!   and circle lie inside the drawing (`width` × `height`, the `viewBox`), so no label or
//!   legend entry is clipped; no two texts overlap;
//! * every panel (a plotting area, framed by the only unfilled rectangles the charts draw)
//!   holds at least one data mark (a coloured bar, line, point) and no data mark that enters
//!   a panel leaves it (a value outside the axis range);
//! * a negative area overhead is drawn down from the zero line;
//! * the tick labels of each axis share one number format.
//!
//! `index.html` must fit windows 1,280 and 1,920 pixels wide (every chart at most 1,280 px
//! wide, scaled down by the page's style below that) and state the node source, temperature
//! and power mode its runs were priced with.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::{assert_success, regwatt};

/// The shared report.
fn fixture() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = common::tmp_dir("report_charts", "fixture");
        let o = regwatt(&[
            "report",
            "--size",
            "ci",
            "--workloads",
            "vectorAdd,reduction",
            "--power-modes",
            "always-on,drowsy",
            "--out",
            dir.to_str().expect("utf8"),
        ]);
        assert_success(&o, "regwatt report (fixture)");
        dir
    })
}

/// One element of an SVG: its name, attributes and (for `<text>`) its text.
#[derive(Debug)]
struct El {
    name: String,
    attrs: BTreeMap<String, String>,
    text: String,
}

impl El {
    fn attr(&self, k: &str) -> Option<&str> {
        self.attrs.get(k).map(String::as_str)
    }

    fn num(&self, k: &str) -> f64 {
        self.attr(k)
            .unwrap_or_else(|| panic!("<{}> has no {k}: {:?}", self.name, self.attrs))
            .parse()
            .unwrap_or_else(|e| panic!("<{}> {k}: {e}", self.name))
    }
}

/// An SVG's size and elements (plotters' output: one element per tag, text inside `<text>`).
struct Svg {
    name: String,
    w: f64,
    h: f64,
    view_box: String,
    els: Vec<El>,
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// `name="value"` pairs of a tag's inside.
fn attributes(tag: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut rest = tag;
    while let Some(eq) = rest.find("=\"") {
        let key = rest[..eq]
            .trim()
            .rsplit(' ')
            .next()
            .unwrap_or("")
            .to_string();
        let after = &rest[eq + 2..];
        let end = after.find('"').expect("closing quote");
        out.insert(key, unescape(&after[..end]));
        rest = &after[end + 1..];
    }
    out
}

fn parse(name: &str, svg: &str) -> Svg {
    let mut els = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        rest = &rest[i + 1..];
        let end = rest.find('>').expect("tag end");
        let tag = &rest[..end];
        rest = &rest[end + 1..];
        if tag.starts_with('/') || tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        let el_name: String = tag
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        let attrs = attributes(&tag[el_name.len()..]);
        let mut text = String::new();
        if el_name == "text" && !tag.ends_with('/') {
            let close = rest.find("</text>").expect("</text>");
            text = unescape(rest[..close].trim());
            rest = &rest[close..];
        }
        els.push(El {
            name: el_name,
            attrs,
            text,
        });
    }
    let root = els
        .iter()
        .position(|e| e.name == "svg")
        .unwrap_or_else(|| panic!("{name}: no <svg>"));
    let root = els.remove(root);
    Svg {
        name: name.to_string(),
        w: root.num("width"),
        h: root.num("height"),
        view_box: root.attr("viewBox").unwrap_or("").to_string(),
        els,
    }
}

/// Every chart of the fixture, parsed, by file name.
fn charts() -> &'static Vec<Svg> {
    static CHARTS: OnceLock<Vec<Svg>> = OnceLock::new();
    CHARTS.get_or_init(|| {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(fixture().join("studies"))
            .expect("studies")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "svg"))
            .collect();
        paths.sort();
        assert!(!paths.is_empty(), "the report wrote no chart");
        paths
            .iter()
            .map(|p| {
                let name = p.file_name().expect("name").to_string_lossy().into_owned();
                parse(&name, &std::fs::read_to_string(p).expect("svg"))
            })
            .collect()
    })
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct BBox {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl BBox {
    fn of_points(pts: &[(f64, f64)]) -> BBox {
        let mut b = BBox {
            x0: f64::INFINITY,
            y0: f64::INFINITY,
            x1: f64::NEG_INFINITY,
            y1: f64::NEG_INFINITY,
        };
        for &(x, y) in pts {
            b.x0 = b.x0.min(x);
            b.y0 = b.y0.min(y);
            b.x1 = b.x1.max(x);
            b.y1 = b.y1.max(y);
        }
        b
    }

    fn inside(&self, o: &BBox, tol: f64) -> bool {
        self.x0 >= o.x0 - tol
            && self.y0 >= o.y0 - tol
            && self.x1 <= o.x1 + tol
            && self.y1 <= o.y1 + tol
    }

    /// The overlap's width and height (negative: apart).
    fn overlap(&self, o: &BBox) -> (f64, f64) {
        (
            self.x1.min(o.x1) - self.x0.max(o.x0),
            self.y1.min(o.y1) - self.y0.max(o.y0),
        )
    }
}

/// The box of a `<text>`: the chart code's width estimate, one em high, placed by its anchor
/// and `dy` (plotters: `0.76em` top, `0.5ex` centre, `-0.5ex` bottom), then rotated.
fn text_box(t: &El) -> BBox {
    let fs = t.num("font-size");
    let w = t.text.chars().count() as f64 * fs * 1.24 * 0.6;
    let (x, y) = (t.num("x"), t.num("y"));
    let x0 = match t.attr("text-anchor") {
        Some("middle") => x - w / 2.0,
        Some("end") => x - w,
        _ => x,
    };
    let y0 = match t.attr("dy") {
        Some("0.76em") => y,
        Some("0.5ex") => y - 0.5 * fs,
        Some("-0.5ex") => y - fs,
        _ => y - 0.8 * fs,
    };
    let corners = [(x0, y0), (x0 + w, y0), (x0, y0 + fs), (x0 + w, y0 + fs)];
    match t.attr("transform") {
        Some(tr) => {
            let args: Vec<f64> = tr
                .trim_start_matches("rotate(")
                .trim_end_matches(')')
                .split(',')
                .map(|a| a.trim().parse().expect("rotate argument"))
                .collect();
            assert_eq!(args.len(), 3, "transform {tr}");
            let (a, cx, cy) = (args[0].to_radians(), args[1], args[2]);
            let rotated: Vec<(f64, f64)> = corners
                .iter()
                .map(|&(px, py)| {
                    let (dx, dy) = (px - cx, py - cy);
                    (
                        cx + dx * a.cos() - dy * a.sin(),
                        cy + dx * a.sin() + dy * a.cos(),
                    )
                })
                .collect();
            BBox::of_points(&rotated)
        }
        None => BBox::of_points(&corners),
    }
}

fn points(el: &El) -> Vec<(f64, f64)> {
    el.attr("points")
        .unwrap_or("")
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').expect("x,y");
            (x.parse().expect("x"), y.parse().expect("y"))
        })
        .collect()
}

/// The box of a shape (`None` for text and other elements).
fn shape_box(el: &El) -> Option<BBox> {
    Some(match el.name.as_str() {
        "rect" => {
            let (x, y) = (el.num("x"), el.num("y"));
            BBox::of_points(&[(x, y), (x + el.num("width"), y + el.num("height"))])
        }
        "line" => BBox::of_points(&[(el.num("x1"), el.num("y1")), (el.num("x2"), el.num("y2"))]),
        "polyline" | "polygon" => BBox::of_points(&points(el)),
        "circle" => {
            let (x, y, r) = (el.num("cx"), el.num("cy"), el.num("r"));
            BBox::of_points(&[(x - r, y - r), (x + r, y + r)])
        }
        _ => return None,
    })
}

/// A panel's plotting area: the charts' only unfilled rectangles.
fn frames(svg: &Svg) -> Vec<BBox> {
    svg.els
        .iter()
        .filter(|e| e.name == "rect" && e.attr("fill") == Some("none"))
        .filter_map(shape_box)
        .collect()
}

/// A coloured mark: a filled bar or point, or a line, in a colour that is not the black of
/// axes, mesh and reference lines or the white of the background.
fn is_data(el: &El) -> bool {
    let plain = |c: Option<&str>| matches!(c, None | Some("none" | "#000000" | "#FFFFFF"));
    match el.name.as_str() {
        "rect" => !plain(el.attr("fill")),
        "polyline" | "line" => !plain(el.attr("stroke")),
        "circle" | "polygon" => !plain(el.attr("fill")) || !plain(el.attr("stroke")),
        _ => false,
    }
}

#[test]
fn every_chart_fits_its_drawing_with_no_label_clipped_or_overlapping() {
    let mut bad = Vec::new();
    for svg in charts() {
        assert_eq!(
            svg.view_box,
            format!("0 0 {} {}", svg.w, svg.h),
            "{}: the viewBox is the drawing",
            svg.name
        );
        let page = BBox {
            x0: 0.0,
            y0: 0.0,
            x1: svg.w,
            y1: svg.h,
        };
        let texts: Vec<(&El, BBox)> = svg
            .els
            .iter()
            .filter(|e| e.name == "text" && !e.text.is_empty())
            .map(|e| (e, text_box(e)))
            .collect();
        assert!(!texts.is_empty(), "{}: no text", svg.name);
        for (t, b) in &texts {
            if !b.inside(&page, 0.5) {
                bad.push(format!(
                    "{}: text {:?} at {b:?} leaves the {}x{} drawing",
                    svg.name, t.text, svg.w, svg.h
                ));
            }
        }
        for el in &svg.els {
            if let Some(b) = shape_box(el) {
                if !b.inside(&page, 0.5) {
                    bad.push(format!(
                        "{}: <{}> at {b:?} leaves the drawing",
                        svg.name, el.name
                    ));
                }
            }
        }
        for (i, (a, ba)) in texts.iter().enumerate() {
            for (b, bb) in &texts[i + 1..] {
                let (ow, oh) = ba.overlap(bb);
                if ow > 1.0 && oh > 1.0 {
                    bad.push(format!(
                        "{}: texts {:?} and {:?} overlap",
                        svg.name, a.text, b.text
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn every_panel_holds_data_and_no_mark_leaves_its_panel() {
    let mut bad = Vec::new();
    for svg in charts() {
        let frames = frames(svg);
        assert!(!frames.is_empty(), "{}: no panel", svg.name);
        let marks: Vec<(&El, BBox)> = svg
            .els
            .iter()
            .filter(|e| is_data(e))
            .filter_map(|e| shape_box(e).map(|b| (e, b)))
            .collect();
        for (i, f) in frames.iter().enumerate() {
            let inner = BBox {
                x0: f.x0 + 1.0,
                y0: f.y0 + 1.0,
                x1: f.x1 - 1.0,
                y1: f.y1 - 1.0,
            };
            let mut inside = 0;
            for (el, b) in &marks {
                let (ow, oh) = b.overlap(&inner);
                let enters = ow >= 0.0 && oh >= 0.0;
                if enters && !b.inside(f, 1.5) {
                    bad.push(format!(
                        "{}: panel {i} at {f:?}: <{}> {b:?} is drawn beyond it",
                        svg.name, el.name
                    ));
                }
                if b.inside(f, 1.5) {
                    inside += 1;
                }
            }
            if inside == 0 {
                bad.push(format!("{}: panel {i} at {f:?} is empty", svg.name));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn negative_area_overheads_are_drawn_below_the_zero_line() {
    let budget = common::read_csv(&fixture().join("studies/area_budget.csv"));
    let mut checked = 0;
    for svg in charts()
        .iter()
        .filter(|s| s.name.starts_with("area_budget_"))
    {
        let stem = svg
            .name
            .trim_start_matches("area_budget_")
            .trim_end_matches(".svg");
        let (gpu, mode) = match stem.split_once('_') {
            Some((g, m)) => (g.to_string(), m.replace('_', "-")),
            None => (stem.to_string(), "always-on".to_string()),
        };
        let negatives = budget
            .iter()
            .filter(|r| r["gpu"] == gpu && r["power_mode"] == mode && r["component"] == "total")
            .flat_map(|r| [&r["overhead_frac"], &r["published_overhead_frac"]])
            .filter(|v| v.parse::<f64>().is_ok_and(|v| v < 0.0))
            .count();
        if negatives == 0 {
            continue;
        }
        // the zero line: a black horizontal line across a panel
        let frames = frames(svg);
        let zeros: Vec<f64> = svg
            .els
            .iter()
            .filter(|e| e.name == "polyline" && e.attr("stroke") == Some("#000000"))
            .filter_map(|e| {
                let b = shape_box(e)?;
                let across = frames.iter().any(|f| {
                    b.y0 == b.y1 && b.y0 > f.y0 && b.y0 < f.y1 && b.x1 - b.x0 >= 0.9 * (f.x1 - f.x0)
                });
                across.then_some(b.y0)
            })
            .collect();
        assert!(!zeros.is_empty(), "{}: no zero line", svg.name);
        let below = svg
            .els
            .iter()
            .filter(|e| e.name == "rect" && is_data(e))
            .filter_map(shape_box)
            .filter(|b| b.y1 - b.y0 > 1.0 && zeros.iter().any(|z| (b.y0 - z).abs() <= 1.0))
            .count();
        assert!(
            below >= 1,
            "{}: {negatives} negative overhead(s) in area_budget.csv, no bar down from the zero line",
            svg.name
        );
        checked += 1;
    }
    // cerf's published overhead is negative and cerf runs on gtx480
    assert!(checked >= 1, "no area chart with a negative overhead");
}

/// The format of a tick label: (decimals, exponent notation), `None` if it is not a number.
fn number_format(s: &str) -> Option<(usize, bool)> {
    s.parse::<f64>().ok()?;
    let (mantissa, exp) = match s.split_once('e') {
        Some((m, _)) => (m, true),
        None => (s, false),
    };
    Some((mantissa.split_once('.').map_or(0, |(_, d)| d.len()), exp))
}

#[test]
fn every_axis_writes_its_ticks_in_one_format() {
    let mut bad = Vec::new();
    let mut axes = 0;
    for svg in charts() {
        let frames = frames(svg);
        // y ticks: right-aligned, vertically centred, left of their panel; x ticks: centred,
        // hung from the top, under their panel
        let mut groups: BTreeMap<(&str, usize), Vec<&str>> = BTreeMap::new();
        for t in svg
            .els
            .iter()
            .filter(|e| e.name == "text" && e.attr("transform").is_none())
        {
            if number_format(&t.text).is_none() {
                continue;
            }
            let (x, y) = (t.num("x"), t.num("y"));
            let axis = match (t.attr("text-anchor"), t.attr("dy")) {
                (Some("end"), Some("0.5ex")) => "y",
                (Some("middle"), Some("0.76em")) => "x",
                _ => continue,
            };
            // the nearest panel right of a y tick at its height, or above an x tick
            let panel = frames
                .iter()
                .enumerate()
                .filter_map(|(i, f)| {
                    let gap = if axis == "y" {
                        (y >= f.y0 - 1.0 && y <= f.y1 + 1.0 && f.x0 >= x).then_some(f.x0 - x)
                    } else {
                        (x >= f.x0 - 1.0 && x <= f.x1 + 1.0 && f.y1 <= y).then_some(y - f.y1)
                    };
                    gap.map(|g| (i, g))
                })
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(i, _)| i);
            if let Some(panel) = panel {
                groups.entry((axis, panel)).or_default().push(&t.text);
            }
        }
        for ((axis, panel), ticks) in groups {
            if ticks.len() < 2 {
                continue;
            }
            axes += 1;
            let formats: Vec<(usize, bool)> =
                ticks.iter().filter_map(|t| number_format(t)).collect();
            if formats.windows(2).any(|w| w[0] != w[1]) {
                bad.push(format!(
                    "{}: {axis} axis of panel {panel}: {ticks:?}",
                    svg.name
                ));
            }
        }
    }
    assert!(axes >= charts().len(), "only {axes} axes found");
    assert!(bad.is_empty(), "mixed tick formats:\n{}", bad.join("\n"));
}

#[test]
fn the_page_fits_1280_and_1920_pixel_windows() {
    let html = std::fs::read_to_string(fixture().join("index.html")).expect("index.html");
    // the charts scale down with the page, keeping their proportions
    let style = &html[html.find("<style>").expect("style")..html.find("</style>").expect("/style")];
    let rule = style
        .split('}')
        .find(|r| r.trim_start().starts_with("figure.chart svg{"))
        .expect("a style rule for the charts");
    assert!(
        rule.contains("max-width:100%") && rule.contains("height:auto"),
        "{rule}"
    );
    let mut svgs = 0;
    for part in html.split("<svg ").skip(1) {
        let tag = &part[..part.find('>').expect("tag end")];
        let attrs = attributes(tag);
        let w: f64 = attrs["width"].parse().expect("width");
        assert!(
            attrs.contains_key("viewBox"),
            "an inline chart without a viewBox"
        );
        for window in [1280.0, 1920.0] {
            assert!(w <= window, "a chart {w} px wide in a {window} px window");
        }
        svgs += 1;
    }
    assert_eq!(svgs, charts().len(), "every chart is inline");
    // each chart's figure is as wide as the chart, and no wider than the page
    for part in html.split("<figure class=\"chart\"").skip(1) {
        let tag = &part[..part.find('>').expect("tag end")];
        let style = &attributes(tag)["style"];
        let w: f64 = style
            .trim_start_matches("width:")
            .trim_end_matches("px")
            .parse()
            .expect("figure width");
        assert!(w <= 1280.0, "a figure {w} px wide");
    }
}

#[test]
fn the_page_states_the_node_source_temperature_and_power_mode_of_its_runs() {
    let dir = fixture();
    let html = std::fs::read_to_string(dir.join("index.html")).expect("index.html");
    let section = &html[html
        .find("id=\"assumptions\"")
        .expect("an assumptions section")..];
    let section = &section[..section.find("</table>").expect("its table")];
    let mut runs = 0;
    for (node, mode_file) in [("40nm", ""), ("12nm", ""), ("12nm", "-drowsy")] {
        let path = dir.join(format!(
            "runs/gtx480/baseline/vectorAdd-{node}{mode_file}.json"
        ));
        let run: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("run json")).expect("json");
        let source = run["energy"]["node_source"].as_str().expect("node_source");
        let t = run["config"]["power"]["temperature_k"]
            .as_f64()
            .expect("temperature_k");
        let mode = run["config"]["power"]["mode"].as_str().expect("mode");
        for needle in [source.to_string(), format!("{t} K"), mode.to_string()] {
            let escaped = needle
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;");
            assert!(
                section.contains(&escaped),
                "{}: {needle:?} is not among the page's assumptions",
                path.display()
            );
        }
        runs += 1;
    }
    assert_eq!(runs, 3);
    // the cell device flavour and periphery come from the register bank's SRAM
    assert!(section.contains("itrs-hp"), "{section}");
}
