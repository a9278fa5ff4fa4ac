//! Definitions: binds the function and class objects that recovery leaves as
//! [`Expr::Def`] values to `def`/`class` statements with their decorators, reads
//! comprehension and lambda bodies, cleans class bodies, and turns module/class
//! annotation stores into annotated assignments.
//!
//! Shapes read here (CPython 3.11 `Python/compile.c`; the same in 3.8-3.11 up to the
//! op normalization):
//! - `@d def f` is `d(<function f>)` stored into `f`; `class C(B)` is
//!   `__build_class__(<class body C>, 'C', B)` stored into `C`;
//! - a `<listcomp>`/`<setcomp>`/`<dictcomp>` code object builds an empty container,
//!   loops over its argument `.0` (the caller's `iter(iterable)`) and appends each
//!   element (`LIST_APPEND`/`SET_ADD`/`MAP_ADD`) under nested `for`s and `if`s;
//! - a class body starts by storing `__module__` and `__qualname__` and, when a method
//!   uses `super()`/`__class__`, ends by storing and returning the `__class__` cell;
//! - after `SETUP_ANNOTATIONS`, `x: T = v` stores `v` into `x` and then `T` into
//!   `__annotations__['x']`.
//!
//! Invariant established by [`bind`]: no marker (`Expr::Def`, the names of
//! [`BUILD_CLASS`] and friends, a comprehension's `.0`) is left in the body.

use depyf_bytecode::{CodeObject, Constant};
use depyf_cfg::{BlockId, Cfg};
use depyf_ir::{normalize, IrInstr, Op};
use depyf_source::{CompKind, Comprehension, Expr, FPart, FStringSyntax, Keyword, Stmt};

use crate::recover::negate;
use crate::{recover, structure, DecompileError, Options};

/// `LOAD_BUILD_CLASS`, until the class statement is recognized.
pub(crate) const BUILD_CLASS: &str = "<build_class>";
/// `LOAD_LOCALS` (3.12+ class bodies), read only by `LOAD_FROM_DICT_OR_*`.
pub(crate) const LOCALS: &str = "<locals>";
/// The statement that `SETUP_ANNOTATIONS` leaves, removed by [`bind`].
pub(crate) const SETUP_ANNOTATIONS: &str = "<setup_annotations>";

/// The expression a lambda's recovered body returns (`if c: return a` / `return b`
/// becomes `a if c else b`), if it is one.
pub(crate) fn lambda_body(body: &[Stmt]) -> Option<Expr> {
    match body {
        [] | [Stmt::Return(None)] => Some(Expr::Const(Constant::None)),
        [Stmt::Return(Some(e))] => Some(e.clone()),
        [Stmt::If(c, a, b)] if !b.is_empty() => Some(Expr::IfExp(Box::new(c.clone()), Box::new(lambda_body(a)?), Box::new(lambda_body(b)?))),
        [Stmt::If(c, a, b), rest @ ..] if b.is_empty() && !rest.is_empty() => {
            Some(Expr::IfExp(Box::new(c.clone()), Box::new(lambda_body(a)?), Box::new(lambda_body(rest)?)))
        }
        _ => None,
    }
}

/// The statements of a class body without what the compiler adds: the `__module__`
/// and `__qualname__` stores, the `__classcell__` store and return, 3.13's
/// `__firstlineno__`/`__static_attributes__`; `__doc__ = '...'` first becomes the
/// docstring.
pub(crate) fn class_body(_code: &CodeObject, mut body: Vec<Stmt>) -> Vec<Stmt> {
    let is_store = |s: &Stmt, name: &str| matches!(s, Stmt::Assign(t, _) if matches!(t.as_slice(), [Expr::Name(n)] if n == name));
    for name in ["__module__", "__qualname__", "__firstlineno__"] {
        if let Some(i) = body.iter().take(4).position(|s| is_store(s, name)) {
            body.remove(i);
        }
    }
    if let Some(i) = body.iter().position(|s| is_store(s, "__static_attributes__")) {
        body.remove(i);
    }
    // `return (__classcell__ := <cell of __class__>)`: the compiler hands the class
    // cell to type.__new__ (the COPY + STORE reads as an assignment expression).
    if let Some(Stmt::Return(Some(Expr::NamedExpr(n, v)))) = body.last() {
        if n == "__classcell__" && recover::cell_name(v) == Some("__class__") {
            body.pop();
        }
    }
    // `__classcell__ = <cell of __class__>; return <that cell>`, the cell possibly
    // in a temporary first.
    // (Only a `return` is copied: the last statement may be a whole method.)
    if let Some(Stmt::Return(r)) = body.last() {
        match r.clone() {
            None | Some(Expr::Const(Constant::None)) => {
                body.pop();
            }
            Some(r) => {
                let n = body.len();
                let stored = n >= 2 && matches!(&body[n - 2], Stmt::Assign(t, v) if is_store(&body[n - 2], "__classcell__") && t.len() == 1 && *v == r);
                if stored {
                    body.truncate(n - 2);
                    let is_cell = |e: &Expr| recover::cell_name(e) == Some("__class__");
                    if let Expr::Name(t) = &r {
                        if t.starts_with("__temp_") && matches!(body.last(), Some(Stmt::Assign(ts, v)) if ts.len() == 1 && ts[0].is_name(t) && is_cell(v)) {
                            body.pop();
                        }
                    }
                }
            }
        }
    }
    class_docstring(&mut body);
    body
}

/// `__doc__ = '...'` as the first statement of a class body (after `global` and
/// `nonlocal`) becomes the docstring, moved before those declarations: they are
/// statements too, and a string after them would be a plain expression statement
/// that no longer sets `__doc__` (CPython `Python/compile.c`: only a body's first
/// statement is its docstring). Not when a declaration names `__doc__` itself (the
/// store is then not the class namespace's).
fn class_docstring(body: &mut [Stmt]) {
    if let Some(i) = body.iter().position(|s| !matches!(s, Stmt::Global(_) | Stmt::Nonlocal(_))) {
        let declared = body[..i].iter().any(|s| matches!(s, Stmt::Global(ns) | Stmt::Nonlocal(ns) if ns.iter().any(|n| n == "__doc__")));
        if declared {
            return;
        }
        if let Stmt::Assign(t, v @ Expr::Const(Constant::Str(_))) = &body[i] {
            if matches!(t.as_slice(), [Expr::Name(n)] if n == "__doc__") {
                body[i] = Stmt::Expr(v.clone());
                body[..=i].rotate_right(1);
            }
        }
    }
}

/// What one comprehension iteration adds.
enum Element {
    One(Expr),
    Pair(Expr, Expr),
}

/// Adds the test `c` to a comprehension's `ifs`, joining it to the test before it
/// when the two are the links of one chained comparison whose middle operand
/// recovery named (`a < (t := m)` then `t < c`: `a < m < c`; see
/// `recover::bool_op`): CPython compiles each link of `if a < m < c` as a test that
/// goes back to the loop, as it does two `if`s.
///
/// `own_line`: the test's failure goes to the loop's shared next step, not to a
/// `continue` of its own (see [`ifs_on_new_line`]); the condition is then printed on
/// a line of its own.
fn push_if(gen: &mut Comprehension, c: Expr, own_line: bool) {
    let ifs = &mut gen.ifs;
    if let (Some(Expr::Compare(_, ops)), Expr::Compare(left, _)) = (ifs.last(), &c) {
        if matches!(ops.last(), Some((_, Expr::NamedExpr(t, _))) if t.starts_with("__temp_") && left.is_name(t)) {
            let prev = ifs.pop().expect("checked");
            ifs.push(crate::recover::bool_op(true, prev, c));
            return;
        }
    }
    ifs.push(c);
    gen.ifs_on_new_line.resize(ifs.len() - 1, false);
    gen.ifs_on_new_line.push(own_line);
}

/// The test `x` of a comprehension arm that is only `if x: continue` (the element is
/// skipped when `x` holds).
fn skip_test(arm: &[Stmt]) -> Option<Expr> {
    match arm {
        [Stmt::If(x, body, orelse)] if orelse.is_empty() && matches!(body.as_slice(), [Stmt::Continue]) => Some(x.clone()),
        _ => None,
    }
}

/// The temporary (`__temp_*`) that a comprehension arm stores and the value it
/// stores there: an arm that is one assignment, or an `if` whose two arms store the
/// same temporary (read as `a if c else b`).
fn temp_value(arm: &[Stmt]) -> Option<(String, Expr)> {
    match arm {
        [Stmt::Assign(targets, e)] => match targets.as_slice() {
            [Expr::Name(n)] if n.starts_with("__temp_") => Some((n.to_string(), e.clone())),
            _ => None,
        },
        [Stmt::If(c, a, b)] => {
            let ((na, ea), (nb, eb)) = (temp_value(a)?, temp_value(b)?);
            (na == nb).then(|| (na, Expr::IfExp(Box::new(c.clone()), Box::new(ea), Box::new(eb))))
        }
        _ => None,
    }
}

/// Reads the loop nest of a comprehension body: `for`s, `if`s (and `if not c:
/// continue`), ending in the element added to the result `t`.
/// `lines`: the comprehension's tests were not all on the element's line
/// ([`ifs_on_new_line`]); those that end its body (not by a `continue`) are marked to
/// be printed on lines of their own.
fn clauses(stmts: &[Stmt], gens: &mut Vec<Comprehension>, t: &str, kind: &str, lines: bool) -> Option<Element> {
    let mut stmts = stmts;
    while let [rest @ .., Stmt::Continue] = stmts {
        stmts = rest;
    }
    match stmts {
        [Stmt::For(target, iter, body, orelse)] if orelse.is_empty() => {
            gens.push(Comprehension { target: target.clone(), iter: iter.clone(), ifs: Vec::new(), ifs_on_new_line: Vec::new() });
            clauses(body, gens, t, kind, lines)
        }
        [Stmt::If(c, body, orelse)] if orelse.is_empty() => {
            push_if(gens.last_mut()?, c.clone(), lines);
            clauses(body, gens, t, kind, lines)
        }
        [Stmt::If(c, body, orelse), rest @ ..] if orelse.is_empty() && matches!(body.as_slice(), [Stmt::Continue]) => {
            push_if(gens.last_mut()?, negate(c.clone()), false);
            clauses(rest, gens, t, kind, lines)
        }
        // A condition `if (a if c else b)`: CPython compiles the test of a conditional
        // expression as `c` choosing which operand's test jumps (3.8-3.15
        // `Python/compile.c`, `compiler_jump_if`, the `IfExp_kind` case), which
        // structures as `if c: if not a: continue` / `elif not b: continue`.
        [Stmt::If(c, a, b), rest @ ..] if skip_test(a).is_some() && skip_test(b).is_some() => {
            let (a, b) = (skip_test(a)?, skip_test(b)?);
            push_if(gens.last_mut()?, Expr::IfExp(Box::new(c.clone()), Box::new(negate(a)), Box::new(negate(b))), false);
            clauses(rest, gens, t, kind, lines)
        }
        // An element `a if c else b` whose test has several blocks (`c` an `and`/`or`):
        // recovery keeps the value in a temporary that both arms store; an arm may be
        // such a conditional expression itself (`a if c else b if d else e`).
        [Stmt::If(c, a, b), last] => {
            let (Some((na, ea)), Some((nb, eb))) = (temp_value(a), temp_value(b)) else { return None };
            if na != nb {
                return None;
            }
            match clauses(std::slice::from_ref(last), gens, t, kind, lines)? {
                Element::One(Expr::Name(n)) if n == na => Some(Element::One(Expr::IfExp(Box::new(c.clone()), Box::new(ea), Box::new(eb)))),
                _ => None,
            }
        }
        // What a generator expression yields (its YIELD_VALUE read as a store to `.0`).
        [Stmt::Assign(targets, e)] if kind == "<genexpr>" && matches!(targets.as_slice(), [Expr::Name(n)] if n == ".0") => Some(Element::One(e.clone())),
        [Stmt::Expr(Expr::Call(f, args, kws))] if kws.is_empty() && args.len() == 1 => {
            let Expr::Attribute(obj, method) = &**f else { return None };
            let want = if kind == "<listcomp>" { "append" } else { "add" };
            (obj.is_name(t) && method == want && kind != "<dictcomp>").then(|| Element::One(args[0].clone()))
        }
        [Stmt::Assign(targets, v)] if kind == "<dictcomp>" => match targets.as_slice() {
            [Expr::Subscript(obj, k)] if obj.is_name(t) => Some(Element::Pair((**k).clone(), v.clone())),
            _ => None,
        },
        _ => None,
    }
}

