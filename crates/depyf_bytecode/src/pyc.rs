//! `.pyc` files: a 16-byte header (PEP 552) and the marshalled module code object.
//!
//! Header layout (CPython `Lib/importlib/_bootstrap_external.py`, `_classify_pyc`):
//! a 2-byte little-endian magic number followed by `\r\n`, a 4-byte flags word, then
//! either the source mtime and size (flags 0) or an 8-byte source hash (bit 0 set;
//! bit 1 = `check_source`).

use crate::marshal::{loads_at, MarshalError, MarshalErrorKind};
use crate::{CodeObject, Constant, PythonVersion};

/// The magic-number ranges of each supported version's `.pyc` files, inclusive. Each
/// version's final magic lies in its range; the alpha/beta ones before it too. From the
/// magic-number history in CPython's `Lib/importlib/_bootstrap_external.py` (3.8-3.13)
/// and `Include/internal/pycore_magic_number.h` (3.14+).
pub const MAGIC_RANGES: &[(u16, u16, PythonVersion)] = &[
    (3400, 3419, PythonVersion::PY38),
    (3420, 3429, PythonVersion::PY39),
    (3430, 3449, PythonVersion::PY310),
    (3450, 3499, PythonVersion::PY311),
    (3500, 3549, PythonVersion::PY312),
    (3550, 3599, PythonVersion::PY313),
    (3600, 3649, PythonVersion::PY314),
    (3650, 3699, PythonVersion::PY315),
];

/// The version whose `.pyc` files carry `magic`, if it is one of 3.8-3.15.
pub fn version_for_magic(magic: u16) -> Option<PythonVersion> {
    MAGIC_RANGES.iter().find(|(lo, hi, _)| (*lo..=*hi).contains(&magic)).map(|r| r.2)
}

/// How a `.pyc` records the source it was compiled from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invalidation {
    /// Source mtime and size (the default).
    Timestamp {
        /// Modification time of the source, seconds since the epoch (mod 2**32).
        mtime: u32,
        /// Size of the source in bytes (mod 2**32).
        source_size: u32,
    },
    /// SipHash of the source (PEP 552).
    Hash {
        /// Whether the importer checks the hash against the source.
        check_source: bool,
        /// The 8-byte source hash.
        source_hash: [u8; 8],
    },
}

/// The 16-byte header of a `.pyc` file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PycHeader {
    /// The magic number (first two bytes, little-endian).
    pub magic: u16,
    /// The CPython version the magic belongs to.
    pub version: PythonVersion,
    /// The raw flags word.
    pub flags: u32,
    /// Timestamp or hash invalidation data.
    pub invalidation: Invalidation,
}

/// A parsed `.pyc` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Pyc {
    /// Its header.
    pub header: PycHeader,
    /// The module code object.
    pub code: CodeObject,
}

/// Size of the `.pyc` header for 3.7+.
pub const HEADER_LEN: usize = 16;

fn header_err(offset: usize, kind: MarshalErrorKind) -> MarshalError {
    MarshalError { kind, offset }
}

/// Parses the 16-byte header of a `.pyc` file.
///
/// Errors (offsets into `data`): `Truncated` if shorter than 16 bytes, `BadHeader` if the
/// magic does not end in `\r\n` or the flags have unknown bits, `UnknownMagic` for magic
/// numbers outside 3.8-3.15.
pub fn read_header(data: &[u8]) -> Result<PycHeader, MarshalError> {
    if data.len() < HEADER_LEN {
        return Err(header_err(
            data.len(),
            MarshalErrorKind::Truncated { expected: format!("a {HEADER_LEN}-byte .pyc header") },
        ));
    }
    if &data[2..4] != b"\r\n" {
        return Err(header_err(2, MarshalErrorKind::BadHeader("magic number does not end in \\r\\n".into())));
    }
    let magic = u16::from_le_bytes([data[0], data[1]]);
    let version = version_for_magic(magic).ok_or_else(|| header_err(0, MarshalErrorKind::UnknownMagic(magic)))?;
    let word = |i: usize| u32::from_le_bytes([data[i], data[i + 1], data[i + 2], data[i + 3]]);
    let flags = word(4);
    if flags & !0b11 != 0 {
        return Err(header_err(4, MarshalErrorKind::BadHeader(format!("unknown flags 0x{flags:x}"))));
    }
    let invalidation = if flags & 1 != 0 {
        let mut source_hash = [0u8; 8];
        source_hash.copy_from_slice(&data[8..16]);
        Invalidation::Hash { check_source: flags & 2 != 0, source_hash }
    } else {
        Invalidation::Timestamp { mtime: word(8), source_size: word(12) }
    };
    Ok(PycHeader { magic, version, flags, invalidation })
}

