//! The CSV files regwatt writes (`summary.csv`, `components.csv`, `kernels.csv`, the studies,
//! `sweep.csv`, `energy.csv`, `sram` batches): quoted by the `csv` crate, every cell passed
//! through [`safe_cell`].
//!
//! A cell that a spreadsheet would read as a formula is neutralised as the OWASP guidance on
//! CSV injection says (<https://owasp.org/www-community/attacks/CSV_Injection>): a cell that
//! begins with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, so
//! `=HYPERLINK(...)` in a `[set]` key or a workload name is shown as text, not run. Numbers
//! stay numbers: a cell that reads as a number (`-0.25`, `-1.5e-9`) is left alone, since
//! negative overheads are data and no spreadsheet evaluates a number; so does a lone `-`
//! (regwatt's "not applicable"), which holds no formula.

use std::borrow::Cow;

/// `cell`, neutralised if a spreadsheet would take it for a formula (module docs).
pub fn safe_cell(cell: &str) -> Cow<'_, str> {
    let risky = cell
        .chars()
        .next()
        .is_some_and(|c| matches!(c, '=' | '+' | '-' | '@' | '\t' | '\r'));
    if risky && cell.len() > 1 && cell.parse::<f64>().is_err() {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// A whole CSV text: the header, then the rows (each cell [`safe_cell`]).
pub fn text<S: AsRef<str>>(
    header: &[&str],
    rows: impl IntoIterator<Item = Vec<S>>,
) -> anyhow::Result<String> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    w.write_record(header.iter().map(|c| safe_cell(c).into_owned()))?;
    for r in rows {
        w.write_record(r.iter().map(|c| safe_cell(c.as_ref()).into_owned()))?;
    }
    Ok(String::from_utf8(
        w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?,
    )?)
}

/// One CSV line, without its line end (each cell [`safe_cell`]).
pub fn line<S: AsRef<str>>(fields: &[S]) -> anyhow::Result<String> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    w.write_record(fields.iter().map(|c| safe_cell(c.as_ref()).into_owned()))?;
    let mut s = String::from_utf8(w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?)?;
    s.pop();
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_neutralised_and_numbers_kept() {
        assert_eq!(safe_cell("=HYPERLINK(\"x\")"), "'=HYPERLINK(\"x\")");
        assert_eq!(safe_cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(safe_cell("+cmd|' /C calc'!A0"), "'+cmd|' /C calc'!A0");
        assert_eq!(safe_cell("-2+3"), "'-2+3");
        assert_eq!(safe_cell("\tx"), "'\tx");
        assert_eq!(safe_cell("\rx"), "'\rx");
        // numbers, including negative overheads in exponent notation, are data
        for n in ["-0.25", "-1.5e-9", "+3", "0", "12nm"] {
            assert_eq!(safe_cell(n), n);
        }
        assert_eq!(safe_cell(""), "");
        assert_eq!(safe_cell("-"), "-");
    }

    #[test]
    fn header_and_rows_go_through_the_same_rule() {
        let t = text(&["point", "=1+1"], [vec!["0", "@x"]]).expect("csv");
        assert_eq!(t, "point,'=1+1\n0,'@x\n");
        assert_eq!(line(&["a,b", "-1"]).expect("line"), "\"a,b\",-1");
    }
}