/// Recovers a `<listcomp>`/`<setcomp>`/`<dictcomp>` code object as the comprehension
/// it computes; its first `for` iterates over the placeholder `.0`, which the caller
/// replaces by the iterable it passes.
pub(crate) fn comprehension(code: &CodeObject, options: &Options) -> Result<Expr, DecompileError> {
    let err = |m: &str| DecompileError::new(code, 0, "", m);
    let generator;
    let code = if code.co_name == "<genexpr>" {
        generator = genexpr_as_loop(code)?;
        &generator
    } else {
        code
    };
    let (mut ir, inlined, _) = crate::inline_comp::outline(code, normalize(code)?, options)?;
    // `.0` is the iterator the caller made; reading it as `GET_ITER` of `.0` lets the
    // loop recovery see an ordinary `for`.
    let loads: Vec<usize> = ir.iter().enumerate().filter(|(_, i)| i.op == Op::LoadFast(0)).map(|(k, _)| k).collect();
    if code.co_localsplusnames.first().map(|n| &**n) != Some(".0") || loads.len() != 1 || code.co_argcount != 1 {
        return Err(err("a comprehension without its `.0` argument read once"));
    }
    // An `async for` over `.0` (the caller made it with `GET_AITER`) steps it with
    // `GET_ANEXT`: the first loop step after the load says which.
    let first_step = ir[loads[0]..].iter().find(|i| matches!(i.op, Op::ForIter(_)));
    let is_async = first_step.is_some_and(|i| i.opname == "GET_ANEXT");
    let mut get_iter = ir[loads[0]].clone();
    get_iter.op = if is_async { Op::GetAIter } else { Op::GetIter };
    ir.insert(loads[0] + 1, get_iter);
    comprehension_of(code, &ir, code.co_name.as_str(), options, &inlined)
}

/// Recovers the comprehension that `ir` computes, a body in the shape of a
/// `<listcomp>`/`<setcomp>`/`<dictcomp>`/`<genexpr>` code object (`kind`) whose first
/// loop iterates `GET_ITER` of the local `.0`: the separate code objects before 3.12,
/// and (from `inline_comp`) the inlined comprehensions of 3.12+ (PEP 709), there with
/// `.0` a local added to a copy of the enclosing code object. `inlined`: the
/// expressions of the [`Op::InlinedComp`] ops in `ir`.
///
/// Errors: a body of another shape, or one whose result leaks into its element.
pub(crate) fn comprehension_of(code: &CodeObject, ir: &[IrInstr], kind: &str, options: &Options, inlined: &[Expr]) -> Result<Expr, DecompileError> {
    let err = |m: &str| DecompileError::new(code, 0, "", m);
    let is_dot0 = |e: &Expr| e.is_name(".0") || e.async_inner().is_some_and(|x| x.is_name(".0"));
    let cfg = Cfg::build(ir).map_err(|e| err(&e.to_string()))?;
    let failures = std::cell::RefCell::default();
    let naming = recover::Naming { const_prefix: &options.const_prefix, stub_failures: false, failures: &failures, class_annotate: false, inlined, iter_temps: false };
    let on_new_line = ifs_on_new_line(code, ir);
    let at = |m: &str| DecompileError::new(code, 0, "", m);
    let recover = || recover::recover(code, ir, &cfg, &naming);
    let (_, body) = structure::recover_and_structure(&cfg, ir, code, true, recover, |st| st.region(BlockId(0), None, &at))?;
    let body = body?;
    let shape = || err("a comprehension body of an unknown shape");
    if kind == "<genexpr>" {
        let (Some(Stmt::For(target, iter, loop_body, orelse)), None | Some(Stmt::Return(None | Some(Expr::Const(Constant::None))))) = (body.first(), body.get(1)) else {
            return Err(shape());
        };
        if body.len() > 2 || !is_dot0(iter) || !orelse.is_empty() {
            return Err(shape());
        }
        let mut gens = vec![Comprehension { target: target.clone(), iter: iter.clone(), ifs: Vec::new(), ifs_on_new_line: Vec::new() }];
        let Some(Element::One(e)) = clauses(loop_body, &mut gens, "", kind, on_new_line) else { return Err(shape()) };
        return Ok(Expr::Comp(CompKind::Generator, Box::new(e), gens));
    }
    let [Stmt::Assign(init, empty), Stmt::For(target, iter, loop_body, orelse), Stmt::Return(Some(Expr::Name(ret)))] = body.as_slice() else {
        return Err(shape());
    };
    let [Expr::Name(t)] = init.as_slice() else { return Err(shape()) };
    let empty_ok = match kind {
        "<listcomp>" => *empty == Expr::List(vec![]),
        "<setcomp>" => *empty == Expr::Set(vec![]),
        _ => *empty == Expr::Dict(vec![]),
    };
    if !empty_ok || ret != t || !is_dot0(iter) || !orelse.is_empty() {
        return Err(shape());
    }
    let mut gens = vec![Comprehension { target: target.clone(), iter: iter.clone(), ifs: Vec::new(), ifs_on_new_line: Vec::new() }];
    let elt = clauses(loop_body, &mut gens, t, kind, on_new_line).ok_or_else(shape)?;
    // The result must not leak into the element or the conditions.
    let comp = match elt {
        Element::One(e) => Expr::Comp(if kind == "<listcomp>" { CompKind::List } else { CompKind::Set }, Box::new(e), gens),
        Element::Pair(k, v) => Expr::DictComp(Box::new(k), Box::new(v), gens),
    };
    let mut leaks = false;
    comp.walk(&mut |e| leaks |= e.is_name(t));
    if leaks {
        return Err(shape());
    }
    Ok(comp)
}

/// Whether the conditions of the comprehension that `ir` computes (a body as
/// [`comprehension_of`] takes it) were on other lines than its element, CPython
/// 3.10+: a test that fails jumps to the loop's next step. The compiler threads
/// such a jump to the `JUMP_BACKWARD`/`JUMP_ABSOLUTE` it lands on only when the two
/// carry the same line (3.12 then writes a conditional jump backward as the inverse
/// test over a `JUMP_BACKWARD`), and the jump back carries the element's line
/// (CPython 3.10/3.11 `Python/compile.c`, `optimize_basic_block`; 3.12
/// `Python/flowgraph.c`, `jump_thread`, and `Python/compile.c`,
/// `compiler_sync_comprehension_generator`, `elt_loc`). So a conditional jump whose
/// target is an unconditional backward jump means another line. 3.13+ no longer
/// shows it (the check finds no such jump); before 3.10: false.
fn ifs_on_new_line(code: &CodeObject, ir: &[IrInstr]) -> bool {
    if (code.version.major, code.version.minor) < (3, 10) {
        return false;
    }
    let jumps_back = |target: u32| ir.iter().find(|i| i.offset == target).is_some_and(|i| matches!(i.op, Op::Jump(t) if t < i.offset));
    ir.iter().any(|i| match i.op {
        Op::JumpIf { target, .. } | Op::JumpIfNone { target, .. } => jumps_back(target),
        _ => false,
    })
}

/// A `<genexpr>` code object with its generator machinery turned into NOPs, so that
/// it reads as a loop that stores each element into `.0` (a store nothing else
/// makes): the `RETURN_GENERATOR`/`POP_TOP` prologue (3.11) or `GEN_START` (3.10)
/// become NOPs, `YIELD_VALUE` becomes `STORE_FAST .0` and the `POP_TOP` of the sent
/// value after it a NOP.
/// Generator expressions with exception handling of their own are refused (the
/// `StopIteration` guard that 3.12+ gives every generator is not theirs: the IR layer
/// leaves it out of the protected ranges).
fn genexpr_as_loop(code: &CodeObject) -> Result<CodeObject, DecompileError> {
    let err = |m: &str| DecompileError::new(code, 0, "", m);
    if depyf_ir::has_protected_ranges(code)? {
        return Err(err("generator expressions with an exception table are not supported yet"));
    }
    let table = depyf_bytecode::table_for(code.version).ok_or_else(|| err("no opcode table"))?;
    let nop = table.opcode("NOP").ok_or_else(|| err("no NOP opcode"))?;
    let store_fast = table.opcode("STORE_FAST").ok_or_else(|| err("no STORE_FAST opcode"))?;
    let ins = depyf_bytecode::decode(code).map_err(|e| err(&e.to_string()))?;
    let mut out = code.clone();
    let mut yields = 0;
    for (k, i) in ins.iter().enumerate() {
        let kill = match i.opname {
            "GEN_START" => true,
            "RETURN_GENERATOR" => {
                let Some(next) = ins.get(k + 1).filter(|n| n.opname == "POP_TOP") else {
                    return Err(err("RETURN_GENERATOR without its POP_TOP"));
                };
                let at = next.offset as usize;
                out.co_code[at] = nop;
                out.co_code[at + 1] = 0;
                true
            }
            // The yield of an `await` loop (`SEND; YIELD_VALUE`, in an async generator
            // expression) stays: the normalizer folds the loop into one op.
            "YIELD_VALUE" if k > 0 && ins[k - 1].opname == "SEND" => false,
            // An async generator wraps what it yields (3.11 `ASYNC_GEN_WRAP`, 3.12+
            // `CALL_INTRINSIC_1 INTRINSIC_ASYNC_GEN_WRAP`): the element is the value.
            "ASYNC_GEN_WRAP" => true,
            "CALL_INTRINSIC_1" if table.intrinsic1.get(i.oparg.unwrap_or(0) as usize).copied() == Some("INTRINSIC_ASYNC_GEN_WRAP") => true,
            "YIELD_VALUE" => {
                yields += 1;
                let Some(pop) = ins[k + 1..].iter().find(|n| n.opname != "RESUME").filter(|n| n.opname == "POP_TOP") else {
                    return Err(err("a yield whose value is used"));
                };
                let at = pop.offset as usize;
                out.co_code[at] = nop;
                out.co_code[at + 1] = 0;
                let at = i.offset as usize;
                if i.offset != i.start_offset {
                    return Err(err("a generator op with EXTENDED_ARG"));
                }
                out.co_code[at] = store_fast;
                out.co_code[at + 1] = 0;
                false
            }
            // The step of an `async for` before 3.11 (`GET_ANEXT; LOAD_CONST None;
            // YIELD_FROM`) stays: the normalizer folds the loop head into one op.
            "YIELD_FROM" if k >= 2 && ins[k - 2].opname == "GET_ANEXT" => false,
            // An `await` in an async generator expression before 3.11 (`GET_AWAITABLE;
            // LOAD_CONST None; YIELD_FROM`) stays: the normalizer folds it into one op.
            "YIELD_FROM" if k >= 2 && ins[k - 2].opname == "GET_AWAITABLE" => false,
            "YIELD_FROM" => return Err(err("a generator expression with await or yield from")),
            _ => false,
        };
        if kill {
            if i.offset != i.start_offset {
                return Err(err("a generator op with EXTENDED_ARG"));
            }
            let at = i.offset as usize;
            out.co_code[at] = nop;
            out.co_code[at + 1] = 0;
        }
    }
    if yields != 1 {
        return Err(err("a generator expression that does not yield once"));
    }
    out.co_flags &= !(depyf_bytecode::co_flags::GENERATOR | depyf_bytecode::co_flags::ASYNC_GENERATOR);
    Ok(out)
}

