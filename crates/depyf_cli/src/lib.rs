//! The library behind the `depyf` command: every subcommand returns its output in
//! memory; `main` only parses flags and prints.
//!
//! - `depyf dis`: [`dis_file`].
//! - `depyf decompile`: [`decompile::collect_inputs`] finds the `.pyc` files,
//!   [`decompile::decompile_inputs`] decompiles them in parallel (and, with `--verify`,
//!   checks them through [`verify`]) into a [`decompile::BatchOutput`].

pub mod decompile;
pub mod verify;

use std::fmt;
use std::path::{Path, PathBuf};

use depyf_bytecode::{dis, pyc, BytecodeError, MarshalError};

/// Why a command failed, with the file it was working on.
#[derive(Debug)]
pub struct CliError {
    /// The input file.
    pub path: PathBuf,
    /// What went wrong.
    pub kind: CliErrorKind,
}

/// The kinds of [`CliError`].
#[derive(Debug)]
pub enum CliErrorKind {
    /// The file could not be read.
    Io(std::io::Error),
    /// The `.pyc` header or marshal data is malformed (carries the file offset).
    Pyc(MarshalError),
    /// A code object's bytecode or side tables are malformed (carries the code object
    /// and the offset in its `co_code`).
    Bytecode(BytecodeError),
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.path.display();
        match &self.kind {
            CliErrorKind::Io(e) => write!(f, "{p}: cannot read: {e}"),
            CliErrorKind::Pyc(e) => write!(f, "{p}: {e}"),
            CliErrorKind::Bytecode(e) => write!(f, "{p}: {e}"),
        }
    }
}

impl std::error::Error for CliError {}

/// `depyf dis FILE.pyc`: the text that the file's own CPython version prints for
/// `dis.dis(module_code)` (code object addresses print as `0x0000`).
///
/// Errors: unreadable file, malformed `.pyc` (offset in the file), malformed bytecode
/// (code object and offset).
pub fn dis_file(path: &Path) -> Result<String, CliError> {
    let err = |kind| CliError { path: path.to_path_buf(), kind };
    let data = std::fs::read(path).map_err(|e| err(CliErrorKind::Io(e)))?;
    dis_bytes(&data).map_err(err)
}

/// Like [`dis_file`], for the bytes of a `.pyc` file already in memory.
pub fn dis_bytes(data: &[u8]) -> Result<String, CliErrorKind> {
    let pyc = pyc::read_pyc(data).map_err(CliErrorKind::Pyc)?;
    dis::dis(&pyc.code).map_err(CliErrorKind::Bytecode)
}

impl fmt::Display for CliErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliErrorKind::Io(e) => write!(f, "{e}"),
            CliErrorKind::Pyc(e) => write!(f, "{e}"),
            CliErrorKind::Bytecode(e) => write!(f, "{e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_file_names_the_file() {
        let e = dis_file(Path::new("no/such/file.pyc")).unwrap_err();
        assert!(e.to_string().starts_with("no/such/file.pyc: cannot read"), "{e}");
    }

    #[test]
    fn truncated_pyc_names_the_offset() {
        let e = dis_bytes(b"\xcb\x0d\r\n\0\0\0\0\0\0\0\0\0\0\0\0\xe3\x00").unwrap_err();
        assert!(e.to_string().starts_with("at byte offset 17:"), "{}", e);
    }
}
