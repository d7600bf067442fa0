//! Where things are in a TOML text: the dotted key path of a byte offset
//! ([`path_at`], for naming the table and key of a `toml` crate error, which gives only a
//! span) and the position of a dotted key path ([`locate`], for naming the line of a key an
//! override file sets). Both read the document with `toml_edit`, which keeps the span of every
//! table header, key and value, so a header on the error's own line, a multi-line array and an
//! array of tables (`launch[1]`) are all attributed to the right table.

use std::ops::Range;

use toml_edit::{ImDocument, Item, Table, Value};

/// One step of a key path: a key or an array index.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

fn join(path: &[String]) -> String {
    let mut out = String::new();
    for p in path {
        if p.starts_with('[') || out.is_empty() {
            out.push_str(p);
        } else {
            out.push('.');
            out.push_str(p);
        }
    }
    out
}

fn contains(span: &Option<Range<usize>>, offset: usize) -> bool {
    span.as_ref()
        .is_some_and(|s| s.start <= offset && (offset < s.end || s.start == offset))
}

/// The deepest match found so far: its path and the start of its span (later header
/// starts win among tables whose header precedes the offset).
#[derive(Default)]
struct Best {
    /// Deepest item whose own span (key to end of value, or table header) holds the offset.
    inside: Option<(usize, String)>,
    /// The table (header) that starts last at or before the offset.
    header: Option<(usize, String)>,
}

fn visit_value(v: &Value, path: &mut Vec<String>, offset: usize, best: &mut Best) {
    match v {
        Value::InlineTable(t) => {
            for (k, _) in t.iter() {
                if let Some((key, item)) = t.get_key_value(k) {
                    path.push(k.to_string());
                    let span = match (key.span(), item.span()) {
                        (Some(a), Some(b)) => Some(a.start..b.end.max(a.end)),
                        (a, b) => a.or(b),
                    };
                    if contains(&span, offset) {
                        note_inside(best, path);
                    }
                    if let Some(v) = item.as_value() {
                        visit_value(v, path, offset, best);
                    }
                    path.pop();
                }
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                path.push(format!("[{i}]"));
                if contains(&v.span(), offset) {
                    note_inside(best, path);
                }
                visit_value(v, path, offset, best);
                path.pop();
            }
        }
        _ => {}
    }
}

fn note_inside(best: &mut Best, path: &[String]) {
    let depth = path.len();
    if best.inside.as_ref().is_none_or(|(d, _)| depth >= *d) {
        best.inside = Some((depth, join(path)));
    }
}

fn visit_table(t: &Table, path: &mut Vec<String>, offset: usize, best: &mut Best) {
    if let Some(s) = t.span() {
        if s.start <= offset && best.header.as_ref().is_none_or(|(b, _)| s.start >= *b) {
            best.header = Some((s.start, join(path)));
        }
        if contains(&Some(s), offset) {
            note_inside(best, path);
        }
    }
    for (k, _) in t.iter() {
        let Some((key, item)) = t.get_key_value(k) else {
            continue;
        };
        path.push(k.to_string());
        match item {
            Item::Table(sub) => visit_table(sub, path, offset, best),
            Item::ArrayOfTables(a) => {
                for (i, sub) in a.iter().enumerate() {
                    path.push(format!("[{i}]"));
                    visit_table(sub, path, offset, best);
                    path.pop();
                }
            }
            Item::Value(v) => {
                let span = match (key.span(), v.span()) {
                    (Some(a), Some(b)) => Some(a.start..b.end.max(a.end)),
                    (a, b) => a.or(b),
                };
                if contains(&span, offset) {
                    note_inside(best, path);
                }
                visit_value(v, path, offset, best);
            }
            Item::None => {}
        }
        path.pop();
    }
}

/// The dotted key path (`buffers.c`, `launch[1].grid`, `buffers.a.init.kind`) of the item
/// at byte `offset` of `text`: the deepest key or array element whose span holds it, else
/// the table whose header comes last at or before it. `None` when `text` is not valid TOML
/// or the offset lies in no table (the root).
pub fn path_at(text: &str, offset: usize) -> Option<String> {
    let doc = ImDocument::parse(text).ok()?;
    let mut best = Best::default();
    visit_table(doc.as_table(), &mut Vec::new(), offset, &mut best);
    let p = match (best.inside, best.header) {
        (Some((_, p)), _) => p,
        (None, Some((_, p))) => p,
        (None, None) => return None,
    };
    (!p.is_empty()).then_some(p)
}

fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for seg in path.split('.') {
        let (name, mut rest) = match seg.find('[') {
            Some(i) => (&seg[..i], &seg[i..]),
            None => (seg, ""),
        };
        if !name.is_empty() {
            out.push(Step::Key(name));
        }
        while let Some(r) = rest.strip_prefix('[') {
            let Some(end) = r.find(']') else { break };
            if let Ok(i) = r[..end].parse() {
                out.push(Step::Index(i));
            }
            rest = &r[end + 1..];
        }
    }
    out
}