/// `def`/`class` (with decorators) when `value` stored into `name` is a function or
/// class object made right there. The plain shapes ([`is_definition`]) are moved out
/// of `value` (a nested definition holds its whole body: no deep clone).
fn as_definition(value: &mut Expr, name: &str) -> Option<Stmt> {
    if !is_definition(value, name) {
        return as_definition_ref(value, name);
    }
    let mut decorators = Vec::new();
    let mut cur = std::mem::replace(value, Expr::Const(Constant::None));
    loop {
        match cur {
            Expr::Def(s) => {
                let def = std::sync::Arc::unwrap_or_clone(s);
                return Some(if decorators.is_empty() { def } else { Stmt::Decorated(decorators, Box::new(def)) });
            }
            Expr::Call(f, args, kws) if f.is_name(crate::definitions::BUILD_CLASS) => {
                let mut args = args.into_iter();
                let (Some(Expr::Def(body)), Some(Expr::Const(Constant::Str(n)))) = (args.next(), args.next()) else { unreachable!("checked by is_definition") };
                let Stmt::ClassDef(_, _, _, body, type_params) = std::sync::Arc::unwrap_or_clone(body) else { unreachable!("checked by is_definition") };
                let def = Stmt::ClassDef(String::from(&*n), args.collect(), kws, body, type_params);
                return Some(if decorators.is_empty() { def } else { Stmt::Decorated(decorators, Box::new(def)) });
            }
            Expr::Call(d, args, _) => {
                decorators.push(*d);
                cur = args.into_iter().next().expect("checked by is_definition");
            }
            _ => unreachable!("checked by is_definition"),
        }
    }
}

/// Whether a `def` or `class` named `n` binds `name`: the same, or in a class body
/// `__f` stored as `_Class__f` (private-name mangling, CPython `_Py_Mangle`).
fn stored_as(n: &str, name: &str) -> bool {
    let mangled = n.starts_with("__") && !n.ends_with("__") && name.starts_with('_') && name.ends_with(n) && name.len() > n.len() + 1;
    n == name || mangled
}

/// Whether `value` is a plain definition named `name` for [`as_definition`] to move:
/// a function or class made right there, under decorators that are not a generic
/// `def`'s parameters function.
fn is_definition(value: &Expr, name: &str) -> bool {
    let mut cur = value;
    loop {
        match cur {
            Expr::Def(s) => {
                let Stmt::FunctionDef(n, ..) = &**s else { return false };
                return stored_as(n, name);
            }
            Expr::Call(f, args, kws) if f.is_name(crate::definitions::BUILD_CLASS) => {
                let [Expr::Def(body), Expr::Const(Constant::Str(n)), bases @ ..] = args.as_slice() else { return false };
                let Stmt::ClassDef(..) = &**body else { return false };
                return stored_as(n, name) && !bases.iter().chain(kws.iter().map(|k| &k.value)).any(|e| matches!(e, Expr::Def(_)));
            }
            Expr::Call(g, args, kws) if args.len() == 1 && kws.is_empty() => {
                if matches!(&**g, Expr::Call(m, ..) if m.is_name(recover::markers::GENERIC)) {
                    return false;
                }
                cur = &args[0];
            }
            _ => return false,
        }
    }
}

/// [`as_definition`] of the shapes that [`is_definition`] leaves out (generic
/// `def`s, PEP 695), copying what it keeps.
fn as_definition_ref(value: &Expr, name: &str) -> Option<Stmt> {
    let mut decorators = Vec::new();
    let mut cur = value;
    loop {
        match cur {
            Expr::Def(s) => {
                let Stmt::FunctionDef(n, ..) = &**s else { return None };
                if !stored_as(n, name) {
                    return None;
                }
                let def = (**s).clone();
                return Some(if decorators.is_empty() { def } else { Stmt::Decorated(decorators, Box::new(def)) });
            }
            Expr::Call(f, args, kws) if f.is_name(crate::definitions::BUILD_CLASS) => {
                let [Expr::Def(body), Expr::Const(Constant::Str(n)), bases @ ..] = args.as_slice() else { return None };
                let Stmt::ClassDef(_, _, _, body, type_params) = &**body else { return None };
                if !stored_as(n, name) || bases.iter().chain(kws.iter().map(|k| &k.value)).any(|e| matches!(e, Expr::Def(_))) {
                    return None;
                }
                let def = Stmt::ClassDef(String::from(&**n), bases.to_vec(), kws.clone(), body.clone(), type_params.clone());
                return Some(if decorators.is_empty() { def } else { Stmt::Decorated(decorators, Box::new(def)) });
            }
            // A generic `def` (PEP 695): its parameters function, called at once with
            // the default values.
            Expr::Call(g, args, kws) if kws.is_empty() => match &**g {
                // A generic class: its parameters function, called at once.
                Expr::Call(m, a, k) if m.is_name(recover::markers::GENERIC) && k.is_empty() && args.is_empty() && matches!(a.as_slice(), [Expr::Def(d)] if matches!(&**d, Stmt::ClassDef(..))) => {
                    let Expr::Def(d) = &a[0] else { return None };
                    let Stmt::ClassDef(n, ..) = &**d else { return None };
                    if !stored_as(n, name) {
                        return None;
                    }
                    let def = (**d).clone();
                    return Some(if decorators.is_empty() { def } else { Stmt::Decorated(decorators, Box::new(def)) });
                }
                Expr::Call(m, a, k) if m.is_name(recover::markers::GENERIC) && k.is_empty() && matches!(a.as_slice(), [Expr::Def(_)]) => {
                    let Expr::Def(d) = &a[0] else { return None };
                    let Stmt::FunctionDef(n, fa, b) = &**d else { return None };
                    let fa = generic_defaults(fa, args)?;
                    let def = Stmt::FunctionDef(n.clone(), Box::new(fa), b.clone());
                    if !stored_as(n, name) {
                        return None;
                    }
                    return Some(if decorators.is_empty() { def } else { Stmt::Decorated(decorators, Box::new(def)) });
                }
                _ if args.len() == 1 => {
                    decorators.push((**g).clone());
                    cur = &args[0];
                }
                _ => return None,
            },
            _ => return None,
        }
    }
}

/// An ASCII identifier: a dict key written back as a keyword argument (`f(**{'a': x})`
/// as `f(a=x)`) must be one, since the parser normalizes other identifiers (NFKC)
/// and the key could change.
fn is_ascii_identifier(s: &str) -> bool {
    s.is_ascii() && crate::is_identifier(s)
}

/// Rewrites of expressions that building ops leave in a longer form than the source:
/// `f(**{'a': x, **m})` → `f(a=x, **m)` (CALL_FUNCTION_EX with a built dict), and
/// `[*(1, 2, 3)]` → `[1, 2, 3]` (a list of three or more constants is built by
/// extending an empty list with a constant tuple).
fn tidy(e: &mut Expr) {
    match e {
        Expr::Call(_, args, kws) if kws.len() == 1 && kws[0].name.is_none() => {
            // `f(1, **m)` passes its positional arguments as a constant tuple.
            if let [Expr::Starred(inner)] = args.as_slice() {
                if let Expr::Const(Constant::Tuple(cs)) = &**inner {
                    *args = cs.iter().cloned().map(Expr::Const).collect();
                }
            }
            let Expr::Dict(items) = &kws[0].value else { return };
            if items.is_empty() {
                return;
            }
            let mut seen = Vec::new();
            let ok = items.iter().all(|(k, _)| match k {
                None => true,
                Some(Expr::Const(Constant::Str(s))) if is_ascii_identifier(s) && !seen.contains(s) => {
                    seen.push(s.clone());
                    true
                }
                _ => false,
            });
            if !ok {
                return;
            }
            let Expr::Dict(items) = std::mem::replace(&mut kws[0].value, Expr::Dict(vec![])) else { unreachable!("matched above") };
            *kws = items
                .into_iter()
                .map(|(k, value)| Keyword {
                    name: k.map(|k| match k {
                        Expr::Const(Constant::Str(s)) => String::from(&*s),
                        _ => unreachable!("checked above"),
                    }),
                    value,
                })
                .collect();
        }
        Expr::Dict(items) => {
            // `{**m, 'k': v}` builds `{'k': v}` and merges it, as `{**m, **{'k': v}}`
            // does; the first form is what people write.
            let mut out = Vec::with_capacity(items.len());
            for (i, (k, v)) in std::mem::take(items).into_iter().enumerate() {
                match (k, v) {
                    (None, Expr::Dict(inner)) if i > 0 && !inner.is_empty() && inner.iter().all(|(k, _)| k.is_some()) => out.extend(inner),
                    (k, v) => out.push((k, v)),
                }
            }
            *items = out;
        }
        Expr::List(items) if items.len() == 1 => {
            if let Expr::Starred(inner) = &items[0] {
                if let Expr::Const(Constant::Tuple(cs)) = &**inner {
                    if cs.len() >= 3 {
                        *items = cs.iter().cloned().map(Expr::Const).collect();
                    }
                }
            }
        }
        _ => {}
    }
}

