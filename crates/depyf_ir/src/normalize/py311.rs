//! CPython 3.11 → [`Op`]. Semantics from CPython 3.11 `Python/ceval.c` and
//! `Lib/dis.py`; `co_code` is read de-specialized, so only base opcodes occur.

use depyf_bytecode::{Argval, CodeObject, Constant, Instruction};

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
            out.push(IrInstr { offset: i.offset, op: Op::Nop, line: i.line_number, opname: i.opname });
            continue;
        }
        let names = |k: usize| -> Vec<&str> { ins[at + 1..].iter().take(k).map(|x| x.opname).collect() };
        let is_none = |x: &Instruction| matches!(x.argval, Argval::Const(c) if matches!(code.co_consts.get(c), Some(Constant::None)));
        let arg = i.oparg.unwrap_or(0);
        let idx = || match i.argval {
            depyf_bytecode::Argval::Const(x)
            | depyf_bytecode::Argval::Name(x)
            | depyf_bytecode::Argval::Local(x) => x,
            _ => 0,
        };
        let target = || i.jump_target().unwrap_or(0);
        let mut push = |op: Op| out.push(IrInstr { offset: i.offset, op, line: i.line_number, opname: i.opname });
        if let Some((op, n)) = super::post311_async::op(code, ins, at).or_else(|| super::post311_star::op(code, ins, at)) {
            folded = n;
            push(op);
            continue;
        }
        match i.opname {
            "NOP" | "RESUME" | "PRECALL" | "CACHE" | "EXTENDED_ARG" => push(Op::Nop),
            "MAKE_CELL" | "COPY_FREE_VARS" => push(Op::FrameSetup),
            // A generator's frame set-up: `RETURN_GENERATOR` and the `POP_TOP` of its
            // result.
            "RETURN_GENERATOR" => {
                if names(1) == ["POP_TOP"] {
                    folded = 1;
                }
                push(Op::Nop)
            }
            "PUSH_EXC_INFO" => push(Op::PushExcInfo),
            "POP_EXCEPT" => push(Op::PopExcept),
            "CHECK_EXC_MATCH" => push(Op::CheckExcMatch),
            "RERAISE" => push(Op::Reraise),
            "BEFORE_WITH" => push(Op::BeforeWith),
            "WITH_EXCEPT_START" => push(Op::WithExceptStart),
            "YIELD_VALUE" => push(Op::Yield),
            // `yield from x` / `await x`: GET_YIELD_FROM_ITER / GET_AWAITABLE, then
            // LOAD_CONST None, SEND, YIELD_VALUE, RESUME, JUMP_BACKWARD_NO_INTERRUPT.
            "GET_YIELD_FROM_ITER" | "GET_AWAITABLE"
                if names(5) == ["LOAD_CONST", "SEND", "YIELD_VALUE", "RESUME", "JUMP_BACKWARD_NO_INTERRUPT"] && is_none(&ins[at + 1]) =>
            {
                folded = 5;
                push(if i.opname == "GET_AWAITABLE" { Op::Await } else { Op::YieldFrom })
            }
            // The normal exit of a `with` block: `exit(None, None, None)`.
            "LOAD_CONST"
                if is_none(i)
                    && names(5) == ["LOAD_CONST", "LOAD_CONST", "PRECALL", "CALL", "POP_TOP"]
                    && is_none(&ins[at + 1])
                    && is_none(&ins[at + 2])
                    && ins[at + 3].oparg == Some(2)
                    && (at == 0 || ins[at - 1].opname != "PUSH_NULL") =>
            {
                folded = 5;
                push(Op::WithExit)
            }
            "KW_NAMES" => {
                kwnames = Some(idx());
                push(Op::Nop);
            }
            "LOAD_CONST" => push(Op::LoadConst(idx())),
            "LOAD_FAST" => push(Op::LoadFast(idx())),
            "STORE_FAST" => push(Op::StoreFast(idx())),
            "DELETE_FAST" => push(Op::DeleteFast(idx())),
            "LOAD_DEREF" => push(Op::LoadDeref(idx())),
            "STORE_DEREF" => push(Op::StoreDeref(idx())),
            "DELETE_DEREF" => push(Op::DeleteDeref(idx())),
            "LOAD_CLOSURE" => push(Op::LoadClosure(idx())),
            "LOAD_GLOBAL" => {
                if arg & 1 == 1 {
                    push(Op::PushNull);
                }
                push(Op::LoadGlobal(idx()));
            }
            "STORE_GLOBAL" => push(Op::StoreGlobal(idx())),
            "DELETE_GLOBAL" => push(Op::DeleteGlobal(idx())),
            "LOAD_NAME" => push(Op::LoadName(idx())),
            "STORE_NAME" => push(Op::StoreName(idx())),
            "DELETE_NAME" => push(Op::DeleteName(idx())),
            "LOAD_ATTR" => push(Op::LoadAttr(idx())),
            "STORE_ATTR" => push(Op::StoreAttr(idx())),
            "DELETE_ATTR" => push(Op::DeleteAttr(idx())),
            "LOAD_METHOD" => push(Op::LoadMethod(idx(), CallLayout::NullFirst)),
            "PUSH_NULL" => push(Op::PushNull),
            "POP_TOP" => push(Op::PopTop),
            "COPY" => push(Op::Copy(arg)),
            "SWAP" => push(Op::Swap(arg)),
            "UNARY_NEGATIVE" => push(Op::Unary(UnaryOp::Neg)),
            "UNARY_POSITIVE" => push(Op::Unary(UnaryOp::Pos)),
            "UNARY_NOT" => push(Op::Unary(UnaryOp::Not)),
            "UNARY_INVERT" => push(Op::Unary(UnaryOp::Invert)),
            "BINARY_OP" => {
                let table = depyf_bytecode::table_for(code.version).expect("decoded, so a table exists");
                let sym = table
                    .nb_ops
                    .get(arg as usize)
                    .ok_or_else(|| IrError::at(code, i, format!("unknown binary operator {arg}")))?;
                let op = BinOp::from_symbol(sym)
                    .ok_or_else(|| IrError::at(code, i, format!("unknown binary operator {sym}")))?;
                push(Op::Binary(op, sym.ends_with('=')));
            }
            "COMPARE_OP" => {
                let Argval::Compare(c) = i.argval else { unreachable!("decode resolves COMPARE_OP") };
                let table = depyf_bytecode::table_for(code.version).expect("decoded, so a table exists");
                let op = CmpOp::from_symbol(table.cmp_op[c])
                    .ok_or_else(|| IrError::at(code, i, "unknown comparison"))?;
                push(Op::Compare(op));
            }
            "IS_OP" => push(Op::Compare(if arg == 0 { CmpOp::Is } else { CmpOp::IsNot })),
            "CONTAINS_OP" => push(Op::Compare(if arg == 0 { CmpOp::In } else { CmpOp::NotIn })),
            "BINARY_SUBSCR" => push(Op::BinarySubscr),
            "STORE_SUBSCR" => push(Op::StoreSubscr),
            "DELETE_SUBSCR" => push(Op::DeleteSubscr),
            "BUILD_SLICE" => push(Op::BuildSlice(arg)),
            "BUILD_TUPLE" => push(Op::BuildTuple(arg)),
            "BUILD_LIST" => push(Op::BuildList(arg)),
            "BUILD_SET" => push(Op::BuildSet(arg)),
            "BUILD_MAP" => push(Op::BuildMap(arg)),
            "BUILD_CONST_KEY_MAP" => push(Op::BuildConstKeyMap(arg)),
            "LIST_EXTEND" => push(Op::ListExtend(arg)),
            "LIST_APPEND" => push(Op::ListAppend(arg)),
            "LIST_TO_TUPLE" => push(Op::ListToTuple),
            "UNPACK_SEQUENCE" => push(Op::UnpackSequence(arg)),
            "CALL" => push(Op::Call { argc: arg, kwnames: kwnames.take(), layout: CallLayout::NullFirst }),
            "CALL_FUNCTION_EX" => push(Op::CallEx { has_kwargs: arg & 1 == 1, layout: CallLayout::NullFirst }),
            "RETURN_VALUE" => push(Op::Return),
            "JUMP_FORWARD" | "JUMP_BACKWARD" | "JUMP_BACKWARD_NO_INTERRUPT" => push(Op::Jump(target())),
            "POP_JUMP_FORWARD_IF_FALSE" | "POP_JUMP_BACKWARD_IF_FALSE" => {
                push(Op::JumpIf { when: false, target: target() })
            }
            "POP_JUMP_FORWARD_IF_TRUE" | "POP_JUMP_BACKWARD_IF_TRUE" => {
                push(Op::JumpIf { when: true, target: target() })
            }
            "POP_JUMP_FORWARD_IF_NONE" | "POP_JUMP_BACKWARD_IF_NONE" => {
                push(Op::JumpIfNone { when: true, target: target() })
            }
            "POP_JUMP_FORWARD_IF_NOT_NONE" | "POP_JUMP_BACKWARD_IF_NOT_NONE" => {
                push(Op::JumpIfNone { when: false, target: target() })
            }
            "RAISE_VARARGS" => push(Op::Raise(arg)),
            "GET_ITER" => push(Op::GetIter),
            "MATCH_SEQUENCE" => push(Op::MatchSequence),
            "MATCH_MAPPING" => push(Op::MatchMapping),
            "MATCH_KEYS" => push(Op::MatchKeys),
            "MATCH_CLASS" => push(Op::MatchClass(arg)),
            "GET_LEN" => push(Op::GetLen),
            "FOR_ITER" => push(Op::ForIter(target())),
            "JUMP_IF_FALSE_OR_POP" => push(Op::JumpIfOrPop { when: false, target: target() }),
            "JUMP_IF_TRUE_OR_POP" => push(Op::JumpIfOrPop { when: true, target: target() }),
            // Functions, f-strings, building, imports, classes, assert.
            "MAKE_FUNCTION" => push(Op::MakeFunction { flags: arg, qualname: false }),
            "FORMAT_VALUE" => push(Op::FormatValue { conversion: arg & 3, with_spec: arg & 4 != 0 }),
            "BUILD_STRING" => push(Op::BuildString(arg)),
            "SET_ADD" => push(Op::SetAdd(arg)),
            "SET_UPDATE" => push(Op::SetUpdate(arg)),
            "DICT_UPDATE" => push(Op::DictUpdate(arg, false)),
            "DICT_MERGE" => push(Op::DictUpdate(arg, true)),
            "MAP_ADD" => push(Op::MapAdd(arg)),
            "UNPACK_EX" => push(Op::UnpackEx(arg & 0xff, arg >> 8)),
            "IMPORT_NAME" => push(Op::ImportName(idx())),
            "IMPORT_FROM" => push(Op::ImportFrom(idx())),
            "IMPORT_STAR" => push(Op::ImportStar),
            "LOAD_BUILD_CLASS" => push(Op::LoadBuildClass),
            "LOAD_ASSERTION_ERROR" => push(Op::LoadAssertionError),
            "SETUP_ANNOTATIONS" => push(Op::SetupAnnotations),
            // `( -- value)` a free variable read in a class body (the class namespace
            // first): the compiler chooses it over LOAD_DEREF by context.
            "LOAD_CLASSDEREF" => push(Op::LoadDeref(idx())),
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
