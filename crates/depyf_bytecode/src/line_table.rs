//! Line tables of every supported version: `co_lnotab` (3.8-3.9), the 3.10
//! `co_linetable`, and the 3.11+ location table. Sources: CPython 3.9
//! `Objects/lnotab_notes.txt`, 3.10 `Objects/lnotab_notes.txt`, 3.11+
//! `InternalDocs/locations.md` (formerly `Objects/locations.md`).

use crate::{BytecodeError, BytecodeErrorKind, CodeObject, PythonVersion};

/// The source line of every code unit of `code` (`None` where the compiler recorded no
/// line, e.g. 3.11 `RESUME` of a generator or artificial instructions).
///
/// Returns a vector with one entry per 2-byte code unit. Errors with
/// `BytecodeErrorKind::BadTable` (offset into the table) if the table is malformed.
pub fn unit_lines(code: &CodeObject) -> Result<Vec<Option<u32>>, BytecodeError> {
    let mut lines = vec![None; code.co_code.len() / 2];
    for_each_range(code, |start, end, line| lines[start..end].fill(line))?;
    Ok(lines)
}

/// Calls `f(start, end, line)` for each range of code units `start..end` (already
/// clipped to the units of `co_code`, possibly empty) that the line table gives one
/// line, in table order. The ranges that are not empty follow each other (a later one
/// starts at or after the end of the one before; a stretch between them has no line),
/// and nothing is allocated: the decoder gives each range's line to its instructions as
/// the ranges come. Errors as [`unit_lines`], before any later range is reported.
pub(crate) fn for_each_range(code: &CodeObject, mut f: impl FnMut(usize, usize, Option<u32>)) -> Result<(), BytecodeError> {
    let units = code.co_code.len() / 2;
    // What filling the units `from..to` that exist sets (3.11+ tables count units;
    // the older ones count bytes and halve them).
    let mut fill = |from: usize, to: usize, line: Option<u32>| {
        let end = to.min(units);
        let start = from.min(end);
        f(start, end, line);
    };
    let bad = |offset: usize, m: &str| BytecodeError {
        kind: BytecodeErrorKind::BadTable(m.to_string()),
        code_name: code.co_qualname.clone(),
        offset,
    };
    let t = &code.co_linetable;
    let first = i64::from(code.co_firstlineno);
    if code.version < PythonVersion::PY310 {
        // co_lnotab: (byte increment, signed line increment) pairs.
        let mut addr = 0usize;
        let mut line = first;
        let mut i = 0;
        let mut last_addr = 0usize;
        let mut last_line = line;
        while i + 1 < t.len() {
            let db = t[i] as usize;
            let dl = i64::from(t[i + 1] as i8);
            if db != 0 {
                fill(last_addr / 2, (addr + db) / 2, Some(clamp(last_line)));
                addr += db;
                last_addr = addr;
            }
            line += dl;
            last_line = line;
            i += 2;
        }
        fill(last_addr / 2, units, Some(clamp(last_line)));
    } else if code.version == PythonVersion::PY310 {
        // (byte delta, signed line delta) pairs; line delta -128 means "no line".
        let mut addr = 0usize;
        let mut line = first;
        let mut i = 0;
        while i + 1 < t.len() {
            let db = t[i] as usize;
            let dl = t[i + 1] as i8;
            let this = if dl == -128 {
                None
            } else {
                line += i64::from(dl);
                Some(line)
            };
            fill(addr / 2, (addr + db) / 2, this.map(clamp));
            addr += db;
            i += 2;
        }
    } else {
        // Location entries: a first byte `1cccclll` (code `cccc`, `lll + 1` code units),
        // then varints whose meaning depends on the code.
        let mut pos = 0usize;
        let mut unit = 0usize;
        let mut line = first;
        while pos < t.len() {
            let head = t[pos];
            if head & 0x80 == 0 {
                return Err(bad(pos, "location entry without its start bit"));
            }
            let kind = (head >> 3) & 0x0f;
            let length = usize::from(head & 7) + 1;
            pos += 1;
            let this = match kind {
                15 => None,
                14 => {
                    let d = read_svarint(t, &mut pos).ok_or_else(|| bad(pos, "truncated varint"))?;
                    line += d;
                    for _ in 0..3 {
                        read_varint(t, &mut pos).ok_or_else(|| bad(pos, "truncated varint"))?;
                    }
                    Some(line)
                }
                13 => {
                    let d = read_svarint(t, &mut pos).ok_or_else(|| bad(pos, "truncated varint"))?;
                    line += d;
                    Some(line)
                }
                10..=12 => {
                    line += i64::from(kind - 10);
                    pos += 2;
                    Some(line)
                }
                _ => {
                    pos += 1;
                    Some(line)
                }
            };
            if pos > t.len() {
                return Err(bad(t.len(), "truncated location entry"));
            }
            fill(unit, unit + length, this.map(clamp));
            unit += length;
        }
    }
    Ok(())
}

fn clamp(line: i64) -> u32 {
    u32::try_from(line.max(0)).unwrap_or(u32::MAX)
}

#[inline(always)]
fn read_varint(t: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let b = *t.get(*pos)?;
        *pos += 1;
        value |= u64::from(b & 63) << shift;
        if b & 64 == 0 {
            return Some(value);
        }
        shift += 6;
        if shift > 60 {
            return None;
        }
    }
}

#[inline(always)]
fn read_svarint(t: &[u8], pos: &mut usize) -> Option<i64> {
    let v = read_varint(t, pos)?;
    let mag = (v >> 1) as i64;
    Some(if v & 1 != 0 { -mag } else { mag })
}

/// Reads the 6-bit varints of a 3.11+ exception table (big-endian groups, bit 6 set on
/// all but the last group). Shared with `exception_table`.
pub(crate) fn read_exception_varint(t: &[u8], pos: &mut usize) -> Option<u32> {
    let mut b = *t.get(*pos)?;
    *pos += 1;
    let mut value = u32::from(b & 63);
    while b & 64 != 0 {
        b = *t.get(*pos)?;
        *pos += 1;
        value = value.checked_mul(64)? | u32::from(b & 63);
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ranges of `for_each_range` that are not empty follow each other in order,
    /// and spelled out unit by unit are `unit_lines`, for every code object of the
    /// fixture .pyc files of 3.8-3.15; the decoder gives every instruction the line of
    /// its unit.
    #[test]
    fn ranges_are_the_unit_lines() {
        let mut n = 0;
        crate::for_each_fixture_code(&mut |code| {
            let mut from_ranges = Vec::new();
            for_each_range(code, |start, end, line| {
                if start < end {
                    assert!(start >= from_ranges.len(), "{} {}: ranges overlap", code.version, code.co_qualname);
                    from_ranges.resize(start, None);
                    from_ranges.resize(end, line);
                }
            })
            .unwrap();
            from_ranges.resize(code.co_code.len() / 2, None);
            let lines = unit_lines(code).unwrap();
            assert_eq!(from_ranges, lines, "{} {}", code.version, code.co_qualname);
            for i in crate::decode(code).unwrap() {
                assert_eq!(i.line_number, lines[i.offset as usize / 2], "{} {} at {}", code.version, code.co_qualname, i.offset);
            }
            n += 1;
        });
        assert!(n > 100, "only {n} code objects checked");
    }
}