fn stmt_exprs_mut(s: &mut Stmt, f: &mut dyn FnMut(&mut Expr)) {
    let body = |b: &mut Vec<Stmt>, f: &mut dyn FnMut(&mut Expr)| b.iter_mut().for_each(|s| stmt_exprs_mut(s, f));
    match s {
        Stmt::Expr(e) | Stmt::Return(Some(e)) => e.walk_mut(f),
        Stmt::Assign(ts, v) => {
            ts.iter_mut().for_each(|t| t.walk_mut(f));
            v.walk_mut(f);
        }
        Stmt::AugAssign(t, _, v) => {
            t.walk_mut(f);
            v.walk_mut(f);
        }
        Stmt::Delete(ts) => ts.iter_mut().for_each(|t| t.walk_mut(f)),
        Stmt::Raise(a, b) => {
            for e in [a, b].into_iter().flatten() {
                e.walk_mut(f);
            }
        }
        Stmt::If(c, a, b) | Stmt::While(c, a, b) => {
            c.walk_mut(f);
            body(a, f);
            body(b, f);
        }
        Stmt::For(t, it, a, b) => {
            t.walk_mut(f);
            it.walk_mut(f);
            body(a, f);
            body(b, f);
        }
        Stmt::Try(b, hs, e, fin) => {
            body(b, f);
            for h in hs {
                if let Some(t) = &mut h.typ {
                    t.walk_mut(f);
                }
                body(&mut h.body, f);
            }
            body(e, f);
            body(fin, f);
        }
        Stmt::With(items, b) => {
            for (e, t) in items {
                e.walk_mut(f);
                if let Some(t) = t {
                    t.walk_mut(f);
                }
            }
            body(b, f);
        }
        // Bodies of nested definitions were tidied when they were recovered.
        Stmt::FunctionDef(_, args, _) => {
            args.defaults.iter_mut().for_each(|e| e.walk_mut(f));
            args.kw_defaults.iter_mut().for_each(|(_, e)| e.walk_mut(f));
            args.annotations.iter_mut().for_each(|(_, e)| e.walk_mut(f));
            if let Some(r) = &mut args.returns {
                r.walk_mut(f);
            }
        }
        Stmt::ClassDef(_, bases, kws, ..) => {
            bases.iter_mut().for_each(|e| e.walk_mut(f));
            kws.iter_mut().for_each(|k| k.value.walk_mut(f));
        }
        Stmt::Decorated(ds, s) => {
            ds.iter_mut().for_each(|e| e.walk_mut(f));
            stmt_exprs_mut(s, f);
        }
        Stmt::Assert(t, m) => {
            t.walk_mut(f);
            if let Some(m) = m {
                m.walk_mut(f);
            }
        }
        Stmt::TypeAlias(_, _, v) => v.walk_mut(f),
        Stmt::Match(subject, cases) => {
            subject.walk_mut(f);
            for c in cases {
                if let Some(g) = &mut c.guard {
                    g.walk_mut(f);
                }
                body(&mut c.body, f);
            }
        }
        Stmt::AnnAssign(t, a, v) => {
            t.walk_mut(f);
            a.walk_mut(f);
            if let Some(v) = v {
                v.walk_mut(f);
            }
        }
        Stmt::Return(None) | Stmt::Pass | Stmt::Break | Stmt::Continue | Stmt::Import(..) | Stmt::ImportFrom(..) | Stmt::Lazy(_) | Stmt::Global(_) | Stmt::Nonlocal(_) => {}
    }
}

/// A generic `def` (PEP 695) whose parts recovery named first (`__temp_0__ = (n,)`,
/// `__temp_1__ = __generic__(<def f>)`, `f = __temp_1__(__temp_0__)`: the values wait
/// on the stack across `SWAP`s): the temporaries right before `body[i]` that it uses
/// once, and nothing else uses, are put back in place when that gives a definition.
/// Returns the definition and how many statements before `i` it took.
fn generic_def_through_temps(body: &[Stmt], i: usize) -> Option<(Stmt, usize)> {
    let Stmt::Assign(targets, v) = &body[i] else { return None };
    let [Expr::Name(n)] = targets.as_slice() else { return None };
    let uses = |t: &str| {
        let mut c = 0;
        body.iter().for_each(|s| s.walk_exprs(&mut |e| c += usize::from(e.is_name(t))));
        c
    };
    // (Most assignments have no such temporary right before them: looked at before
    // copying the value.)
    let temp_before = i.checked_sub(1).is_some_and(|j| matches!(&body[j], Stmt::Assign(ts, _) if matches!(ts.as_slice(), [Expr::Name(t)] if t.starts_with("__temp_"))));
    if !temp_before {
        return None;
    }
    let mut v = v.clone();
    let mut taken = 0;
    while taken < i {
        let Stmt::Assign(ts, tv) = &body[i - taken - 1] else { break };
        let [Expr::Name(t)] = ts.as_slice() else { break };
        let mut here = 0;
        v.walk(&mut |e| here += usize::from(e.is_name(t)));
        if !t.starts_with("__temp_") || here != 1 || uses(t) != 2 {
            break;
        }
        v.walk_mut(&mut |e| {
            if e.is_name(t) {
                *e = tv.clone();
            }
        });
        taken += 1;
        if let Some(def) = as_definition(&mut v, n) {
            return Some((def, taken));
        }
    }
    None
}

fn bind_defs(body: &mut Vec<Stmt>) {
    let mut i = 0;
    while i < body.len() {
        if let Some((def, taken)) = generic_def_through_temps(body, i) {
            body[i] = def;
            body.drain(i - taken..i);
            i -= taken;
        }
        i += 1;
    }
    for s in body.iter_mut() {
        match s {
            Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                bind_defs(a);
                bind_defs(b);
            }
            Stmt::Try(..) | Stmt::With(..) => {
                for b in s.bodies_mut() {
                    bind_defs(b);
                }
            }
            Stmt::Assign(targets, v) => {
                if let [Expr::Name(n)] = targets.as_slice() {
                    if let Some(def) = as_definition(v, n).or_else(|| as_type_alias(v, n)) {
                        *s = def;
                    }
                }
            }
            _ => {}
        }
    }
}

fn annotations(body: &mut Vec<Stmt>) {
    // `__annotations__['name'] = annotation` (`SETUP_ANNOTATIONS` bodies before 3.14).
    annotation_sites(body, &mut |s| {
        let Stmt::Assign(targets, ann) = s else { return Ok(None) };
        let [Expr::Subscript(obj, key)] = targets.as_slice() else { return Ok(None) };
        let (true, Expr::Const(Constant::Str(x))) = (obj.is_name("__annotations__"), &**key) else { return Ok(None) };
        Ok(Some((String::from(&**x), ann.clone())))
    });
}

/// Where a body reports an annotated name (`site` reads a statement as such a
/// report: the name and its annotation; `Err` gives up), `name: T` is written
/// instead, taking the assignment to `name` just before it in the same list as its
/// value (`name: T = v` stores the value first, then reports the annotation). Walks
/// nested statement lists, not definitions. Returns, per report in the order met,
/// the index in `body` of the outermost statement holding it; `None` when `site`
/// gave up (the body is then partly rewritten: the caller restores it).
fn annotation_sites(body: &mut Vec<Stmt>, site: &mut dyn FnMut(&Stmt) -> Result<Option<(String, Expr)>, ()>) -> Option<Vec<usize>> {
    fn walk(body: &mut Vec<Stmt>, outer: Option<usize>, site: &mut dyn FnMut(&Stmt) -> Result<Option<(String, Expr)>, ()>, tops: &mut Vec<usize>) -> Option<()> {
        let mut i = 0;
        while i < body.len() {
            match site(&body[i]).ok()? {
                Some((name, ann)) => {
                    let stored = i.checked_sub(1).is_some_and(|j| matches!(&body[j], Stmt::Assign(t, _) if matches!(t.as_slice(), [Expr::Name(x)] if **x == *name)));
                    let value = if stored {
                        let Stmt::Assign(_, v) = body.remove(i - 1) else { unreachable!("matched above") };
                        i -= 1;
                        Some(v)
                    } else {
                        None
                    };
                    body[i] = Stmt::AnnAssign(Expr::Name(name.into()), ann, value);
                    tops.push(outer.unwrap_or(i));
                }
                None => {
                    let top = outer.unwrap_or(i);
                    for b in nested_bodies(&mut body[i]) {
                        walk(b, Some(top), site, tops)?;
                    }
                }
            }
            i += 1;
        }
        Some(())
    }
    let mut tops = Vec::new();
    walk(body, None, site, &mut tops)?;
    Some(tops)
}

/// Removes what a 3.12+ class body (every class body with a function in it from
/// 3.14 on) does to keep its namespace in the cell `__classdict__` for annotation
/// scopes: `__classdict__ = <locals>` first and `__classdictcell__ = <that cell>`
/// before the return (CPython 3.14 `Python/codegen.c`, `codegen_class_body`). Only a
/// class body stores `LOAD_LOCALS` into that cell.
fn drop_classdict(body: &mut Vec<Stmt>) {
    let is_store = |s: &Stmt, name: &str| matches!(s, Stmt::Assign(t, _) if matches!(t.as_slice(), [Expr::Name(n)] if n == name));
    if let Some(i) = body.iter().take(6).position(|s| matches!(s, Stmt::Assign(t, Expr::Name(v)) if v == LOCALS && matches!(t.as_slice(), [Expr::Name(n)] if n == "__classdict__"))) {
        body.remove(i);
        if let Some(i) = body.iter().rposition(|s| matches!(s, Stmt::Assign(t, v) if is_store(s, "__classdictcell__") && t.len() == 1 && recover::cell_name(v) == Some("__classdict__"))) {
            body.remove(i);
        }
    }
}

/// A 3.14+ class body's annotations: the body stores a compiler-made
/// `__annotate__(format)` into `__annotate_func__` (CPython 3.14 `Python/codegen.c`,
/// `codegen_process_deferred_annotations`) that checks the format, builds a dict
/// `{}` and sets `d['name'] = annotation` in source order. Each annotated name takes
/// the first plain assignment to it after the previous one (`name: T = v`), or
/// becomes a bare `name: T` there. Conditional annotations (see
/// [`conditional_annotations`]) are placed where the body reports them. Left alone
/// (the marker then fails the body) when the function has another shape.
fn class_annotations(body: &mut Vec<Stmt>) {
    let is_annotate = |s: &Stmt| {
        matches!(s, Stmt::Assign(t, Expr::Def(d)) if matches!(t.as_slice(), [Expr::Name(n)] if n == "__annotate_func__")
            && matches!(&**d, Stmt::FunctionDef(n, ..) if n == "__annotate__"))
    };
    let Some(at) = body.iter().position(is_annotate) else { return };
    let Stmt::Assign(_, Expr::Def(d)) = &body[at] else { return };
    let Stmt::FunctionDef(_, args, fbody) = &**d else { return };
    let Some(items) = annotate_items(args, fbody) else { return };
    let saved = body.clone();
    body.remove(at);
    let conditional: Vec<AnnotateItem> = items.iter().filter(|item| item.index.is_some()).cloned().collect();
    // The set is made right after the class namespace cell (CPython 3.14
    // `Python/codegen.c`, `codegen_class_body`), also in a class whose conditional
    // annotations all stand in classes nested in it: then no item reads it.
    let made = body.iter().take(6).position(|s| {
        matches!(s, Stmt::Assign(t, v) if matches!(t.as_slice(), [Expr::Name(n)] if n == CONDITIONAL) && is_empty_set(v))
    });
    let sites = match made {
        Some(i) => {
            body.remove(i);
            conditional_annotations(body, conditional)
        }
        None if conditional.is_empty() => Some(Vec::new()),
        None => None,
    };
    let Some(mut sites) = sites else {
        *body = saved;
        return;
    };
    let compiler_made = ["__module__", "__qualname__", "__firstlineno__", "__doc__"];
    let mut pos = body
        .iter()
        .position(|s| !compiler_made.iter().any(|n| matches!(s, Stmt::Assign(t, _) if matches!(t.as_slice(), [Expr::Name(x)] if x == n))))
        .unwrap_or(body.len());
    // In the function's order, which is the source's: a plain annotation lies after
    // the conditional ones before it and before those after it.
    for AnnotateItem { name, ann, index } in items {
        if let Some(k) = index {
            let site = sites.iter().find(|(x, _)| *x == k).map(|(_, at)| *at).expect("placed above");
            pos = pos.max(site + 1);
            continue;
        }
        let before = sites.iter().filter(|(_, at)| *at >= pos).map(|(_, at)| *at).min().unwrap_or(body.len());
        let found = (pos..before).find(|&i| matches!(&body[i], Stmt::Assign(t, _) if matches!(t.as_slice(), [Expr::Name(x)] if *x == name)));
        match found {
            Some(i) => {
                let Stmt::Assign(_, v) = std::mem::replace(&mut body[i], Stmt::Pass) else { unreachable!("matched above") };
                body[i] = Stmt::AnnAssign(Expr::Name(name.into()), ann, Some(v));
                pos = i + 1;
            }
            None => {
                body.insert(pos, Stmt::AnnAssign(Expr::Name(name.into()), ann, None));
                for (_, at) in sites.iter_mut() {
                    if *at >= pos {
                        *at += 1;
                    }
                }
                pos += 1;
            }
        }
    }
}

