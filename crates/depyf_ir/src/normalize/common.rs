//! What the normalizers of every version share: the per-code-object state ([`Cx`]),
//! folds of an instruction into its neighbour, and the opcodes whose meaning is the same
//! in every version from 3.8 to 3.15 ([`emit_same_everywhere`]).
//!
//! An opcode belongs in [`emit_same_everywhere`] only if every version that has it gives it
//! the same stack effect and meaning (CPython `Lib/dis.py` docs of each version and
//! `dis.stack_effect`, checked by `tests/stack_effects.rs`); the rest is decided by the
//! version modules.

use depyf_bytecode::{Opname, table_for, Argval, CodeObject, Constant, Instruction};

use super::{IrError, IrInstr};
use crate::{BinOp, CmpOp, Op, UnaryOp};

/// Normalized instructions and, in lenient mode, the errors of those left out.
pub(super) type Normalized = (Vec<IrInstr>, Vec<IrError>);

/// The message of every opcode without a normalized form.
pub(super) const UNSUPPORTED: &str = "not supported by the decompiler yet";

/// Normalization state of one code object.
pub(super) struct Cx<'a> {
    pub code: &'a CodeObject,
    pub ins: &'a [Instruction],
    pub out: Vec<IrInstr>,
    /// 3.11-3.12 `KW_NAMES` waiting for its `CALL`.
    pub kwnames: Option<usize>,
    /// The next instruction was folded into the current one: it becomes a `Nop`.
    pub skip_next: bool,
    /// That many instructions after the current one were folded into it (`yield
    /// from`, a `with` exit): they become `Nop`s.
    pub skip_more: usize,
    /// That many instructions after the current one were folded into it and leave
    /// no op at all (not even a `Nop`, which would end up a block of its own after
    /// a jump); nothing may jump to them.
    pub drop_more: usize,
    /// Keep going after an instruction without a normalized form ([`super::normalize_all`]).
    lenient: bool,
    /// The errors met in lenient mode.
    errors: Vec<IrError>,
}

impl<'a> Cx<'a> {
    pub fn new(code: &'a CodeObject, ins: &'a [Instruction], lenient: bool) -> Self {
        Cx {
            code,
            ins,
            out: Vec::with_capacity(ins.len() + ins.len() / 8),
            kwnames: None,
            skip_next: false,
            skip_more: 0,
            drop_more: 0,
            lenient,
            errors: Vec::new(),
        }
    }

    /// Appends `op` as (part of) instruction `k`. Inlined: called for nearly every
    /// instruction, and the op is then built in place instead of passed in memory.
    #[inline]
    pub fn emit(&mut self, k: usize, op: Op) {
        let i = &self.ins[k];
        self.out.push(IrInstr { offset: i.offset, at: i.offset, op, line: i.line_number, opname: i.opname });
    }

    /// The error for instruction `k`.
    pub fn err(&self, k: usize, message: impl Into<String>) -> IrError {
        IrError::at(self.code, &self.ins[k], message)
    }

    /// The "no normalized form" error for instruction `k`.
    pub fn unsupported(&self, k: usize) -> IrError {
        self.err(k, UNSUPPORTED)
    }

    /// The instruction before `k`, EXTENDED_ARG prefixes of `k` skipped.
    pub fn prev(&self, k: usize) -> Option<usize> {
        let mut j = k.checked_sub(1)?;
        while self.ins[j].opname == "EXTENDED_ARG" {
            j = j.checked_sub(1)?;
        }
        Some(j)
    }

