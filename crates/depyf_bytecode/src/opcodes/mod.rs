//! Per-version opcode tables, generated from each interpreter's `opcode` module by
//! `scripts/gen_opcodes.py`. This is the only place that knows opcode numbers.

use crate::PythonVersion;

mod py310;
mod py311;
mod py312;
mod py313;
mod py314;
mod py315;
mod py38;
mod py39;
mod names;

pub use names::Opname;

/// Property bits of an opcode (the `has*` lists of CPython's `opcode` module).
pub mod op_flags {
    /// Takes an oparg (`opcode.hasarg`, or `>= HAVE_ARGUMENT` before 3.12).
    pub const HAS_ARG: u16 = 1 << 0;
    /// Oparg indexes `co_consts`.
    pub const HAS_CONST: u16 = 1 << 1;
    /// Oparg indexes `co_names` (possibly shifted, see `decode`).
    pub const HAS_NAME: u16 = 1 << 2;
    /// Relative jump.
    pub const HAS_JREL: u16 = 1 << 3;
    /// Absolute jump.
    pub const HAS_JABS: u16 = 1 << 4;
    /// Oparg indexes the fast locals.
    pub const HAS_LOCAL: u16 = 1 << 5;
    /// Oparg indexes cell and free variables.
    pub const HAS_FREE: u16 = 1 << 6;
    /// Oparg selects a comparison operator.
    pub const HAS_COMPARE: u16 = 1 << 7;
    /// A relative jump backwards: `dis._is_backward_jump` (3.11+ `JUMP_BACKWARD*`,
    /// 3.11 `POP_JUMP_BACKWARD_IF_*`, 3.14+ `END_ASYNC_FOR`).
    pub const BACKWARD_JUMP: u16 = 1 << 8;
}

/// The opcode table of one CPython version.
#[derive(Debug)]
pub struct OpcodeTable {
    /// The version this table describes.
    pub version: PythonVersion,
    /// `opcode.HAVE_ARGUMENT`.
    pub have_argument: u8,
    /// `opcode.EXTENDED_ARG`.
    pub extended_arg: u8,
    /// `opcode.opname`, `None` for undefined numbers.
    pub names: [Option<&'static str>; 256],
    /// Property bits, see [`op_flags`].
    pub flags: [u16; 256],
    /// Inline CACHE code units following each opcode (3.11+).
    pub cache_entries: [u8; 256],
    /// `opcode.cmp_op`.
    pub cmp_op: &'static [&'static str],
    /// Operator symbols of `BINARY_OP` (3.11+), indexed by oparg.
    pub nb_ops: &'static [&'static str],
    /// `CALL_INTRINSIC_1` function names (3.12+).
    pub intrinsic1: &'static [&'static str],
    /// `CALL_INTRINSIC_2` function names (3.12+).
    pub intrinsic2: &'static [&'static str],
    /// How `dis` shows each `LOAD_COMMON_CONSTANT` oparg (3.14+): a type's `__name__`
    /// or a value's `repr` (CPython `Lib/opcode.py` `_common_constants`).
    pub common_constants: &'static [&'static str],
    /// `LOAD_SPECIAL` method names (3.14+, `_special_method_names`).
    pub special_method_names: &'static [&'static str],
}

impl OpcodeTable {
    /// The opname of `op`, if defined in this version.
    pub fn name(&self, op: u8) -> Option<&'static str> {
        self.names[op as usize]
    }

    /// Whether `op` has all bits of `flag`.
    pub fn has(&self, op: u8, flag: u16) -> bool {
        self.flags[op as usize] & flag == flag
    }

    /// [`Opname`] of every opcode number of this version ([`Opname::Undefined`] where
    /// [`Self::names`] has `None`), computed on first use and kept for the process.
    pub fn ids(&'static self) -> &'static [Opname; 256] {
        static IDS: [std::sync::OnceLock<[Opname; 256]>; 8] = [const { std::sync::OnceLock::new() }; 8];
        let slot = usize::from(self.version.minor.saturating_sub(8)).min(7);
        IDS[slot].get_or_init(|| std::array::from_fn(|op| self.names[op].map_or(Opname::Undefined, |n| Opname::from_name(n).expect("every table name is in names.rs"))))
    }

    /// The number of `op`, by opname.
    pub fn opcode(&self, name: &str) -> Option<u8> {
        (0..=255u8).find(|&op| self.names[op as usize] == Some(name))
    }
}

/// The opcode table of `version`, or `None` if it is not supported.
pub fn table_for(version: PythonVersion) -> Option<&'static OpcodeTable> {
    Some(match (version.major, version.minor) {
        (3, 8) => &py38::TABLE,
        (3, 9) => &py39::TABLE,
        (3, 10) => &py310::TABLE,
        (3, 11) => &py311::TABLE,
        (3, 12) => &py312::TABLE,
        (3, 13) => &py313::TABLE,
        (3, 14) => &py314::TABLE,
        (3, 15) => &py315::TABLE,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every defined opcode of every version maps to the variant of its own name, and
    /// undefined numbers to `Undefined`.
    #[test]
    fn ids_match_names() {
        for minor in 8..=15 {
            let table = table_for(PythonVersion::new(3, minor)).expect("a table");
            let ids = table.ids();
            for op in 0..=255u8 {
                match table.name(op) {
                    Some(name) => assert_eq!(format!("{:?}", ids[op as usize]), name, "3.{minor} opcode {op}"),
                    None => assert_eq!(ids[op as usize], Opname::Undefined, "3.{minor} opcode {op}"),
                }
            }
        }
        assert_eq!(table_for(PythonVersion::new(3, 12)).unwrap().ids()[124], Opname::LOAD_FAST);
        assert_eq!(Opname::from_name("NOT_AN_OPNAME"), None);
    }
}