/// A 3.14+ module body's annotations: the module stores a compiler-made
/// `__annotate__(format)` (CPython 3.14 `Python/codegen.c`,
/// `codegen_process_deferred_annotations`) whose items are all conditional (see
/// [`conditional_annotations`]). With `from __future__ import annotations` the module
/// still starts with `__conditional_annotations__ = set()` but annotates through
/// `__annotations__` (read by [`annotations`]) and never uses the set: the store is
/// dropped. Left alone when the function or the sites have another shape.
fn module_annotations(body: &mut Vec<Stmt>) {
    let is_named = |s: &Stmt, name: &str| matches!(s, Stmt::Assign(t, _) if matches!(t.as_slice(), [Expr::Name(n)] if n == name));
    let Some(set_at) = body.iter().take(4).position(|s| is_named(s, CONDITIONAL) && matches!(s, Stmt::Assign(_, v) if is_empty_set(v))) else { return };
    let annotate = body.iter().take(4).position(|s| {
        is_named(s, "__annotate__") && matches!(s, Stmt::Assign(_, Expr::Def(d)) if matches!(&**d, Stmt::FunctionDef(n, ..) if n == "__annotate__"))
    });
    let saved = body.clone();
    let mut items = Vec::new();
    if let Some(at) = annotate {
        let Stmt::Assign(_, Expr::Def(d)) = &body[at] else { return };
        let Stmt::FunctionDef(_, args, fbody) = &**d else { return };
        match annotate_items(args, fbody) {
            Some(found) if found.iter().all(|item| item.index.is_some()) => items = found,
            _ => return,
        }
        body.remove(at);
    }
    let set_at = if annotate.is_some_and(|a| a < set_at) { set_at - 1 } else { set_at };
    body.remove(set_at);
    if conditional_annotations(body, items).is_none() {
        *body = saved;
    }
}

/// The name CPython 3.14+ gives the set of the conditional annotations that ran.
const CONDITIONAL: &str = "__conditional_annotations__";

fn is_empty_set(e: &Expr) -> bool {
    matches!(e, Expr::Set(items) if items.is_empty())
        || matches!(e, Expr::Call(f, args, kws) if f.is_name("set") && args.is_empty() && kws.is_empty())
}

/// Places conditional annotations (CPython 3.14 `Python/codegen.c`,
/// `codegen_annassign`: in a module, and in a class under another statement, an
/// annotated name is reported only when its statement ran): the body runs
/// `__conditional_annotations__.add(k)` where `name: T` stood (after storing the
/// value of `name: T = v`), and the `__annotate__` function reads item `k` only
/// when `k` is in the set. Each such call becomes `name: T` there, taking the
/// assignment to `name` just before it as its value. Returns, per index, the
/// position in `body` of the outermost statement holding its annotation; `None`
/// (the caller restores the body) when an item is not reported exactly once, or the
/// set is still used after.
fn conditional_annotations(body: &mut Vec<Stmt>, items: Vec<AnnotateItem>) -> Option<Vec<(i64, usize)>> {
    let mut order: Vec<(i64, AnnotateItem)> = items.into_iter().map(|item| (item.index.unwrap_or(-1), item)).collect();
    order.sort_by_key(|(k, _)| *k);
    let index: Vec<i64> = order.iter().map(|(k, _)| *k).collect();
    let mut slots: Vec<Option<AnnotateItem>> = order.into_iter().map(|(_, item)| Some(item)).collect();
    let mut met = Vec::new();
    let tops = annotation_sites(body, &mut |s| {
        let Stmt::Expr(Expr::Call(f, args, kws)) = s else { return Ok(None) };
        let (Expr::Attribute(obj, attr), [Expr::Const(Constant::Int(k))], true) = (&**f, args.as_slice(), kws.is_empty()) else { return Ok(None) };
        if !obj.is_name(CONDITIONAL) || attr != "add" {
            return Ok(None);
        }
        let slot = index.iter().position(|x| x == k).ok_or(())?;
        let AnnotateItem { name, ann, .. } = slots[slot].take().ok_or(())?;
        met.push(slot);
        Ok(Some((name, ann)))
    })?;
    let mut sites: Vec<Option<usize>> = vec![None; slots.len()];
    for (slot, top) in met.into_iter().zip(tops) {
        sites[slot] = Some(top);
    }
    // An item never reported stood in code the compiler dropped as unreachable (`if
    // False:`, after a `return`): it comes back as `if False: name: T` between the
    // outermost statements of the items before and after it, which keeps the
    // numbering; refused when those two share an outermost statement.
    for slot in (0..slots.len()).rev() {
        let Some(AnnotateItem { name, ann, .. }) = slots[slot].take() else { continue };
        let at = sites[slot + 1..].iter().flatten().next().copied().unwrap_or(body.len());
        if sites[..slot].iter().flatten().last().is_some_and(|&before| before >= at) {
            return None;
        }
        body.insert(at, Stmt::If(Expr::Const(Constant::Bool(false)), vec![Stmt::AnnAssign(Expr::Name(name.into()), ann, None)], Vec::new()));
        for s in sites.iter_mut().flatten() {
            if *s >= at {
                *s += 1;
            }
        }
        sites[slot] = Some(at);
    }
    let mut used = false;
    for s in body.iter_mut() {
        stmt_exprs_mut(s, &mut |e| used |= e.is_name(CONDITIONAL));
    }
    (!used).then(|| index.into_iter().zip(sites.into_iter().map(|s| s.expect("every item placed"))).collect())
}

/// The statement lists directly nested in `s` (branches, loop bodies, `try` and
/// `with` bodies, `match` cases), not those of definitions.
fn nested_bodies(s: &mut Stmt) -> Vec<&mut Vec<Stmt>> {
    match s {
        Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => vec![a, b],
        other => other.bodies_mut(),
    }
}

/// One item of a 3.14+ class or module `__annotate__` body: the annotated name, its
/// annotation and, for a conditional one, the index its `__conditional_annotations__`
/// test reads (see [`conditional_annotations`]).
#[derive(Clone)]
struct AnnotateItem {
    name: String,
    ann: Expr,
    index: Option<i64>,
}

/// The items of a class or module body's `__annotate__` body (see
/// [`class_annotations`]): `d['name'] = annotation`, or `if k in
/// __conditional_annotations__: d['name'] = annotation`, in order. `None` for
/// another shape.
fn annotate_items(args: &depyf_source::Arguments, body: &[Stmt]) -> Option<Vec<AnnotateItem>> {
    let [guard, rest @ ..] = body else { return None };
    if !is_format_guard(args, guard) {
        return None;
    }
    let [Stmt::Assign(init, Expr::Dict(empty)), sets @ .., Stmt::Return(Some(Expr::Name(ret)))] = rest else { return None };
    let ([Expr::Name(d)], true) = (init.as_slice(), empty.is_empty()) else { return None };
    if d != ret {
        return None;
    }
    let item = |s: &Stmt, index: Option<i64>| {
        let Stmt::Assign(t, v) = s else { return None };
        let [Expr::Subscript(m, k)] = t.as_slice() else { return None };
        let (true, Expr::Const(Constant::Str(k))) = (m.is_name(d), &**k) else { return None };
        let mut leaks = false;
        v.walk(&mut |e| leaks |= e.is_name(d) || e.is_name(CONDITIONAL));
        (!leaks).then(|| AnnotateItem { name: String::from(&**k), ann: v.clone(), index })
    };
    let mut out = Vec::new();
    for s in sets {
        out.push(match s {
            Stmt::If(Expr::Compare(left, ops), then, orelse) if orelse.is_empty() && then.len() == 1 => {
                let (Expr::Const(Constant::Int(k)), [("in", set)]) = (&**left, ops.as_slice()) else { return None };
                if !set.is_name(CONDITIONAL) || out.iter().any(|x: &AnnotateItem| x.index == Some(*k)) {
                    return None;
                }
                item(&then[0], Some(*k))?
            }
            other => item(other, None)?,
        });
    }
    Some(out)
}

/// Whether `s` is the guard that CPython 3.14+ writes first in the functions it makes
/// for deferred annotations and type alias values: `if format > 2: raise
/// NotImplementedError`, refusing the formats other than VALUE and
/// VALUE_WITH_FAKE_GLOBALS (CPython 3.14 `Python/codegen.c`,
/// `codegen_setup_annotations_scope`), where `format` is the first parameter of
/// `args` (`format` or `.format`).
pub(crate) fn is_format_guard(args: &depyf_source::Arguments, s: &Stmt) -> bool {
    let Stmt::If(Expr::Compare(left, ops), then, orelse) = s else { return false };
    let Some(param) = args.posonly.first().or(args.args.first()) else { return false };
    left.is_name(param)
        && matches!(ops.as_slice(), [(">", Expr::Const(Constant::Int(2)))])
        && matches!(then.as_slice(), [Stmt::Raise(Some(e), None)] if e.is_name("NotImplementedError"))
        && orelse.is_empty()
}

/// Whether `code` is a CPython 3.14+ compiler-made function of one positional-only
/// parameter (`format` or `.format`, PEP 649 and 3.14 `type` statements).
fn takes_format_only(code: &CodeObject) -> bool {
    code.version >= depyf_bytecode::PythonVersion::PY314 && code.total_argcount() == 1 && code.co_posonlyargcount == 1
}

/// Whether `code` is the `__annotate__(format, /)` that CPython 3.14+ makes for a
/// function's, class's or module's annotations (PEP 649, `Python/codegen.c`), whose
/// body returns the dict of annotations.
pub(crate) fn is_annotate_function(code: &CodeObject) -> bool {
    takes_format_only(code) && code.co_name == "__annotate__" && code.co_localsplusnames.first().map(|n| &**n) == Some("format")
}