/// Byte span of dotted key `path` (`gpu.sm.limits.registers`, `launch[0].grid`) in `text`:
/// the key where it is written (`registers = ...`), or the header of a table. `None` when the
/// text does not parse or the path is not in it.
pub fn span_of(text: &str, path: &str) -> Option<Range<usize>> {
    let doc = ImDocument::parse(text).ok()?;
    let mut item: &Item = doc.as_item();
    let mut span = None;
    for st in steps(path) {
        match st {
            Step::Key(k) => {
                let (key, next) = match item {
                    Item::Table(t) => t.get_key_value(k)?,
                    Item::Value(Value::InlineTable(t)) => t.get_key_value(k)?,
                    _ => return None,
                };
                span = match next {
                    Item::Table(t) => t.span().or_else(|| key.span()),
                    _ => key.span(),
                }
                .or(span);
                item = next;
            }
            Step::Index(i) => match item {
                Item::ArrayOfTables(a) => {
                    let t = a.get(i)?;
                    span = t.span().or(span);
                    // a table of the array: continue from it
                    return rest_in_table(t, path, span);
                }
                _ => return span,
            },
        }
    }
    span
}

/// Continues [`span_of`] inside an array-of-tables element (keeps the lookup simple: the
/// remaining keys after the first index).
fn rest_in_table(t: &Table, path: &str, span: Option<Range<usize>>) -> Option<Range<usize>> {
    let after = path
        .split_once(']')
        .map_or("", |(_, r)| r.trim_start_matches('.'));
    if after.is_empty() {
        return span;
    }
    let mut item: Option<&Item> = None;
    let mut out = span;
    for st in steps(after) {
        let Step::Key(k) = st else { break };
        let (key, next) = match item {
            None => t.get_key_value(k)?,
            Some(Item::Table(t)) => t.get_key_value(k)?,
            Some(Item::Value(Value::InlineTable(t))) => t.get_key_value(k)?,
            _ => break,
        };
        out = key.span().or(out);
        item = Some(next);
    }
    out
}

/// 1-based `(line, column)` of byte `offset` in `text` (column in characters).
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    regwatt_inputs::line_col(text, offset)
}

/// `line:col` of dotted key `path` in `text` ([`span_of`]).
pub fn locate(text: &str, path: &str) -> Option<(usize, usize)> {
    span_of(text, path).map(|s| line_col(text, s.start))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "ptx = \"k.ptx\"\n[buffers.b]\ndtype = \"f32\"\nlen = 4\n[buffers.c]\ndtype = \"f32\"\ninit = { kind = \"fill\" }\n[[launch]]\nkernel = \"k\"\ngrid = [\n 1,\n 1, 1]\n[[launch]]\nkernel = \"k\"\n";

    #[test]
    fn offsets_map_to_their_own_table() {
        let at = |needle: &str| SPEC.find(needle).expect("needle");
        // a header on the offset's own line names that table, not the previous one
        assert_eq!(
            path_at(SPEC, at("[buffers.c]")).as_deref(),
            Some("buffers.c")
        );
        assert_eq!(
            path_at(SPEC, at("[[launch]]")).as_deref(),
            Some("launch[0]")
        );
        assert_eq!(
            path_at(SPEC, SPEC.rfind("[[launch]]").expect("2nd")).as_deref(),
            Some("launch[1]")
        );
        assert_eq!(path_at(SPEC, at("len")).as_deref(), Some("buffers.b.len"));
        assert_eq!(
            path_at(SPEC, at("kind")).as_deref(),
            Some("buffers.c.init.kind")
        );
        // inside a multi-line array
        assert_eq!(
            path_at(SPEC, at("1,\n")).as_deref(),
            Some("launch[0].grid[0]")
        );
        assert_eq!(path_at(SPEC, 0).as_deref(), Some("ptx"));
        assert_eq!(path_at("not = [toml", 3), None);
    }

    #[test]
    fn keys_are_located() {
        assert_eq!(locate(SPEC, "buffers.c"), Some((5, 1)));
        assert_eq!(locate(SPEC, "buffers.b.len"), Some((4, 1)));
        assert_eq!(locate(SPEC, "buffers.c.init.kind"), Some((7, 10)));
        assert_eq!(locate(SPEC, "launch[1].kernel"), Some((14, 1)));
        assert_eq!(locate(SPEC, "launch[0]"), Some((8, 1)));
        assert_eq!(locate(SPEC, "nothing.here"), None);
        let ov = "[gpu.sm.limits]\nregisters = 3\n[gpu]\nsms = 2\n";
        assert_eq!(locate(ov, "gpu.sm.limits.registers"), Some((2, 1)));
        assert_eq!(locate(ov, "gpu.sms"), Some((4, 1)));
        let dotted = "gpu.sms = 4\n";
        assert_eq!(locate(dotted, "gpu.sms"), Some((1, 5)));
    }
}
