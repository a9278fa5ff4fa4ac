//! CPython versions.

use std::fmt;

/// A CPython feature version (`major.minor`), e.g. `PythonVersion::PY311`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PythonVersion {
    /// Major version, always 3.
    pub major: u8,
    /// Minor version, 8 through 15.
    pub minor: u8,
}

impl PythonVersion {
    /// Builds a version from its parts.
    pub const fn new(major: u8, minor: u8) -> Self {
        Self { major, minor }
    }
    /// CPython 3.8.
    pub const PY38: Self = Self::new(3, 8);
    /// CPython 3.9.
    pub const PY39: Self = Self::new(3, 9);
    /// CPython 3.10.
    pub const PY310: Self = Self::new(3, 10);
    /// CPython 3.11.
    pub const PY311: Self = Self::new(3, 11);
    /// CPython 3.12.
    pub const PY312: Self = Self::new(3, 12);
    /// CPython 3.13.
    pub const PY313: Self = Self::new(3, 13);
    /// CPython 3.14.
    pub const PY314: Self = Self::new(3, 14);
    /// CPython 3.15.
    pub const PY315: Self = Self::new(3, 15);

    /// Every version this crate has an opcode table for, oldest first.
    pub const SUPPORTED: &'static [Self] = &[
        Self::PY38,
        Self::PY39,
        Self::PY310,
        Self::PY311,
        Self::PY312,
        Self::PY313,
        Self::PY314,
        Self::PY315,
    ];

    /// Whether the bytecode of this version is decoded by this crate.
    pub fn is_supported(self) -> bool {
        Self::SUPPORTED.contains(&self)
    }
}

impl fmt::Display for PythonVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}