/// The source a 3.14+ compiler-made function decompiled on its own comes from, or
/// `None` when `code` is not one (or has another shape). These functions have no
/// source of their own: the compiler writes them for annotations (PEP 649/749) and
/// `type` statements (CPython 3.14 `Python/codegen.c`, `codegen_annotations`,
/// `codegen_deferred_annotations_body`, `codegen_typealias_body`), with a
/// `format` (`.format`) parameter, the [`is_format_guard`] guard whose exception is
/// a `LOAD_COMMON_CONSTANT` (no user code loads it so) and a comparison without
/// the boolean flag. Compiling the returned statements where the function was
/// made compiles such a function again:
/// - a function's `__annotate__` (`return {'name': annotation, ...}`, `'return'`
///   last): `def _annotated_(name: annotation, ...) -> annotation: ...` (named by
///   `options.function_name` when given; not after the function, which 3.15 names
///   in the qualified name, so that the stand-in does not replace the function
///   where both are compiled together);
/// - a class or module body's `__annotate__` (`d = {}; d['name'] = annotation`):
///   the annotated names, `name: annotation`, in order;
/// - a non-generic `type` statement's value function (named like the alias):
///   `type Name = value`.
///
/// Errors: those of recovering the body (see [`crate::recover_body`]).
pub(crate) fn compiler_made_source(code: &CodeObject, options: &Options) -> Result<Option<Vec<Stmt>>, crate::DecompileError> {
    if !takes_format_only(code) {
        return Ok(None);
    }
    let param = code.co_localsplusnames.first().map(|n| &**n);
    let alias = param == Some(".format") && code.co_name != "__annotate__" && !code.co_qualname.contains('<') && code.co_freevars().is_empty();
    if !(alias || is_annotate_function(code)) {
        return Ok(None);
    }
    let ir = normalize(code)?;
    if !ir.iter().any(|i| matches!(i.op, Op::LoadCommonConstant("NotImplementedError"))) {
        return Ok(None);
    }
    let class_scope = code.co_freevars().iter().any(|n| *n == "__classdict__");
    let failures = std::cell::RefCell::default();
    let body = crate::recover_body_with(code, options, &failures, class_scope)?;
    let args = crate::arguments(code);
    let [guard, rest @ ..] = body.as_slice() else { return Ok(None) };
    if !is_format_guard(&args, guard) {
        return Ok(None);
    }
    if alias {
        let [Stmt::Return(Some(v))] = rest else { return Ok(None) };
        return Ok(Some(vec![Stmt::TypeAlias(code.co_name.clone(), Vec::new(), v.clone())]));
    }
    if let [Stmt::Return(Some(Expr::Dict(items)))] = rest {
        let mut sig = depyf_source::Arguments::default();
        for (k, v) in items {
            let Some(Expr::Const(Constant::Str(k))) = k else { return Ok(None) };
            let seen = sig.args.iter().any(|x| **x == **k) || sig.kwonly.iter().any(|x| **x == **k) || sig.vararg.as_deref() == Some(&**k);
            if sig.returns.is_some() || !(&**k == "return" || crate::is_identifier(k)) || seen {
                return Ok(None);
            }
            if &**k == "return" {
                sig.returns = Some(v.clone());
            } else if matches!(v, Expr::Starred(_)) {
                // `*args: *Ts` (PEP 646): only a `*args` parameter takes it.
                if sig.vararg.is_some() {
                    return Ok(None);
                }
                sig.vararg = Some(String::from(&**k));
                sig.annotations.push((String::from(&**k), v.clone()));
            } else if sig.vararg.is_some() {
                // After `*args` (the dict keeps the order of the parameters).
                sig.kwonly.push(String::from(&**k));
                sig.annotations.push((String::from(&**k), v.clone()));
            } else {
                sig.args.push(String::from(&**k));
                sig.annotations.push((String::from(&**k), v.clone()));
            }
        }
        let name = options.function_name.clone().unwrap_or_else(|| "_annotated_".into());
        let mut out = vec![Stmt::FunctionDef(name, Box::new(sig), vec![Stmt::Expr(Expr::Const(Constant::Ellipsis))])];
        future_annotations(code, &mut out);
        return Ok(Some(out));
    }
    let Some(items) = annotate_items(&args, &body) else { return Ok(None) };
    // All conditional (a module's) or none (a class body's): compiled at the top of a
    // module or class, the statements make the same function again. A class's mix of
    // both needs the statements the conditional ones stood under.
    if items.iter().any(|item| item.index.is_some()) && !items.iter().all(|item| item.index.is_some()) {
        return Ok(None);
    }
    let mut out: Vec<Stmt> = items.into_iter().map(|item| Stmt::AnnAssign(Expr::Name(item.name.into()), item.ann, None)).collect();
    future_annotations(code, &mut out);
    Ok(Some(out))
}

/// Under `from __future__ import annotations` (`code` has
/// [`co_flags::FUTURE_ANNOTATIONS`], PEP 563, 3.7+) the compiler stores each
/// annotation as the text of its expression (CPython `Python/ast_unparse.c`): the
/// string annotations of the `def`s and annotated assignments in `body` (nested
/// ones included) become that text again ([`Expr::SourceText`]), so that compiling
/// them under the same flag stores the same strings. Returns whether any changed.
/// Other annotations and code without the flag are left alone.
pub(crate) fn future_annotations(code: &CodeObject, body: &mut [Stmt]) -> bool {
    if code.co_flags & depyf_bytecode::co_flags::FUTURE_ANNOTATIONS == 0 {
        return false;
    }
    fn text(e: &mut Expr, changed: &mut bool) {
        if let Expr::Const(Constant::Str(s)) = e {
            *e = Expr::SourceText(String::from(&**s));
            *changed = true;
        }
    }
    fn walk(body: &mut [Stmt], changed: &mut bool) {
        for s in body {
            match s {
                Stmt::FunctionDef(_, a, b) => {
                    a.annotations.iter_mut().for_each(|(_, e)| text(e, changed));
                    if let Some(r) = &mut a.returns {
                        text(r, changed);
                    }
                    walk(b, changed);
                }
                Stmt::AnnAssign(_, e, _) => text(e, changed),
                Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                    walk(a, changed);
                    walk(b, changed);
                }
                Stmt::ClassDef(_, _, _, b, _) => walk(b, changed),
                Stmt::Decorated(_, d) => walk(std::slice::from_mut(&mut **d), changed),
                other => other.bodies_mut().into_iter().for_each(|b| walk(b, changed)),
            }
        }
    }
    let mut changed = false;
    walk(body, &mut changed);
    changed
}

/// Whether `e` is a negated `is`/`in` comparison, which [`fold_negated_tests`]
/// rewrites (and without which, anywhere in the body, it changes nothing: it makes
/// none itself).
pub(crate) fn negated_test(e: &Expr) -> bool {
    matches!(e, Expr::UnaryOp("not", inner) if matches!(&**inner, Expr::Compare(_, ops) if matches!(ops.as_slice(), [("is" | "is not" | "in" | "not in", _)])))
}

/// CPython 3.8-3.13 compile `not (a is b)` / `not (a in b)` as `a is not b` /
/// `a not in b` (`Python/ast_opt.c`, `fold_unaryop`, inner operands first): the
/// negated comparisons that [`recover::negate`] leaves in `body` (nested
/// expressions included) are written so for those versions, as their source most
/// likely was. 3.14+ keep the two forms apart and `body` as it is.
pub(crate) fn fold_negated_tests(code: &CodeObject, body: &mut [Stmt]) {
    if code.version >= depyf_bytecode::PythonVersion::PY314 {
        return;
    }
    // Whether a negated `is`/`in` comparison (what the second rewrite folds) is met.
    // The first rewrite makes none (its new `not` holds an `and`/`or`) and leaves
    // each it moves as it was: without one here, the second walk changes nothing.
    let foldable = negated_test;
    let mut any_foldable = false;
    // First `not a or not b` (each operand negated by the jumps of a short-circuit
    // test) back to `not (a and b)` where an operand is an `is`/`in` comparison: its
    // negation would be folded into the other op below, which the source cannot have
    // written there (it would have compiled to that op), while `not (a is x and b)`
    // compiles each comparison as it is and flips the jumps (`Python/compile.c`
    // `compiler_jump_if` on a `not`). Both are bools of the same truth.
    let mut un_de_morgan = |e: &mut Expr| {
        any_foldable |= foldable(e);
        let Expr::BoolOp(is_and, items) = e else { return };
        let negated = |x: &Expr| matches!(x, Expr::UnaryOp("not", _));
        if items.len() < 2 || !items.iter().all(negated) || !items.iter().any(foldable) {
            return;
        }
        let inners = std::mem::take(items).into_iter().map(|x| match x {
            Expr::UnaryOp(_, inner) => *inner,
            _ => unreachable!("checked above"),
        });
        *e = Expr::UnaryOp("not", Box::new(Expr::BoolOp(!*is_and, inners.collect())));
    };
    for s in body.iter_mut() {
        stmt_exprs_mut(s, &mut un_de_morgan);
    }
    if !any_foldable {
        return;
    }
    let mut fold = |e: &mut Expr| {
        let Expr::UnaryOp("not", inner) = e else { return };
        let Expr::Compare(l, ops) = &mut **inner else { return };
        let [(op, r)] = ops.as_mut_slice() else { return };
        let flipped = match *op {
            "is" => "is not",
            "is not" => "is",
            "in" => "not in",
            "not in" => "in",
            _ => return,
        };
        *e = Expr::Compare(std::mem::replace(l, Box::new(Expr::Const(Constant::None))), vec![(flipped, std::mem::replace(r, Expr::Const(Constant::None)))]);
    };
    for s in body.iter_mut() {
        stmt_exprs_mut(s, &mut fold);
    }
}

/// The `'...%s...' % (a, ...)` that CPython 3.11 compiles into the f-string of
/// `parts` (`Python/ast_opt.c`, `optimize_format`: a `str` constant `%` a tuple
/// display without starred items, each format `%s`, `%r` or `%a` with optional
/// width and precision, becomes a `JoinedStr` whose fields have conversion `!s`,
/// `!r`, `!a` and the spec `>W` (`W` with the `-` flag), `.P` appended, none when
/// both are missing). Used for an f-string that cannot be written as one before
/// 3.12 (a field needing a backslash or every kind of quote): the `%` form has no
/// such limit and recompiles to the same instructions. `None` when a part has no `%`
/// form (a field without conversion, another spec).
pub(crate) fn percent_format(parts: &[FPart]) -> Option<Expr> {
    let mut fmt = String::new();
    let mut args = Vec::new();
    for p in parts {
        match p {
            FPart::Lit(s) => fmt.push_str(&s.replace('%', "%%")),
            FPart::Field(v, Some(c @ ('s' | 'r' | 'a')), spec) => {
                fmt.push('%');
                if let Some(spec) = spec {
                    let [FPart::Lit(spec)] = spec.as_slice() else { return None };
                    fmt.push_str(&percent_spec(spec)?);
                }
                fmt.push(*c);
                args.push((**v).clone());
            }
            _ => return None,
        }
    }
    if args.is_empty() {
        return None;
    }
    Some(Expr::BinOp(Box::new(Expr::Const(Constant::Str(fmt.into()))), "%", Box::new(Expr::Tuple(args))))
}

/// The `%` flags, width and precision that CPython 3.11's `optimize_format` turns
/// into the format spec `spec`: `>W` from width `W`, `W` from `-W` (left
/// justified, the default of `str.__format__`), `.P` appended for a precision.
fn percent_spec(spec: &str) -> Option<String> {
    let (ljust, rest) = match spec.strip_prefix('>') {
        Some(r) => (false, r),
        None => (true, spec),
    };
    let (w, p) = match rest.split_once('.') {
        Some((w, p)) => (w, Some(p)),
        None => (rest, None),
    };
    let digits = |d: &str| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit());
    let width_ok = if w.is_empty() { ljust && p.is_some() } else { digits(w) && !w.starts_with('0') };
    if !width_ok || p.is_some_and(|p| !digits(p)) {
        return None;
    }
    let flag = if ljust && !w.is_empty() { "-" } else { "" };
    Some(format!("{flag}{w}{}", p.map(|p| format!(".{p}")).unwrap_or_default()))
}

