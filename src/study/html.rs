//! `index.html`: one self-contained page (inline CSS and SVG, no script, nothing fetched) with
//! the studies' charts, the headline table of every design against the reference, each
//! design's "Seed versus regwatt" table from its README, and links to every file the report
//! wrote.

use std::fmt::Write as _;

use regwatt_designs::config::PowerMode;
use regwatt_designs::DesignSpec;

use super::{published, Studies, Written};
use crate::provenance::Provenance;

/// HTML-escapes text.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Inline markdown of a table cell: `code`, **bold**, [text](link) as text; escaped.
fn inline_md(s: &str) -> String {
    let mut out = String::new();
    let mut code = false;
    let mut bold = false;
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("**") && !code {
            out.push_str(if bold { "</b>" } else { "<b>" });
            bold = !bold;
            rest = &rest[2..];
        } else if c == '`' {
            out.push_str(if code { "</code>" } else { "<code>" });
            code = !code;
            rest = &rest[1..];
        } else {
            out.push_str(&escape(&c.to_string()));
            rest = &rest[c.len_utf8()..];
        }
    }
    if code {
        out.push_str("</code>");
    }
    if bold {
        out.push_str("</b>");
    }
    out
}

/// The first markdown table under the heading `## Seed versus regwatt` of a README, as
/// rows of cells (header first); `None` if there is none.
pub fn seed_table(readme: &str) -> Option<Vec<Vec<String>>> {
    // the heading may say more after the title ("## Seed versus regwatt (gtx480, ...)")
    let mut lines = readme.lines().skip_while(|l| {
        !l.starts_with("## ")
            || !l
                .trim_start_matches('#')
                .trim()
                .to_ascii_lowercase()
                .starts_with("seed versus regwatt")
    });
    lines.next()?;
    let rows: Vec<Vec<String>> = lines
        .take_while(|l| !l.starts_with("## "))
        .skip_while(|l| !l.trim_start().starts_with('|'))
        .take_while(|l| l.trim_start().starts_with('|'))
        .filter(|l| !l.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')))
        .map(|l| {
            let t = l.trim().trim_start_matches('|').trim_end_matches('|');
            t.split('|').map(|c| c.trim().to_string()).collect()
        })
        .collect();
    (!rows.is_empty()).then_some(rows)
}

/// The page's style. Charts keep their drawn size where it fits and scale down (their
/// `viewBox` kept) where the window is narrower; charts that fit side by side share a row.
const CSS: &str = "body{font-family:sans-serif;margin:24px;color:#222}\
p{max-width:1150px}\
h1{font-size:24px}h2{font-size:20px;margin-top:36px;border-bottom:1px solid #ccc}\
h3{font-size:16px}table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}\
td,th{border:1px solid #bbb;padding:3px 7px;vertical-align:top}th{background:#eee}\
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
.charts{display:flex;flex-wrap:wrap;gap:0 32px;align-items:flex-start}\
figure.chart{margin:10px 0 24px;max-width:100%}\
figure.chart svg{display:block;max-width:100%;height:auto}\
figcaption{font-size:14px;font-weight:bold;margin:0 0 6px}\
code{background:#f3f3f3;padding:0 2px}\
.meta{font-size:13px;color:#444}.fail{color:#a00}";

/// Writes `out/index.html`.
pub fn write_index(
    out: &crate::outdir::OutDir,
    studies: &Studies<'_>,
    written: &Written,
    provenance: &Provenance,
    failures: &[String],
) -> anyhow::Result<()> {
    let published = published()?;
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>regwatt report</title><style>{CSS}</style></head><body>\n\
         <h1>regwatt report: register-file energy and area per design</h1>\n"
    );
    let _ = writeln!(
        h,
        "<p class=\"meta\">regwatt {}{}; command <code>{}</code>. Overheads and normalised energies are against {}. Energies are over the kernels' own cycles (launch latencies apart).</p>",
        provenance.regwatt_version,
        provenance
            .git_commit
            .map_or_else(String::new, |c| format!(", commit <code>{}</code>", escape(c))),
        escape(&provenance.command_line.join(" ")),
        escape(studies.reference)
    );
    if !failures.is_empty() {
        let _ = writeln!(
            h,
            "<p class=\"fail\">{} run(s) failed:</p><ul>",
            failures.len()
        );
        for f in failures {
            let _ = writeln!(h, "<li class=\"fail\">{}</li>", escape(f));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("<p>Contents: <a href=\"#headline\">headline table</a> · <a href=\"#assumptions\">assumptions</a> · <a href=\"#energy\">per-design energy</a> · <a href=\"#energy_area\">energy versus area</a> · <a href=\"#node_scaling\">node scaling</a> · <a href=\"#area_budget\">area-overhead budget</a> · <a href=\"#seed\">seed versus regwatt</a> · <a href=\"#files\">files</a></p>\n");

    // headline table
    h.push_str("<h2 id=\"headline\">Headline: each design against the reference</h2>\n");
    h.push_str("<p>Geometric mean over the workloads of each design's energy divided by the reference's (1.00 = the same), its static share, and its area overhead; the seed's published area overhead beside it.</p>\n");
    h.push_str("<table><tr><th>gpu</th><th>node</th><th>power mode</th><th>design</th><th>workloads</th><th>energy (geomean ×)</th><th>dynamic (geomean ×)</th><th>static (geomean ×)</th><th>static share</th><th>area overhead</th><th>published area overhead</th></tr>\n");
    for l in &written.headline {
        h.push_str("<tr>");
        for (i, c) in l.cells(&published).iter().enumerate() {
            let class = if i >= 4 { " class=\"n\"" } else { "" };
            let _ = write!(h, "<td{class}>{}</td>", escape(c));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");

    // assumptions, from the runs
    h.push_str("<h2 id=\"assumptions\">Assumptions</h2>\n");
    h.push_str("<p>What every number on this page is priced with, read from the runs' resolved configurations (<code>config/</code>, <code>runs/*.json</code>: <code>energy.node_source</code>, <code>config.power</code>) and the technology files they name (<code>tech/nodes/</code>). The register banks are the baseline's bank SRAM, which every design keeps.</p>\n");
    h.push_str("<table><tr><th>gpu</th><th>node</th><th>technology data</th><th>technology file(s)</th><th>SRAM cell devices</th><th>cell V<sub>dd</sub></th><th>6T cell area</th><th>periphery devices</th><th>temperature</th><th>power mode(s)</th><th>scope</th></tr>\n");
    for a in studies.assumptions()? {
        let temps: Vec<String> = a.temperatures_k.iter().map(|t| format!("{t} K")).collect();
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}: {}</td><td class=\"n\">{} V</td><td class=\"n\">{} µm²</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&a.gpu),
            escape(&a.node.name()),
            escape(&a.node_source),
            escape(&a.tech_files),
            escape(&a.cell_flavor),
            escape(&a.cell_transistors),
            super::format_sig(a.cell_vdd_v, 4),
            super::format_sig(a.cell_area_um2, 4),
            escape(&a.periphery_flavor),
            escape(&temps.join(", ")),
            escape(&a.modes.join("; ")),
            escape(&a.scope)
        );
    }
    h.push_str("</table>\n");

    for (study, heading, text) in [
        ("energy", "Per-design energy", "Each bar is one workload's register-file energy, stacked by component. The first chart of each GPU and node shows the total: dynamic energy solid, static (leakage) energy light, normalised to the reference's total on the same workload (the line at 1). The chart beside it shows the dynamic energy alone, normalised to the reference's dynamic energy, where the designs' differences are not hidden under the leakage. The last bar of each panel is the geometric mean over the workloads, split in the mean component shares. Data: <a href=\"studies/energy.csv\">studies/energy.csv</a>."),
        ("energy_area", "Energy versus area", "Each design as a point per GPU and node: its area against the reference's (x) and the geometric mean over the workloads of its energy against the reference's (y, the headline's number). The reference sits at (1, 1), where the grey lines cross; a design below and left of it costs less of both. Data: <a href=\"studies/energy_area.csv\">studies/energy_area.csv</a>."),
        ("node_scaling", "Node scaling", "The same simulated activity priced at every node of the technology layer: the geometric mean of the energy over the workloads, the same against the reference at each node (the designs' lines, which coincide on the absolute panel, apart), the static share of the energy (summed over the workloads) and the area. Data: <a href=\"studies/node_scaling.csv\">studies/node_scaling.csv</a>."),
        ("area_budget", "Area-overhead budget", "Each design's area change per component against the reference, as a share of the reference's total area (its total beside the bar; a saving is drawn below the zero line), and the overhead the design's seed paper published (grey; storage-based, on the paper's own baseline). Data: <a href=\"studies/area_budget.csv\">studies/area_budget.csv</a>."),
    ] {
        let _ = writeln!(h, "<h2 id=\"{study}\">{heading}</h2>\n<p>{text}</p>\n<div class=\"charts\">");
        for c in written.charts.iter().filter(|c| c.study == study) {
            let svg = c
                .svg
                .find("<svg")
                .map_or(c.svg.as_str(), |i| &c.svg[i..]);
            let _ = writeln!(
                h,
                "<figure class=\"chart\" id=\"chart-{}\" style=\"width:{}px\"><figcaption>{} <a class=\"meta\" href=\"{}\">{}</a></figcaption>\n<div role=\"img\" aria-label=\"{}\">{}</div></figure>",
                escape(
                    c.path
                        .trim_start_matches("studies/")
                        .trim_end_matches(".svg")
                ),
                c.width,
                escape(&c.title),
                escape(&c.path),
                escape(&c.path),
                escape(&c.title),
                svg
            );
        }
        h.push_str("</div>\n");
    }

    // seed versus regwatt
    h.push_str("<h2 id=\"seed\">Seed versus regwatt</h2>\n<p>Each design's headline claims as its seed paper published them and as regwatt measures them (the table \"Seed versus regwatt\" of the design's README, embedded at build time: the rows <code>regwatt reproduce</code> generates from the design's <code>seed_figures.toml</code>, at the size and commit the README states; the test <code>reproduce::</code> checks them against the binary).</p>\n");
    let mut designs: Vec<DesignSpec> = studies.sets.iter().map(|s| s.design).collect();
    designs.sort();
    designs.dedup();
    for d in designs {
        let Some((path, text)) = d.readme() else {
            continue;
        };
        let _ = writeln!(h, "<h3>{d} (<code>{path}</code>)</h3>");
        match seed_table(text) {
            Some(rows) => {
                h.push_str("<table>\n");
                for (i, r) in rows.iter().enumerate() {
                    let tag = if i == 0 { "th" } else { "td" };
                    h.push_str("<tr>");
                    for c in r {
                        let _ = write!(h, "<{tag}>{}</{tag}>", inline_md(c));
                    }
                    h.push_str("</tr>\n");
                }
                h.push_str("</table>\n");
            }
            None => {
                let _ = writeln!(h, "<p>{path} has no \"Seed versus regwatt\" table.</p>");
            }
        }
    }

    // files
    h.push_str("<h2 id=\"files\">Files</h2>\n<table><tr><th>file</th><th>contents</th></tr>\n");
    let mut files: Vec<(String, String)> = vec![
        ("summary.csv".into(), "one row per run: cycles, energies (`_j`), static share, average power (`_w`), area (`_mm2`), overheads against the reference (`_frac`), output check".into()),
        ("summary.json".into(), "the same rows as JSON".into()),
        ("summary.md".into(), "the headline table and the per-run table in markdown".into()),
        ("components.csv".into(), "run × component: events (count, energy per event in pJ, dynamic energy), static energy per power state, wake-ups, area".into()),
        ("kernels.csv".into(), "one row per kernel launch of every run, priced on its own".into()),
    ];
    files.extend(written.csv.iter().map(|f| (f.path.clone(), f.what.clone())));
    files.extend(
        written
            .charts
            .iter()
            .map(|c| (c.path.clone(), format!("chart: {}", c.title))),
    );
    files.push((
        "provenance.json".into(),
        "regwatt version, git commit, command line, resolved configurations and launch specs"
            .into(),
    ));
    files.push((
        "runs/".into(),
        "one JSON report per run: activity, energy and area per component, configuration".into(),
    ));
    files.push((
        "config/".into(),
        "the resolved configurations (TOML)".into(),
    ));
    for (path, what) in files {
        let _ = writeln!(
            h,
            "<tr><td><a href=\"{0}\">{0}</a></td><td>{1}</td></tr>",
            escape(&path),
            inline_md(&what)
        );
    }
    h.push_str("</table>\n");
    let modes: Vec<PowerMode> = studies.sets.iter().map(|s| s.mode).collect();
    let _ = writeln!(
        h,
        "<p class=\"meta\">{} runs ({} power mode(s)) at {}; the node-scaling study prices them at {}.</p>",
        studies.sets.len() * studies.report_nodes.len(),
        {
            let mut m = modes;
            m.dedup();
            m.len()
        },
        studies
            .report_nodes
            .iter()
            .map(|n| n.name())
            .collect::<Vec<_>>()
            .join(", "),
        studies
            .all_nodes
            .iter()
            .map(|n| n.name())
            .collect::<Vec<_>>()
            .join(", ")
    );
    h.push_str("</body></html>\n");
    out.write("index.html", h)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_table_of_every_design_readme() {
        let t = seed_table("# x\n## Seed versus regwatt\ntext\n\n| a | b |\n|---|---|\n| `1` | **2** |\n\n| other |\n## Next\n")
            .expect("table");
        assert_eq!(t, vec![vec!["a", "b"], vec!["`1`", "**2**"]]);
        assert_eq!(
            inline_md("`1` **2** <x>"),
            "<code>1</code> <b>2</b> &lt;x&gt;"
        );
        assert!(seed_table("## Other\n| a |\n").is_none());
        assert!(seed_table("# x\n## Seed versus regwatt (gtx480, a script)\n| a |\n").is_some());
        let readmes: Vec<_> = DesignSpec::ALL.iter().filter_map(|d| d.readme()).collect();
        assert!(readmes.len() >= 5, "every seed design has a README");
        for (path, text) in readmes {
            let t = seed_table(text).unwrap_or_else(|| panic!("{path}: no seed table"));
            assert!(t.len() > 2 && t[0].len() >= 3, "{path}: {t:?}");
        }
    }
}