    /// The instruction after `k`.
    pub fn next(&self, k: usize) -> Option<&'a Instruction> {
        self.ins.get(k + 1)
    }

    /// Index of the instruction at byte offset `offset`.
    pub fn at_offset(&self, offset: u32) -> Option<usize> {
        self.ins.binary_search_by_key(&offset, |i| i.offset).ok()
    }

    /// Turns the ops already emitted for instruction `j` into `Nop`s (the instruction
    /// was folded into a later one; its offset stays so that jumps still land).
    pub fn absorb(&mut self, j: usize) {
        let off = self.ins[j].offset;
        for o in self.out.iter_mut().rev().take_while(|o| o.offset >= off) {
            if o.offset == off {
                o.op = Op::Nop;
            }
        }
    }

    /// For `CALL_FUNCTION_KW` (3.8-3.10) and `CALL_KW` (3.13+), whose keyword names tuple
    /// is pushed by the `LOAD_CONST` right before: folds that load into the call and
    /// returns its `co_consts` index.
    pub fn fold_kwnames(&mut self, k: usize) -> Result<usize, IrError> {
        let j = self.prev(k).ok_or_else(|| self.err(k, "keyword names are not a LOAD_CONST right before the call"))?;
        match self.ins[j] {
            Instruction { opname: "LOAD_CONST", argval: Argval::Const(c), .. }
                if matches!(self.code.co_consts.get(c as usize), Some(Constant::Tuple(_))) =>
            {
                self.absorb(j);
                Ok(c as usize)
            }
            _ => Err(self.err(k, "keyword names are not a LOAD_CONST of a tuple right before the call")),
        }
    }

    /// Runs `f` on every instruction, except those folded into the one before. In
    /// lenient mode an instruction that fails emits nothing and its error is kept.
    pub fn run(mut self, mut f: impl FnMut(&mut Self, usize) -> Result<(), IrError>) -> Result<Normalized, IrError> {
        for k in 0..self.ins.len() {
            if self.drop_more > 0 {
                self.drop_more -= 1;
                continue;
            }
            if self.skip_more > 0 {
                self.skip_more -= 1;
                self.emit(k, Op::Nop);
                continue;
            }
            if std::mem::take(&mut self.skip_next) {
                self.emit(k, Op::Nop);
                continue;
            }
            let before = self.out.len();
            match f(&mut self, k) {
                Ok(()) => {}
                Err(e) if self.lenient => {
                    self.out.truncate(before);
                    self.errors.push(e);
                }
                Err(e) => return Err(e),
            }
        }
        let errors = std::mem::take(&mut self.errors);
        Ok((self.finish()?, errors))
    }

    /// Checks what must hold at the end (no `KW_NAMES` without its call).
    fn finish(self) -> Result<Vec<IrInstr>, IrError> {
        if self.kwnames.is_some() {
            return Err(IrError {
                code_name: self.code.co_qualname.clone(),
                offset: 0,
                opname: "KW_NAMES".into(),
                version: self.code.version,
                message: "keyword names without a following CALL".into(),
            });
        }
        Ok(self.out)
    }

    /// The table index operand of instruction `k` (const, name or local).
    pub fn idx(&self, k: usize) -> usize {
        match self.ins[k].argval {
            Argval::Const(x) | Argval::Name(x) | Argval::Local(x) => x as usize,
            _ => 0,
        }
    }

    /// The oparg of instruction `k` (0 when it has none).
    pub fn arg(&self, k: usize) -> u32 {
        self.ins[k].oparg.unwrap_or(0)
    }

    /// The jump target of instruction `k`.
    pub fn target(&self, k: usize) -> u32 {
        self.ins[k].jump_target().unwrap_or(0)
    }

    /// `COMPARE_OP` of any version (the decoder has already removed the 3.12+ flag
    /// bits); 3.8's `cmp_op` also holds `in`, `not in`, `is`, `is not`.
    pub fn compare(&self, k: usize) -> Result<Op, IrError> {
        let Argval::Compare(c) = self.ins[k].argval else { return Err(self.err(k, "COMPARE_OP without operator")) };
        let table = table_for(self.code.version).expect("decoded, so a table exists");
        let sym = table.cmp_op[c as usize];
        let op = CmpOp::from_symbol(sym).or(match sym {
            "in" => Some(CmpOp::In),
            "not in" => Some(CmpOp::NotIn),
            "is" => Some(CmpOp::Is),
            "is not" => Some(CmpOp::IsNot),
            _ => None,
        });
        // 3.8 `exception match` belongs to try/except, another issue.
        op.map(Op::Compare).ok_or_else(|| self.unsupported(k))
    }

    /// 3.11+ `BINARY_OP` by its `nb_ops` symbol; `[]` (3.14+ `NB_SUBSCR`) is a subscript.
    pub fn binary_op(&self, k: usize) -> Result<Op, IrError> {
        let arg = self.arg(k);
        let table = table_for(self.code.version).expect("decoded, so a table exists");
        let sym = *table.nb_ops.get(arg as usize).ok_or_else(|| self.err(k, format!("unknown binary operator {arg}")))?;
        if sym == "[]" {
            return Ok(Op::BinarySubscr);
        }
        let op = BinOp::from_symbol(sym).ok_or_else(|| self.err(k, format!("unknown binary operator {sym}")))?;
        Ok(Op::Binary(op, sym.ends_with('=')))
    }
}