/// Whether a `class` statement is among the statements of `body`, at any depth
/// outside `def` bodies (where [`Stmt::walk_scope_exprs`] goes).
fn holds_class(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::ClassDef(..) => true,
        Stmt::Decorated(_, d) => holds_class(std::slice::from_ref(&**d)),
        Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => holds_class(a) || holds_class(b),
        Stmt::Try(b, hs, e, f) => holds_class(b) || hs.iter().any(|h| holds_class(&h.body)) || holds_class(e) || holds_class(f),
        Stmt::With(_, b) => holds_class(b),
        Stmt::Match(_, cases) => cases.iter().any(|c| holds_class(&c.body)),
        _ => false,
    })
}

/// Binds definitions, reads annotated assignments (when the body ran
/// `SETUP_ANNOTATIONS`), tidies building shapes, and fails on any marker left.
/// `seen` is shown every expression of the scope as the body ends up (the
/// expressions that [`Stmt::walk_scope_exprs`] visits), some of them more than once
/// and some also as they were before a rewrite moved or copied them: for the
/// caller's checks of which names may be left.
pub(crate) fn bind<F: FnMut(&Expr)>(body: &mut Vec<Stmt>, seen: &mut F) -> Result<(), String> {
    drop_classdict(body);
    class_annotations(body);
    module_annotations(body);
    bind_defs(body);
    let setup = Stmt::Expr(Expr::name(SETUP_ANNOTATIONS));
    if let Some(i) = body.iter().position(|s| *s == setup) {
        body.remove(i);
        annotations(body);
    }
    // One walk for both rewrites (children first, each node `tidy` then the f-string
    // one): the same result as two whole walks, since neither rewrite looks at what
    // the other makes (`tidy` reads dicts, starred and constant children; the other
    // only f-strings).
    //
    // The same walk tells whether the check below can find anything: it visits the
    // expressions that check does but those of class bodies and of lambdas'
    // annotations, and the rewrites move, copy and make constants, never a
    // definition or a name. Without a class statement, a lambda, a definition or
    // such a name, the check is left out.
    let mut suspect = false;
    for s in body.iter_mut() {
        stmt_exprs_mut(s, &mut |e| {
            tidy(e);
            if let Expr::FString(parts, FStringSyntax::Pep498) = e {
                if !depyf_source::fstring_fits(parts, FStringSyntax::Pep498) {
                    if let Some(p) = percent_format(parts) {
                        *e = p;
                    }
                }
            }
            seen(e);
            suspect |= matches!(e, Expr::Def(_) | Expr::Lambda(..)) || matches!(e, Expr::Name(n) if n.starts_with('<') || n == ".0");
        });
    }
    if !suspect && !holds_class(body) {
        return Ok(());
    }
    // Bodies of nested `def`s were checked when they were recovered.
    let mut left = None;
    for s in body.iter() {
        s.walk_scope_exprs(&mut |e| {
            seen(e);
            match e {
                Expr::Def(d) => {
                    let what = match &**d {
                        Stmt::ClassDef(n, ..) => format!("class {n}"),
                        Stmt::FunctionDef(n, ..) => format!("function {n}"),
                        _ => "definition".into(),
                    };
                    left.get_or_insert(format!("a {what} that is not bound by a def/class statement"));
                }
                Expr::Name(n) if n.starts_with('<') || n == ".0" => {
                    left.get_or_insert(format!("`{n}` in a shape that is not recognized"));
                }
                _ => {}
            }
        });
    }
    left.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_formats() {
        let field = |c, spec: Option<&str>| FPart::Field(Box::new(Expr::name("x")), Some(c), spec.map(|s| vec![FPart::Lit(s.into())]));
        let fmt = |parts: &[FPart]| match percent_format(parts) {
            Some(Expr::BinOp(l, "%", r)) => match (*l, *r) {
                (Expr::Const(Constant::Str(s)), Expr::Tuple(a)) => Some((s, a.len())),
                _ => None,
            },
            _ => None,
        };
        let parts = [FPart::Lit("a%b '".into()), field('s', None), FPart::Lit("' ".into()), field('r', Some(">5")), field('a', Some("3.2")), field('s', Some(".4"))];
        assert_eq!(fmt(&parts), Some(("a%%b '%s' %5r%-3.2a%.4s".into(), 4)));
        // No conversion (a real `{x}` field), another spec, no field at all.
        assert_eq!(fmt(&[FPart::Field(Box::new(Expr::name("x")), None, None)]), None);
        assert_eq!(fmt(&[field('s', Some("<5"))]), None);
        assert_eq!(fmt(&[field('s', Some(">05"))]), None);
        assert_eq!(fmt(&[FPart::Lit("a".into())]), None);
    }

    #[test]
    fn lambda_bodies() {
        let r = |e: Expr| Stmt::Return(Some(e));
        assert_eq!(lambda_body(&[r(Expr::name("x"))]), Some(Expr::name("x")));
        let e = lambda_body(&[Stmt::If(Expr::name("c"), vec![r(Expr::name("a"))], vec![]), r(Expr::name("b"))]);
        assert_eq!(e, Some(Expr::IfExp(Box::new(Expr::name("c")), Box::new(Expr::name("a")), Box::new(Expr::name("b")))));
        assert_eq!(lambda_body(&[Stmt::Pass]), None);
    }

    #[test]
    fn format_guard() {
        let args = depyf_source::Arguments { posonly: vec!["format".into()], ..Default::default() };
        let guard = |param: &str, limit: i64, exc: &str| {
            let test = Expr::Compare(Box::new(Expr::name(param)), vec![(">", Expr::Const(Constant::Int(limit)))]);
            Stmt::If(test, vec![Stmt::Raise(Some(Expr::name(exc)), None)], vec![])
        };
        assert!(is_format_guard(&args, &guard("format", 2, "NotImplementedError")));
        assert!(!is_format_guard(&args, &guard("format", 1, "NotImplementedError")));
        assert!(!is_format_guard(&args, &guard("x", 2, "NotImplementedError")));
        assert!(!is_format_guard(&args, &guard("format", 2, "ValueError")));
        let alias = depyf_source::Arguments { posonly: vec![".format".into()], ..Default::default() };
        assert!(is_format_guard(&alias, &guard(".format", 2, "NotImplementedError")));
    }

    #[test]
    fn decorated_defs_bind() {
        let def = Stmt::FunctionDef("f".into(), Default::default(), vec![]);
        let v = Expr::Call(Box::new(Expr::name("d")), vec![Expr::Def(std::sync::Arc::new(def.clone()))], vec![]);
        let mut body = vec![Stmt::Assign(vec![Expr::name("f")], v)];
        bind(&mut body, &mut |_| {}).unwrap();
        assert_eq!(body, vec![Stmt::Decorated(vec![Expr::name("d")], Box::new(def.clone()))]);
        let mut body = vec![Stmt::Assign(vec![Expr::name("g")], Expr::Def(std::sync::Arc::new(def)))];
        assert!(bind(&mut body, &mut |_| {}).is_err());
    }
}

/// The generic `def` or `type` alias that a `<generic parameters of NAME>` function
/// makes (PEP 695; CPython 3.12-3.13 `Python/compile.c`, `compiler_type_params`), from
/// its recovered `body`: each type parameter is bound (`T = __typevar__('T')`, or
/// `(T := __typevar__('T'))` inside the tuple of parameters), then the function returns
/// `__set_type_params__(<def NAME>, (T, ...))` or `__type_alias__('NAME', (T, ...),
/// value)`. Returns the `def` with [`depyf_source::Arguments::type_params`] set, or
/// `__type_alias__('NAME', ['T', '*Ts', ...], value)` for the caller's assignment to
/// turn into a `type` statement.
///
/// Errors: a parameters function that takes arguments (defaults of the generic
/// function are passed in), bounds or constraints (their intrinsics are not
/// normalized), classes, and any other statement.
pub(crate) fn generic(code: &CodeObject, body: Vec<Stmt>) -> Result<Expr, DecompileError> {
    let err = |m: &str| DecompileError::new(code, 0, "", m);
    let name = code.co_name.strip_prefix("<generic parameters of ").and_then(|n| n.strip_suffix('>')).ok_or_else(|| err("not a generic parameters function"))?;
    // Defaults of the generic function come in as `.defaults` and `.kwdefaults`.
    let params: Vec<&str> = code.co_localsplusnames.iter().take(code.total_argcount()).map(|n| &**n).collect();
    if !matches!(params.as_slice(), [] | [".defaults"] | [".defaults", ".kwdefaults"]) {
        return Err(err("a generic parameters function with unknown arguments"));
    }
    // The parameter as written (`T`, `*Ts`, `**P`, `T: int`, `T: (str, bytes)`) of the
    // value bound to `n`.
    let kind_of = |e: &Expr, n: &str| -> Option<String> {
        match e {
            Expr::Call(f, a, k) if k.is_empty() && matches!(a.as_slice(), [Expr::Const(Constant::Str(s))] if **s == *n) => {
                recover::markers::TYPE_PARAM_KINDS.iter().find(|(_, m, _)| f.is_name(m)).map(|(_, _, p)| format!("{p}{n}"))
            }
            Expr::Call(f, a, k) if k.is_empty() && f.is_name("__typevar__") => match a.as_slice() {
                [Expr::Const(Constant::Str(s)), bound] if **s == *n => Some(format!("{n}: {}", depyf_source::print_expr(bound))),
                _ => None,
            },
            _ => None,
        }
    };
    let Some((Stmt::Return(Some(ret)), init)) = body.split_last() else { return Err(err("a generic parameters function that does not end in a return")) };
    let mut assigned: Vec<(String, String)> = Vec::new();
    // The tuple of parameters and the function, named by recovery when they wait on the
    // stack (the `SWAP 2` before the intrinsic).
    let mut temps: Vec<(&str, &Expr)> = Vec::new();
    // A generic class: the parameters stored in the `.type_params` cell (the class body
    // reads them), and `Generic[*params]` stored in `.generic_base`, its last base.
    let mut class_params: Option<&Expr> = None;
    let mut generic_base = false;
    let is_temp_store = |t: &[Expr]| matches!(t, [Expr::Name(n)] if n.starts_with("__temp_"));
    for s in init {
        match s {
            Stmt::Assign(t, v @ (Expr::Tuple(_) | Expr::Def(_))) if is_temp_store(t) => {
                let Expr::Name(n) = &t[0] else { unreachable!() };
                temps.push((n.as_str(), v));
            }
            Stmt::Assign(t, v) if is_temp_store(t) && v.is_name(BUILD_CLASS) => {
                let Expr::Name(n) = &t[0] else { unreachable!() };
                temps.push((n.as_str(), v));
            }
            Stmt::Assign(t, v @ Expr::Tuple(_)) if class_params.is_none() && matches!(t.as_slice(), [Expr::Name(n)] if n == ".type_params") => {
                class_params = Some(v);
            }
            Stmt::Assign(t, Expr::Call(m, a, k))
                if !generic_base
                    && class_params.is_some()
                    && matches!(t.as_slice(), [Expr::Name(n)] if n == ".generic_base")
                    && m.is_name(recover::markers::SUBSCRIPT_GENERIC)
                    && k.is_empty()
                    && matches!(a.as_slice(), [p] if p.is_name(".type_params")) =>
            {
                generic_base = true;
            }
            Stmt::Assign(t, v) if matches!(t.as_slice(), [Expr::Name(_)]) => {
                let Expr::Name(n) = &t[0] else { unreachable!() };
                let p = kind_of(v, n).ok_or_else(|| err(&format!("a generic parameters function with other statements: {}", depyf_source::print_body(std::slice::from_ref(s), 0).trim_end())))?;
                assigned.push((n.to_string(), p));
            }
            _ => return Err(err(&format!("a generic parameters function with other statements: {}", depyf_source::print_body(std::slice::from_ref(s), 0).trim_end()))),
        }
    }
    let params_of = |e: &Expr| -> Option<Vec<String>> {
        let Expr::Tuple(items) = e else { return None };
        let mut used = 0;
        let out: Option<Vec<String>> = items
            .iter()
            .map(|it| match it {
                Expr::Name(n) => {
                    used += 1;
                    assigned.iter().find(|(m, _)| m == n).map(|(_, p)| p.clone())
                }
                Expr::NamedExpr(n, v) => kind_of(v, n),
                _ => None,
            })
            .collect();
        let out = out?;
        let mut seen = std::collections::BTreeSet::new();
        (used == assigned.len() && !out.is_empty() && out.iter().all(|p| seen.insert(p.trim_start_matches('*').split(':').next().unwrap_or("").to_string()))).then_some(out)
    };
    let Expr::Call(f, args, kws) = ret else { return Err(err("a generic parameters function of an unknown shape")) };
    // Each temporary is the callee or one whole argument, used once, and nowhere else.
    let mut f = f.clone();
    if let Some(at) = temps.iter().position(|(t, _)| f.is_name(t)) {
        let (t, v) = temps.remove(at);
        *f = v.clone();
        let mut again = false;
        args.iter().chain(kws.iter().map(|k| &k.value)).for_each(|a| a.walk(&mut |e| again |= e.is_name(t)));
        if again {
            return Err(err("a generic parameters function of an unknown shape"));
        }
    }
    let mut args = args.clone();
    for (t, v) in &temps {
        let at: Vec<usize> = args.iter().enumerate().filter(|(_, a)| a.is_name(t)).map(|(k, _)| k).collect();
        if at.len() != 1 {
            return Err(err("a generic parameters function of an unknown shape"));
        }
        args[at[0]] = (*v).clone();
    }
    let mut mentioned = false;
    for a in &args {
        a.walk(&mut |e| mentioned |= temps.iter().any(|(t, _)| e.is_name(t)));
        if let Expr::Def(d) = a {
            if let Stmt::FunctionDef(_, fa, _) = &**d {
                fa.walk(&mut |e| mentioned |= temps.iter().any(|(t, _)| e.is_name(t)));
            }
        }
    }
    if mentioned {
        return Err(err("a generic parameters function of an unknown shape"));
    }
    if f.is_name(BUILD_CLASS) {
        return generic_class(code, name, &args, kws, class_params.filter(|_| generic_base), &params_of);
    }
    if class_params.is_some() || generic_base {
        return Err(err("a generic parameters function of an unknown shape"));
    }
    if !kws.is_empty() {
        return Err(err("a generic parameters function of an unknown shape"));
    }
    if f.is_name(recover::markers::SET_TYPE_PARAMS) {
        let [Expr::Def(def), params] = args.as_slice() else { return Err(err("a generic function of an unknown shape")) };
        let Stmt::FunctionDef(n, a, b) = &**def else { return Err(err("a generic function of an unknown shape")) };
        let params = params_of(params).ok_or_else(|| err("generic type parameters of an unknown shape"))?;
        if n != name || !a.type_params.is_empty() {
            return Err(err("a generic function of an unknown shape"));
        }
        let mut a = a.clone();
        a.type_params = params;
        return Ok(Expr::Def(std::sync::Arc::new(Stmt::FunctionDef(n.clone(), a, b.clone()))));
    }
    if f.is_name(recover::markers::TYPE_ALIAS) {
        let [n @ Expr::Const(Constant::Str(s)), params, value] = args.as_slice() else { return Err(err("a generic type alias of an unknown shape")) };
        let params = params_of(params).ok_or_else(|| err("generic type parameters of an unknown shape"))?;
        if **s != *name {
            return Err(err("a generic type alias of an unknown shape"));
        }
        let params = Expr::List(params.into_iter().map(|p| Expr::Const(Constant::Str(p.into()))).collect());
        return Ok(Expr::Call(f.clone(), vec![n.clone(), params, value.clone()], Vec::new()));
    }
    Err(err("a generic parameters function of an unknown shape"))
}