/// Parses a whole `.pyc` file: header and module code object.
///
/// Errors carry the byte offset in the file and what was expected there (see
/// [`MarshalErrorKind`]); the object after the header must be a code object.
///
/// ```
/// let e = depyf_bytecode::pyc::read_pyc(b"\x0d\x0d\r\n").unwrap_err();
/// assert_eq!(e.to_string(), "at byte offset 4: input ends, expected a 16-byte .pyc header");
/// ```
pub fn read_pyc(data: &[u8]) -> Result<Pyc, MarshalError> {
    let header = read_header(data)?;
    let (obj, _) = loads_at(data, HEADER_LEN, header.version)?;
    match obj {
        Constant::Code(code) => Ok(Pyc { header, code: std::sync::Arc::unwrap_or_clone(code) }),
        other => Err(header_err(
            HEADER_LEN,
            MarshalErrorKind::Unexpected(format!("the module object is {}, expected a code object", crate::marshal::describe(&other))),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_table() {
        assert_eq!(version_for_magic(3413), Some(PythonVersion::PY38));
        assert_eq!(version_for_magic(3425), Some(PythonVersion::PY39));
        assert_eq!(version_for_magic(3439), Some(PythonVersion::PY310));
        assert_eq!(version_for_magic(3495), Some(PythonVersion::PY311));
        assert_eq!(version_for_magic(3531), Some(PythonVersion::PY312));
        assert_eq!(version_for_magic(3571), Some(PythonVersion::PY313));
        assert_eq!(version_for_magic(3627), Some(PythonVersion::PY314));
        assert_eq!(version_for_magic(3666), Some(PythonVersion::PY315));
        assert_eq!(version_for_magic(3394), None);
    }

    #[test]
    fn headers() {
        let mut h = vec![0xcb, 0x0d, b'\r', b'\n', 1 | 2, 0, 0, 0];
        h.extend_from_slice(b"12345678");
        let hd = read_header(&h).unwrap();
        assert_eq!(hd.version, PythonVersion::PY312);
        assert_eq!(hd.invalidation, Invalidation::Hash { check_source: true, source_hash: *b"12345678" });
        h[4] = 0;
        h[8..12].copy_from_slice(&7u32.to_le_bytes());
        assert!(matches!(read_header(&h).unwrap().invalidation, Invalidation::Timestamp { mtime: 7, .. }));
        h[0] = 0x42;
        assert_eq!(read_header(&h).unwrap_err().kind, MarshalErrorKind::UnknownMagic(0x0d42));
        h[3] = 0;
        assert_eq!(read_header(&h).unwrap_err().offset, 2);
    }

    #[test]
    fn module_must_be_code() {
        let mut h = vec![0xcb, 0x0d, b'\r', b'\n'];
        h.extend_from_slice(&[0; 12]);
        h.push(b'N');
        let e = read_pyc(&h).unwrap_err();
        assert_eq!(e.offset, 16);
        assert!(e.to_string().contains("the module object is a NoneType, expected a code object"), "{e}");
        // A long str is described by its size, not printed.
        h.truncate(16);
        h.extend_from_slice(&[b'a', 44, 1, 0, 0]);
        h.extend(std::iter::repeat_n(0x0f, 300));
        let e = read_pyc(&h).unwrap_err().to_string();
        assert!(e.ends_with("the module object is a str of 300 characters, expected a code object"), "{e}");
    }
}
