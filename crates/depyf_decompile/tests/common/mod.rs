//! Helpers shared by the integration tests that compare decompiled functions with
//! their source.

use std::collections::BTreeMap;

/// The top-level `def` and `async def` blocks of a Python source text, by function
/// name, each ending in one newline. A block runs from its `def` line to the next
/// line that starts in column 0.
pub fn defs(text: &str) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut cur: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("def ").or_else(|| line.strip_prefix("async def ")) {
            cur = Some(rest.split('(').next().unwrap().to_string());
        } else if !line.starts_with(' ') && !line.is_empty() {
            cur = None;
        }
        if let Some(n) = &cur {
            let s = out.entry(n.clone()).or_default();
            s.push_str(line);
            s.push('\n');
        }
    }
    out.into_iter().map(|(n, s)| (n, s.trim_end().to_string() + "\n")).collect()
}