/// The definition that a `<generic parameters of NAME>` function makes, on its own
/// (decompiled without the code that calls it): the generic `def`, `class` or `type`
/// statement of [`generic`].
///
/// Errors: those of [`generic`], and a parameters function that takes arguments: the
/// defaults of the generic function are values of its caller, which are not here.
pub(crate) fn generic_standalone(code: &CodeObject, body: Vec<Stmt>) -> Result<Stmt, DecompileError> {
    let err = |m: &str| DecompileError::new(code, 0, "", m);
    if code.total_argcount() != 0 {
        return Err(err("a generic function whose defaults its caller passes in: decompile the code that defines it"));
    }
    let name = code.co_name.strip_prefix("<generic parameters of ").and_then(|n| n.strip_suffix('>')).unwrap_or_default().to_string();
    match generic(code, body)? {
        Expr::Def(d) => Ok(std::sync::Arc::unwrap_or_clone(d)),
        alias => {
            let called = Expr::Call(Box::new(Expr::Call(Box::new(Expr::name(recover::markers::GENERIC)), vec![alias], Vec::new())), Vec::new(), Vec::new());
            as_type_alias(&called, &name).ok_or_else(|| err("a generic type alias of an unknown shape"))
        }
    }
}

/// Whether `body`, a class body as recovery leaves it, is that of a generic class
/// (PEP 695): it stores the hidden `.type_params` into `__type_params__` first
/// (CPython 3.12-3.15 `Python/compile.c`, `compiler_class_body`).
pub(crate) fn is_generic_class_body(body: &[Stmt]) -> bool {
    body.iter().take(3).any(|s| matches!(s, Stmt::Assign(t, v) if matches!(t.as_slice(), [Expr::Name(n)] if n == "__type_params__") && v.is_name(".type_params")))
}

/// The generic class that a `<generic parameters of NAME>` function makes (PEP 695;
/// CPython 3.12-3.15 `Python/compile.c`, `compiler_class`): it returns
/// `__build_class__(<class body>, 'NAME', *bases, .generic_base, **keywords)` where
/// `.generic_base` holds `Generic[*.type_params]` and `params` is the tuple stored in
/// `.type_params`; the class body starts by storing `.type_params` into
/// `__type_params__`. Returns the class with its type parameters, that base and that
/// store left out.
///
/// Errors: any other shape, and `.type_params` or `.generic_base` used elsewhere.
fn generic_class(
    code: &CodeObject,
    name: &str,
    args: &[Expr],
    kws: &[Keyword],
    params: Option<&Expr>,
    params_of: &dyn Fn(&Expr) -> Option<Vec<String>>,
) -> Result<Expr, DecompileError> {
    let err = |m: &str| DecompileError::new(code, 0, "", m);
    let params = params.and_then(params_of).ok_or_else(|| err("generic class type parameters of an unknown shape"))?;
    let [Expr::Def(body), Expr::Const(Constant::Str(n)), bases @ .., last] = args else { return Err(err("a generic class of an unknown shape")) };
    let Stmt::ClassDef(_, _, _, body, type_params) = &**body else { return Err(err("a generic class of an unknown shape")) };
    if **n != *name || !last.is_name(".generic_base") || !type_params.is_empty() {
        return Err(err("a generic class of an unknown shape"));
    }
    let hidden = |e: &Expr| {
        let mut found = false;
        e.walk(&mut |x| found |= x.is_name(".generic_base") || x.is_name(".type_params"));
        found
    };
    if bases.iter().chain(kws.iter().map(|k| &k.value)).any(hidden) {
        return Err(err("a generic class whose bases use its hidden type parameters"));
    }
    let is_params_store = |s: &Stmt| is_generic_class_body(std::slice::from_ref(s));
    let mut body = body.clone();
    let at = body.iter().take(3).position(is_params_store).ok_or_else(|| err("a generic class body that does not store __type_params__"))?;
    body.remove(at);
    class_docstring(&mut body);
    let mut hidden_in_body = false;
    for s in &body {
        s.walk_exprs(&mut |e| hidden_in_body |= e.is_name(".type_params"));
    }
    if hidden_in_body {
        return Err(err("a generic class body that reads .type_params"));
    }
    Ok(Expr::Def(std::sync::Arc::new(Stmt::ClassDef(String::from(&**n), bases.to_vec(), kws.to_vec(), body, params))))
}

/// The parameters of a generic function with the `.defaults` / `.kwdefaults`
/// placeholders of its parameters function replaced by the values it is called with;
/// `None` when they do not fit.
fn generic_defaults(a: &depyf_source::Arguments, call_args: &[Expr]) -> Option<depyf_source::Arguments> {
    let mut a = a.clone();
    let mut rest = call_args.iter();
    if matches!(a.defaults.as_slice(), [d] if d.is_name(".defaults") || d.is_name(".kwdefaults")) {
        let items = match rest.next()? {
            Expr::Tuple(items) => items.clone(),
            Expr::Const(Constant::Tuple(items)) => items.iter().cloned().map(Expr::Const).collect(),
            _ => return None,
        };
        if items.is_empty() || items.len() > a.posonly.len() + a.args.len() {
            return None;
        }
        a.defaults = items;
    }
    if matches!(a.kw_defaults.as_slice(), [(n, v)] if n == ".kwdefaults" && (v.is_name(".defaults") || v.is_name(".kwdefaults"))) {
        let Expr::Dict(items) = rest.next()? else { return None };
        let mut kw = Vec::new();
        for (k, v) in items {
            let Some(Expr::Const(Constant::Str(k))) = k else { return None };
            if !a.kwonly.iter().any(|x| **x == **k) {
                return None;
            }
            kw.push((String::from(&**k), v.clone()));
        }
        a.kw_defaults = kw;
    }
    rest.next().is_none().then_some(a)
}

/// `type name[params] = value` from the value a `type` statement stores into `name`:
/// `__type_alias__('name', None, value)`, or the generic form that [`generic`] makes,
/// called at once (`__generic__(...)()`).
pub(crate) fn as_type_alias(v: &Expr, name: &str) -> Option<Stmt> {
    let inner = match v {
        Expr::Call(g, a, k) if a.is_empty() && k.is_empty() => match &**g {
            Expr::Call(m, a, k) if m.is_name(recover::markers::GENERIC) && a.len() == 1 && k.is_empty() => &a[0],
            _ => return None,
        },
        other => other,
    };
    let Expr::Call(f, args, kws) = inner else { return None };
    if !f.is_name(recover::markers::TYPE_ALIAS) || !kws.is_empty() {
        return None;
    }
    let [Expr::Const(Constant::Str(n)), params, value] = args.as_slice() else { return None };
    if **n != *name {
        return None;
    }
    let params = match params {
        Expr::Const(Constant::None) if std::ptr::eq(inner, v) => Vec::new(),
        Expr::List(ps) if !std::ptr::eq(inner, v) => ps.iter().map(|p| match p {
            Expr::Const(Constant::Str(s)) => Some(String::from(&**s)),
            _ => None,
        }).collect::<Option<Vec<_>>>()?,
        _ => return None,
    };
    Some(Stmt::TypeAlias(String::from(&**n), params, value.clone()))
}
