//! CPython 3.11 → [`Op`]. Semantics from CPython 3.11 `Python/ceval.c` and
//! `Lib/dis.py`; `co_code` is read de-specialized, so only base opcodes occur.

use depyf_bytecode::{Opname, Argval, CodeObject, Constant, Instruction};

use super::{IrError, IrInstr};
use crate::{BinOp, CallLayout, CmpOp, Op, UnaryOp};

pub(super) fn normalize(code: &CodeObject, ins: &[Instruction]) -> Result<Vec<IrInstr>, IrError> {
    let mut out = Vec::with_capacity(ins.len());
    let mut kwnames: Option<usize> = None;
    // Instructions folded into the op before them (the `SEND` loop of `yield from`
    // and `await`, the call of a `with` block's normal exit): they emit `Nop`.
    let mut folded = 0usize;
    for (at, i) in ins.iter().enumerate() {
        if folded > 0 {
            folded -= 1;
            out.push(IrInstr { offset: i.offset, at: i.offset, op: Op::Nop, line: i.line_number, opname: i.opname });
            continue;
        }
        let names = |k: usize| -> Vec<&str> { ins[at + 1..].iter().take(k).map(|x| x.opname).collect() };
        let is_none = |x: &Instruction| matches!(x.argval, Argval::Const(c) if matches!(code.co_consts.get(c as usize), Some(Constant::None)));
        let arg = i.oparg.unwrap_or(0);
        let idx = || match i.argval {
            depyf_bytecode::Argval::Const(x)
            | depyf_bytecode::Argval::Name(x)
            | depyf_bytecode::Argval::Local(x) => x as usize,
            _ => 0,
        };
        let target = || i.jump_target().unwrap_or(0);
        let mut push = |op: Op| out.push(IrInstr { offset: i.offset, at: i.offset, op, line: i.line_number, opname: i.opname });
        if let Some((op, n)) = super::post311_async::op(code, ins, at).or_else(|| super::post311_star::op(code, ins, at)) {
            folded = n;
            push(op);
            continue;
        }
        match i.id {
            Opname::NOP | Opname::RESUME | Opname::PRECALL | Opname::CACHE | Opname::EXTENDED_ARG => push(Op::Nop),
            Opname::MAKE_CELL | Opname::COPY_FREE_VARS => push(Op::FrameSetup),
            // A generator's frame set-up: `RETURN_GENERATOR` and the `POP_TOP` of its
            // result.
            Opname::RETURN_GENERATOR => {
                if names(1) == ["POP_TOP"] {
                    folded = 1;
                }
                push(Op::Nop)
            }
            Opname::PUSH_EXC_INFO => push(Op::PushExcInfo),
            Opname::POP_EXCEPT => push(Op::PopExcept),
            Opname::CHECK_EXC_MATCH => push(Op::CheckExcMatch),
            Opname::RERAISE => push(Op::Reraise),
            Opname::BEFORE_WITH => push(Op::BeforeWith),
            Opname::WITH_EXCEPT_START => push(Op::WithExceptStart),
            Opname::YIELD_VALUE => push(Op::Yield),
            // `yield from x` / `await x`: GET_YIELD_FROM_ITER / GET_AWAITABLE, then
            // LOAD_CONST None, SEND, YIELD_VALUE, RESUME, JUMP_BACKWARD_NO_INTERRUPT.
            Opname::GET_YIELD_FROM_ITER | Opname::GET_AWAITABLE
                if names(5) == ["LOAD_CONST", "SEND", "YIELD_VALUE", "RESUME", "JUMP_BACKWARD_NO_INTERRUPT"] && is_none(&ins[at + 1]) =>
            {
                folded = 5;
                push(if i.opname == "GET_AWAITABLE" { Op::Await } else { Op::YieldFrom })
            }
            // The normal exit of a `with` block: `exit(None, None, None)`.
            Opname::LOAD_CONST
                if is_none(i)
                    && names(5) == ["LOAD_CONST", "LOAD_CONST", "PRECALL", "CALL", "POP_TOP"]
                    && is_none(&ins[at + 1])
                    && is_none(&ins[at + 2])
                    && ins[at + 3].oparg == Some(2)
                    && (at == 0 || ins[at - 1].id != Opname::PUSH_NULL) =>
            {
                folded = 5;
                push(Op::WithExit)
            }
            Opname::KW_NAMES => {
                kwnames = Some(idx());
                push(Op::Nop);
            }
            Opname::LOAD_CONST => push(Op::LoadConst(idx())),
            Opname::LOAD_FAST => push(Op::LoadFast(idx())),
            Opname::STORE_FAST => push(Op::StoreFast(idx())),
            Opname::DELETE_FAST => push(Op::DeleteFast(idx())),
            Opname::LOAD_DEREF => push(Op::LoadDeref(idx())),
            Opname::STORE_DEREF => push(Op::StoreDeref(idx())),
            Opname::DELETE_DEREF => push(Op::DeleteDeref(idx())),
            Opname::LOAD_CLOSURE => push(Op::LoadClosure(idx())),
            Opname::LOAD_GLOBAL => {
                if arg & 1 == 1 {
                    push(Op::PushNull);
                }
                push(Op::LoadGlobal(idx()));
            }
            Opname::STORE_GLOBAL => push(Op::StoreGlobal(idx())),
            Opname::DELETE_GLOBAL => push(Op::DeleteGlobal(idx())),
            Opname::LOAD_NAME => push(Op::LoadName(idx())),
            Opname::STORE_NAME => push(Op::StoreName(idx())),
            Opname::DELETE_NAME => push(Op::DeleteName(idx())),
            Opname::LOAD_ATTR => push(Op::LoadAttr(idx())),
            Opname::STORE_ATTR => push(Op::StoreAttr(idx())),
            Opname::DELETE_ATTR => push(Op::DeleteAttr(idx())),
            Opname::LOAD_METHOD => push(Op::LoadMethod(idx(), CallLayout::NullFirst)),
            Opname::PUSH_NULL => push(Op::PushNull),
            Opname::POP_TOP => push(Op::PopTop),
            Opname::COPY => push(Op::Copy(arg)),
            Opname::SWAP => push(Op::Swap(arg)),
            Opname::UNARY_NEGATIVE => push(Op::Unary(UnaryOp::Neg)),
            Opname::UNARY_POSITIVE => push(Op::Unary(UnaryOp::Pos)),
            Opname::UNARY_NOT => push(Op::Unary(UnaryOp::Not)),
            Opname::UNARY_INVERT => push(Op::Unary(UnaryOp::Invert)),
            Opname::BINARY_OP => {
                let table = depyf_bytecode::table_for(code.version).expect("decoded, so a table exists");
                let sym = table
                    .nb_ops
                    .get(arg as usize)
                    .ok_or_else(|| IrError::at(code, i, format!("unknown binary operator {arg}")))?;
                let op = BinOp::from_symbol(sym)
                    .ok_or_else(|| IrError::at(code, i, format!("unknown binary operator {sym}")))?;
                push(Op::Binary(op, sym.ends_with('=')));
            }
            Opname::COMPARE_OP => {
                let Argval::Compare(c) = i.argval else { unreachable!("decode resolves COMPARE_OP") };
                let table = depyf_bytecode::table_for(code.version).expect("decoded, so a table exists");
                let op = CmpOp::from_symbol(table.cmp_op[c as usize])
                    .ok_or_else(|| IrError::at(code, i, "unknown comparison"))?;
                push(Op::Compare(op));
            }
            Opname::IS_OP => push(Op::Compare(if arg == 0 { CmpOp::Is } else { CmpOp::IsNot })),
            Opname::CONTAINS_OP => push(Op::Compare(if arg == 0 { CmpOp::In } else { CmpOp::NotIn })),
            Opname::BINARY_SUBSCR => push(Op::BinarySubscr),
            Opname::STORE_SUBSCR => push(Op::StoreSubscr),
            Opname::DELETE_SUBSCR => push(Op::DeleteSubscr),
            Opname::BUILD_SLICE => push(Op::BuildSlice(arg)),
            Opname::BUILD_TUPLE => push(Op::BuildTuple(arg)),
            Opname::BUILD_LIST => push(Op::BuildList(arg)),
            Opname::BUILD_SET => push(Op::BuildSet(arg)),
            Opname::BUILD_MAP => push(Op::BuildMap(arg)),
            Opname::BUILD_CONST_KEY_MAP => push(Op::BuildConstKeyMap(arg)),
            Opname::LIST_EXTEND => push(Op::ListExtend(arg)),
            Opname::LIST_APPEND => push(Op::ListAppend(arg)),
            Opname::LIST_TO_TUPLE => push(Op::ListToTuple),
            Opname::UNPACK_SEQUENCE => push(Op::UnpackSequence(arg)),
            Opname::CALL => push(Op::Call { argc: arg, kwnames: kwnames.take(), layout: CallLayout::NullFirst }),
            Opname::CALL_FUNCTION_EX => push(Op::CallEx { has_kwargs: arg & 1 == 1, layout: CallLayout::NullFirst }),
            Opname::RETURN_VALUE => push(Op::Return),
            Opname::JUMP_FORWARD | Opname::JUMP_BACKWARD | Opname::JUMP_BACKWARD_NO_INTERRUPT => push(Op::Jump(target())),
            Opname::POP_JUMP_FORWARD_IF_FALSE | Opname::POP_JUMP_BACKWARD_IF_FALSE => {
                push(Op::JumpIf { when: false, target: target() })
            }
            Opname::POP_JUMP_FORWARD_IF_TRUE | Opname::POP_JUMP_BACKWARD_IF_TRUE => {
                push(Op::JumpIf { when: true, target: target() })
            }
            Opname::POP_JUMP_FORWARD_IF_NONE | Opname::POP_JUMP_BACKWARD_IF_NONE => {
                push(Op::JumpIfNone { when: true, target: target() })
            }
            Opname::POP_JUMP_FORWARD_IF_NOT_NONE | Opname::POP_JUMP_BACKWARD_IF_NOT_NONE => {
                push(Op::JumpIfNone { when: false, target: target() })
            }
            Opname::RAISE_VARARGS => push(Op::Raise(arg)),
            Opname::GET_ITER => push(Op::GetIter),
            Opname::MATCH_SEQUENCE => push(Op::MatchSequence),
            Opname::MATCH_MAPPING => push(Op::MatchMapping),
            Opname::MATCH_KEYS => push(Op::MatchKeys),
            Opname::MATCH_CLASS => push(Op::MatchClass(arg)),
            Opname::GET_LEN => push(Op::GetLen),
            Opname::FOR_ITER => push(Op::ForIter(target())),
            Opname::JUMP_IF_FALSE_OR_POP => push(Op::JumpIfOrPop { when: false, target: target() }),
            Opname::JUMP_IF_TRUE_OR_POP => push(Op::JumpIfOrPop { when: true, target: target() }),
            // Functions, f-strings, building, imports, classes, assert.
            Opname::MAKE_FUNCTION => push(Op::MakeFunction { flags: arg, qualname: false }),
            Opname::FORMAT_VALUE => push(Op::FormatValue { conversion: arg & 3, with_spec: arg & 4 != 0 }),
            Opname::BUILD_STRING => push(Op::BuildString(arg)),
            Opname::SET_ADD => push(Op::SetAdd(arg)),
            Opname::SET_UPDATE => push(Op::SetUpdate(arg)),
            Opname::DICT_UPDATE => push(Op::DictUpdate(arg, false)),
            Opname::DICT_MERGE => push(Op::DictUpdate(arg, true)),
            Opname::MAP_ADD => push(Op::MapAdd(arg)),
            Opname::UNPACK_EX => push(Op::UnpackEx(arg & 0xff, arg >> 8)),
            Opname::IMPORT_NAME => push(Op::ImportName(idx())),
            Opname::IMPORT_FROM => push(Op::ImportFrom(idx())),
            Opname::IMPORT_STAR => push(Op::ImportStar),
            Opname::LOAD_BUILD_CLASS => push(Op::LoadBuildClass),
            Opname::LOAD_ASSERTION_ERROR => push(Op::LoadAssertionError),
            Opname::SETUP_ANNOTATIONS => push(Op::SetupAnnotations),
            // `( -- value)` a free variable read in a class body (the class namespace
            // first): the compiler chooses it over LOAD_DEREF by context.
            Opname::LOAD_CLASSDEREF => push(Op::LoadDeref(idx())),
            _ => return Err(IrError::at(code, i, "not supported by the decompiler yet")),
        }
    }
    if let Some(k) = kwnames {
        if !matches!(code.co_consts.get(k), Some(Constant::Tuple(_))) {
            return Err(IrError {
                code_name: code.co_qualname.clone(),
                offset: 0,
                opname: "KW_NAMES".into(),
                version: code.version,
                message: "keyword names without a following CALL".into(),
            });
        }
    }
    Ok(out)
}