/// The dedicated binary opcodes before 3.11: `BINARY_ADD` → `(Add, false)`,
/// `INPLACE_ADD` → `(Add, true)`.
pub(super) fn pre311_binary(opname: &str) -> Option<(BinOp, bool)> {
    let (inplace, rest) = if let Some(r) = opname.strip_prefix("INPLACE_") {
        (true, r)
    } else {
        (false, opname.strip_prefix("BINARY_")?)
    };
    let op = match rest {
        "ADD" => BinOp::Add,
        "AND" => BinOp::And,
        "FLOOR_DIVIDE" => BinOp::FloorDiv,
        "LSHIFT" => BinOp::LShift,
        "MATRIX_MULTIPLY" => BinOp::MatMul,
        "MULTIPLY" => BinOp::Mul,
        "MODULO" => BinOp::Mod,
        "OR" => BinOp::Or,
        "POWER" => BinOp::Pow,
        "RSHIFT" => BinOp::RShift,
        "SUBTRACT" => BinOp::Sub,
        "TRUE_DIVIDE" => BinOp::Div,
        "XOR" => BinOp::Xor,
        _ => return None,
    };
    Some((op, inplace))
}

/// Emits the op of instruction `k` when its opcode means the same in every version
/// that has it, and tells whether it did. Opcodes listed here must not be given another
/// meaning by any version module (a version that changed one handles it before calling
/// this). Inlined: called for nearly every instruction. The op goes from the `match`
/// straight into [`Cx::emit`]: passed back as a `Result<Option<Op>>`, its copy through
/// the `?` stalled on a partial store forwarding (`perf annotate`: a quarter of the
/// normalizer's time, issue #7).
#[inline(always)]
pub(super) fn emit_same_everywhere(cx: &mut Cx<'_>, k: usize) -> Result<bool, IrError> {
    let arg = cx.arg(k);
    let idx = cx.idx(k);
    let op = match cx.ins[k].id {
        Opname::NOP | Opname::EXTENDED_ARG | Opname::RESUME | Opname::CACHE => Op::Nop,
        Opname::MAKE_CELL | Opname::COPY_FREE_VARS => Op::FrameSetup,
        Opname::LOAD_CONST => Op::LoadConst(idx),
        Opname::LOAD_FAST => Op::LoadFast(idx),
        Opname::STORE_FAST => Op::StoreFast(idx),
        Opname::DELETE_FAST => Op::DeleteFast(idx),
        Opname::LOAD_DEREF => Op::LoadDeref(idx),
        Opname::STORE_DEREF => Op::StoreDeref(idx),
        Opname::DELETE_DEREF => Op::DeleteDeref(idx),
        Opname::LOAD_CLOSURE => Op::LoadClosure(idx),
        Opname::STORE_GLOBAL => Op::StoreGlobal(idx),
        Opname::DELETE_GLOBAL => Op::DeleteGlobal(idx),
        Opname::LOAD_NAME => Op::LoadName(idx),
        Opname::STORE_NAME => Op::StoreName(idx),
        Opname::DELETE_NAME => Op::DeleteName(idx),
        Opname::STORE_ATTR => Op::StoreAttr(idx),
        Opname::DELETE_ATTR => Op::DeleteAttr(idx),
        Opname::PUSH_NULL => Op::PushNull,
        Opname::POP_TOP => Op::PopTop,
        Opname::COPY => Op::Copy(arg),
        Opname::SWAP => Op::Swap(arg),
        Opname::UNARY_NEGATIVE => Op::Unary(UnaryOp::Neg),
        Opname::UNARY_POSITIVE => Op::Unary(UnaryOp::Pos),
        Opname::UNARY_NOT => Op::Unary(UnaryOp::Not),
        Opname::UNARY_INVERT => Op::Unary(UnaryOp::Invert),
        Opname::BINARY_OP => cx.binary_op(k)?,
        Opname::COMPARE_OP => cx.compare(k)?,
        Opname::IS_OP => Op::Compare(if arg == 0 { CmpOp::Is } else { CmpOp::IsNot }),
        Opname::CONTAINS_OP => Op::Compare(if arg == 0 { CmpOp::In } else { CmpOp::NotIn }),
        Opname::BINARY_SUBSCR => Op::BinarySubscr,
        Opname::STORE_SUBSCR => Op::StoreSubscr,
        Opname::DELETE_SUBSCR => Op::DeleteSubscr,
        Opname::BUILD_SLICE => Op::BuildSlice(arg),
        Opname::BUILD_TUPLE => Op::BuildTuple(arg),
        Opname::BUILD_LIST => Op::BuildList(arg),
        Opname::BUILD_SET => Op::BuildSet(arg),
        Opname::BUILD_MAP => Op::BuildMap(arg),
        Opname::BUILD_CONST_KEY_MAP => Op::BuildConstKeyMap(arg),
        Opname::BUILD_STRING => Op::BuildString(arg),
        Opname::LIST_EXTEND => Op::ListExtend(arg),
        Opname::LIST_APPEND => Op::ListAppend(arg),
        Opname::LIST_TO_TUPLE => Op::ListToTuple,
        Opname::SET_ADD => Op::SetAdd(arg),
        Opname::SET_UPDATE => Op::SetUpdate(arg),
        Opname::DICT_UPDATE => Op::DictUpdate(arg, false),
        Opname::DICT_MERGE => Op::DictUpdate(arg, true),
        // Since 3.8 the value is on top of the key.
        Opname::MAP_ADD => Op::MapAdd(arg),
        Opname::UNPACK_SEQUENCE => Op::UnpackSequence(arg),
        Opname::UNPACK_EX => Op::UnpackEx(arg & 0xff, arg >> 8),
        Opname::IMPORT_NAME => Op::ImportName(idx),
        Opname::IMPORT_FROM => Op::ImportFrom(idx),
        Opname::IMPORT_STAR => Op::ImportStar,
        Opname::LOAD_BUILD_CLASS => Op::LoadBuildClass,
        Opname::LOAD_ASSERTION_ERROR => Op::LoadAssertionError,
        Opname::SETUP_ANNOTATIONS => Op::SetupAnnotations,
        Opname::LOAD_LOCALS => Op::LoadLocals,
        Opname::LOAD_FROM_DICT_OR_DEREF => Op::LoadFromDictOr(idx, true),
        Opname::LOAD_FROM_DICT_OR_GLOBALS => Op::LoadFromDictOr(idx, false),
        Opname::RETURN_VALUE => Op::Return,
        Opname::RAISE_VARARGS => Op::Raise(arg),
        Opname::JUMP_FORWARD | Opname::JUMP_ABSOLUTE | Opname::JUMP_BACKWARD | Opname::JUMP_BACKWARD_NO_INTERRUPT => Op::Jump(cx.target(k)),
        Opname::POP_JUMP_IF_FALSE => Op::JumpIf { when: false, target: cx.target(k) },
        Opname::POP_JUMP_IF_TRUE => Op::JumpIf { when: true, target: cx.target(k) },
        Opname::POP_JUMP_IF_NONE => Op::JumpIfNone { when: true, target: cx.target(k) },
        Opname::POP_JUMP_IF_NOT_NONE => Op::JumpIfNone { when: false, target: cx.target(k) },
        _ => return Ok(false),
    };
    cx.emit(k, op);
    Ok(true)
}
