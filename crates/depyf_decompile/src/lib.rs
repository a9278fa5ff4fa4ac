//! Recovers Python source from a code object, and checks recompiled code against the
//! original.
//!
//! Pipeline stages in this crate: `recover` (symbolic stack interpretation into
//! statements per basic block, with explicit temporaries for values that live on the
//! stack across statements or blocks), `structure` (if/else from post-dominators;
//! duplicated tails where flow is shared; where no nesting fits, in a function without
//! exception handling, `state_machine` writes the blocks as states of one loop), `idioms` (implicit `return None`,
//! `global`/`nonlocal` declarations, the function header) and printing through
//! `depyf_source`.
//!
//! ```
//! use depyf_bytecode::{CodeObject, Constant, PythonVersion, local_kind};
//! use depyf_decompile::{decompile, Options};
//! // def f(x): return x + 1   (CPython 3.11)
//! let code = CodeObject {
//!     version: PythonVersion::PY311,
//!     co_argcount: 1, co_posonlyargcount: 0, co_kwonlyargcount: 0, co_stacksize: 2,
//!     co_flags: 3,
//!     co_code: vec![151, 0, 124, 0, 100, 1, 122, 0, 0, 0, 83, 0],
//!     co_consts: vec![Constant::None, Constant::Int(1)],
//!     co_names: vec![], co_localsplusnames: vec!["x".into()],
//!     co_localspluskinds: vec![local_kind::LOCAL],
//!     co_filename: "<doc>".into(), co_name: "f".into(), co_qualname: "f".into(),
//!     co_firstlineno: 1, co_linetable: vec![], co_exceptiontable: vec![],
//! };
//! let out = decompile(&code, &Options::default()).unwrap();
//! assert_eq!(out.source, "def f(x):\n    return x + 1\n");
//! ```

mod definitions;
mod error;
mod recover;
mod idioms;
mod inline_comp;
mod mangling;
mod patterns;
mod state_machine;
mod structure;

use std::collections::BTreeSet;

use depyf_bytecode::{co_flags, CodeObject, Constant};
use depyf_cfg::Cfg;
use depyf_ir::{normalize, Op};
use depyf_source::{print_body, Arguments, Expr, Stmt};

pub use error::DecompileError;

/// Stack, in bytes, that decompiling one code object is sized for: the nesting it
/// follows is bounded (expressions by `recover::MAX_NESTING`, regions by the
/// structurer's depth limit, code objects by the `.pyc` reader's), and the CLI's worker
/// threads and the Python extension run it on this much. Reserved, touched only as
/// used. On a smaller stack (Rust's 2 MiB spawned threads) code near those limits may
/// overflow it.
pub const STACK_BYTES: usize = 64 << 20;
pub use state_machine::FORCE_ENV as FORCE_STATE_MACHINE_ENV;

/// What the caller can choose.
#[derive(Clone, Debug)]
pub struct Options {
    /// Name of the `def` to print (default: `co_name`).
    pub function_name: Option<String>,
    /// Prefix of the names that stand for constants without a literal form; the name
    /// of `co_consts[i]` is `<prefix>_<i>`.
    pub const_prefix: String,
    /// A nested function (or method) that cannot be decompiled becomes a stub,
    /// `def name(params): raise RuntimeError('depyf could not decompile ...')`, listed
    /// in [`Decompiled::failures`], instead of failing the whole code object.
    pub stub_failures: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { function_name: None, const_prefix: "__const".into(), stub_failures: false }
    }
}

/// A nested function replaced by a stub (see [`Options::stub_failures`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// `co_qualname` of the function.
    pub qualname: String,
    /// Why it could not be decompiled.
    pub reason: String,
}

/// A decompiled code object.
#[derive(Clone, Debug, PartialEq)]
pub struct Decompiled {
    /// Complete source: `def name(params):` and the body, or the module body.
    pub source: String,
    /// The recovered body.
    pub body: Vec<Stmt>,
    /// Names used for constants without a literal form, with their `co_consts` index.
    pub opaque_constants: Vec<(String, usize)>,
    /// Nested functions replaced by stubs, in the order they were met (empty unless
    /// [`Options::stub_failures`] is set).
    pub failures: Vec<Failure>,
}

/// Whether recompiled code matches the original.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The normalized instruction streams are equal.
    Identical,
    /// Both recover to the same statements on the same control flow.
    Equivalent,
    /// They differ (see the detail).
    Differs,
}

impl Verdict {
    /// `"identical"`, `"equivalent"` or `"differs"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Identical => "identical",
            Verdict::Equivalent => "equivalent",
            Verdict::Differs => "differs",
        }
    }
}

/// The parameters of `code`, named from `co_localsplusnames` by its counts and flags.
/// Counts past the names (hand-made or corrupt input, which [`validate`] refuses; the
/// stub of such a function is written with this too) give the names there are.
fn arguments(code: &CodeObject) -> Arguments {
    let names = &code.co_localsplusnames;
    let mut i = 0usize;
    let mut take = |n: usize| {
        let end = i.saturating_add(n).min(names.len());
        let v: Vec<String> = names[i.min(end)..end].iter().map(|n| n.to_string()).collect();
        i = end;
        v
    };
    let posonly = take(code.co_posonlyargcount as usize);
    let args = take(code.co_argcount.saturating_sub(code.co_posonlyargcount) as usize);
    let kwonly = take(code.co_kwonlyargcount as usize);
    let vararg = if code.co_flags & co_flags::VARARGS != 0 { take(1).pop() } else { None };
    let kwarg = if code.co_flags & co_flags::VARKEYWORDS != 0 { take(1).pop() } else { None };
    let is_async = code.co_flags & (co_flags::COROUTINE | co_flags::ASYNC_GENERATOR) != 0;
    Arguments { is_async, posonly, args, vararg, kwonly, kwarg, ..Default::default() }
}

/// Recovers the body of `code` as statements (no header).
///
/// Errors: [`DecompileError`] naming the instruction that cannot be handled yet
/// (loops, exception handling, nested functions are not supported by this version)
/// or malformed bytecode.
/// Rejects code objects whose tables do not fit together (hand-made or corrupt
/// input): counts of parameters beyond the names, kinds not matching names, no code.
fn validate(code: &CodeObject, ins: Option<&[depyf_bytecode::Instruction]>) -> Result<(), DecompileError> {
    let bad = |m: String| Err(DecompileError::new(code, 0, "", m));
    if code.co_code.is_empty() {
        return bad("the code object has no bytecode".into());
    }
    if code.co_localspluskinds.len() != code.co_localsplusnames.len() {
        return bad(format!("{} local names but {} local kinds", code.co_localsplusnames.len(), code.co_localspluskinds.len()));
    }
    if code.co_posonlyargcount > code.co_argcount || code.total_argcount() > code.co_localsplusnames.len() {
        return bad(format!("{} parameters but {} local names", code.total_argcount(), code.co_localsplusnames.len()));
    }
    unspellable_names(code, ins)
}

/// Rejects a code object with a name that source would have to spell but cannot: its
/// own name, a local, cell or free variable, or an entry of `co_names` that is not an
/// identifier or is a keyword (hand-made or obfuscated input: `def not(a)` would be
/// printed, which does not compile). Skipped: compiler-made names (`<lambda>`,
/// `.0`, `.format`), which never reach the output as written, and the module paths
/// that only `IMPORT_NAME` uses (`os.path`, `''` of `from . import x`).
///
/// Errors: a [`DecompileError`] naming the table entry and, for a name of `co_names`
/// or of the locals, the first instruction that uses it.
fn unspellable_names(code: &CodeObject, decoded: Option<&[depyf_bytecode::Instruction]>) -> Result<(), DecompileError> {
    use depyf_bytecode::Argval;
    // The instructions, decoded here when the caller has not (only for a name that is
    // not an identifier: rare).
    let owned = std::cell::OnceCell::new();
    let decoded = || -> &[depyf_bytecode::Instruction] { decoded.unwrap_or_else(|| owned.get_or_init(|| depyf_bytecode::decode(code).unwrap_or_default())) };
    let first_use = |wanted: &dyn Fn(Argval) -> bool| -> (u32, &'static str) {
        decoded().iter().find(|i| wanted(i.argval)).map_or((0, ""), |i| (i.offset, i.opname))
    };
    let message = |what: String, name: &str| format!("{what} `{}` is not a Python identifier, so no source can spell it (hand-made or obfuscated code)", name.escape_debug());
    if !code.co_name.starts_with('<') && !is_identifier(&code.co_name) {
        return Err(DecompileError::new(code, 0, "", message("the code object's name".into(), &code.co_name)));
    }
    if let Some(i) = code.co_localsplusnames.iter().position(|n| !n.starts_with('.') && !is_identifier(n)) {
        let (at, op) = first_use(&|a| matches!(a, Argval::Local(x) if x as usize == i) || matches!(a, Argval::LocalPair(x, y) if x as usize == i || y as usize == i));
        return Err(DecompileError::new(code, at, op, message(format!("co_localsplusnames[{i}]"), &code.co_localsplusnames[i])));
    }
    let odd: Vec<usize> = (0..code.co_names.len()).filter(|&i| !is_identifier(&code.co_names[i])).collect();
    if odd.is_empty() {
        return Ok(());
    }
    let is_module_path = |n: &str| n.is_empty() || n.split('.').all(is_identifier);
    let ins = decoded();
    for i in odd {
        let name = &code.co_names[i];
        let misuse = ins.iter().find(|x| matches!(x.argval, Argval::Name(n) if n as usize == i) && !(x.id == depyf_bytecode::Opname::IMPORT_NAME && is_module_path(name)));
        if let Some(x) = misuse {
            return Err(DecompileError::new(code, x.offset, x.opname, message(format!("co_names[{i}]"), name)));
        }
    }
    Ok(())
}

/// Whether `n` is one of the names that [`leftover_marker`] looks for.
fn is_marker(n: &str) -> bool {
    n.starts_with('<')
        || matches!(n, "__exc__" | "__exc_match__" | "__pop_except__" | "__pop_except_held__" | "__reraise__" | "__with_enter__" | "__with_exit__" | "__with_suppress__" | patterns::MATCH_MARK | depyf_source::ASYNC_MARK)
        || matches!(n, "__typevar__" | "__typevartuple__" | "__paramspec__" | "__type_alias__" | "__set_type_params__" | "__generic__" | ".defaults" | ".kwdefaults")
}

/// The names recovery uses for what has no source form yet; any left in the output
/// means a shape was not understood, and the output would not run as the original.
/// An `__async__` mark is in place (not a leftover) as the iterable of a `for` or of a
/// comprehension's generator, or as a `with` item when every item of that `with` has one.
/// The bodies of nested `def`s are left out: each was checked when it was recovered
/// (`recover_body_with`; a stub when it failed), and checking them again at every
/// level of nesting made the check quadratic in the depth.
///
/// `any`: whether the body may hold a marker at all (a name that [`is_marker`]
/// accepts, in this scope): almost every body has none, and only a body with one
/// pays for finding which marks are in place (issue #7, speed). The caller tells it
/// from the expressions that `definitions::bind` shows it last, since the rewrites
/// after those move, drop and regroup the expressions of the body but make no name.
fn leftover_marker(body: &[Stmt], any: bool) -> Option<String> {
    if !any {
        return None;
    }
    let mut found = None;
    let mut placed: BTreeSet<*const Expr> = BTreeSet::new();
    let place = |e: &Expr, placed: &mut BTreeSet<*const Expr>| {
        if let Expr::Call(f, _, _) = e {
            if e.async_inner().is_some() {
                placed.insert(&**f as *const Expr);
            }
        }
    };
    fn stmts_in(s: &Stmt) -> Vec<&Vec<Stmt>> {
        match s {
            Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => vec![a, b],
            Stmt::ClassDef(_, _, _, b, _) | Stmt::With(_, b) => vec![b],
            Stmt::Match(_, cases) => cases.iter().map(|c| &c.body).collect(),
            Stmt::Decorated(_, d) => stmts_in(d),
            Stmt::Try(b, hs, e, f) => {
                let mut v = vec![b, e, f];
                v.extend(hs.iter().map(|h| &h.body));
                v
            }
            _ => Vec::new(),
        }
    }
    let mut work: Vec<&Stmt> = body.iter().collect();
    while let Some(s) = work.pop() {
        match s {
            Stmt::For(_, it, _, _) => place(it, &mut placed),
            Stmt::With(items, _) if items.iter().all(|(e, _)| e.async_inner().is_some()) => items.iter().for_each(|(e, _)| place(e, &mut placed)),
            _ => {}
        }
        work.extend(stmts_in(s).into_iter().flatten());
    }
    for s in body {
        s.walk_scope_exprs(&mut |e| {
            if let Expr::Comp(_, _, gens) | Expr::DictComp(_, _, gens) = e {
                gens.iter().for_each(|g| place(&g.iter, &mut placed));
            }
        });
    }
    for s in body {
        s.walk_scope_exprs(&mut |e| {
            if placed.contains(&(e as *const Expr)) {
                return;
            }
            if let Expr::Name(n) = e {
                if is_marker(n) && found.is_none() {
                    found = Some(n.to_string());
                }
            }
        });
    }
    found
}

/// In a module or class body every `return` is the implicit one at its end, copied
/// into each branch that ends there: drop them, giving back the `else` that
/// structuring dropped after an `if` whose branch ended in one.
fn drop_implicit_returns(body: &mut Vec<Stmt>) {
    let is_return = |s: &Stmt| matches!(s, Stmt::Return(None | Some(Expr::Const(Constant::None))));
    // First give back the `else` of each `if` whose branch ended in the return (the
    // branches still hold their returns), then drop the returns, then go inside.
    let mut i = 0;
    while i < body.len() {
        let more = i + 1 < body.len();
        if let Stmt::If(_, a, e) = &mut body[i] {
            if a.last().is_some_and(is_return) && e.is_empty() && more {
                let rest: Vec<Stmt> = body.drain(i + 1..).collect();
                if let Stmt::If(_, _, e) = &mut body[i] {
                    *e = rest;
                }
            }
        }
        if is_return(&body[i]) {
            body.remove(i);
            continue;
        }
        i += 1;
    }
    for s in body.iter_mut() {
        match s {
            Stmt::If(_, a, b) => {
                drop_implicit_returns(a);
                drop_implicit_returns(b);
            }
            Stmt::Try(b, hs, e, f) => {
                drop_implicit_returns(b);
                for h in hs.iter_mut() {
                    drop_implicit_returns(&mut h.body);
                }
                drop_implicit_returns(e);
                drop_implicit_returns(f);
            }
            Stmt::With(_, b) => drop_implicit_returns(b),
            // A return inside a loop is the end of the body copied into a `break`
            // path: dropping it would go on looping. It is left for the caller to
            // refuse (see `loop_return`).
            _ => {}
        }
    }
}

/// In a function body, drops the implicit returns (`Stmt::Return(None)`, marked by
/// structuring) that end the function anyway, giving back the `else` of an `if`
/// whose branch ended in one: `if c: A; return` + `B` at the end of a function is
/// `if c: A else: B`, which compiles back to the copied returns (CPython 3.10+
/// copies the implicit return into each branch, `Python/compile.c`
/// `duplicate_exits_without_lineno`); an explicit `return` would be one shared
/// block. `body` must be in tail position (falling off its end ends the function).
fn drop_tail_returns(body: &mut Vec<Stmt>) {
    let is_implicit = |s: &Stmt| matches!(s, Stmt::Return(None));
    let mut i = 0;
    while i < body.len() {
        let more = i + 1 < body.len();
        if let Stmt::If(_, a, e) = &mut body[i] {
            if a.last().is_some_and(is_implicit) && e.is_empty() && more {
                let rest: Vec<Stmt> = body.drain(i + 1..).collect();
                if let Stmt::If(_, _, e) = &mut body[i] {
                    *e = rest;
                }
            }
        }
        i += 1;
    }
    if body.last().is_some_and(is_implicit) {
        body.pop();
    }
    match body.last_mut() {
        Some(Stmt::If(_, a, e)) => {
            drop_tail_returns(a);
            drop_tail_returns(e);
        }
        // Falling off the end of a `try` body (into its `else` when it has one), of
        // a handler or of a `with` body in tail position ends the function too (after
        // the `finally` and `__exit__`, as the return would). Not a `finally` body,
        // whose `return` swallows the exception being raised.
        Some(Stmt::Try(b, hs, e, _)) => {
            drop_tail_returns(if e.is_empty() { b } else { e });
            for h in hs.iter_mut() {
                drop_tail_returns(&mut h.body);
            }
        }
        Some(Stmt::With(_, b)) => drop_tail_returns(b),
        _ => {}
    }
}

/// Whether `ir` ends with a `return None` that no path reaches: CPython 3.8-3.9 add
/// it after the last statement unless that statement is a `return` (`Python/compile.c`
/// `assemble`, `if (!c->u->u_curblock->b_return)`), so it stays after an `if`/`else`
/// whose branches all return, and the peephole optimizer keeps it (a jump target
/// starts its block). A heuristic that only chooses between two forms that run
/// the same (see [`final_else`]).
fn dead_final_return(code: &CodeObject, ir: &[depyf_ir::IrInstr]) -> bool {
    let [.., before, load, ret] = ir else { return false };
    let Op::LoadConst(k) = load.op else { return false };
    matches!(code.co_consts.get(k), Some(Constant::None))
        && ret.op == Op::Return
        && matches!(before.op, Op::Return | Op::Raise(_))
        // Only unreachable jumps go there (3.8-3.9 keep the `JUMP_FORWARD` that ends
        // an `if` branch after its `raise`, and `POP_EXCEPT; JUMP_FORWARD` after the
        // `raise` that ends an `except` clause).
        && ir.iter().enumerate().all(|(k, i)| {
            let before = |n: usize| k >= n && matches!(ir[k - n].op, Op::Return | Op::Raise(_) | Op::Reraise);
            i.op.jump_target() != Some(load.offset) || before(1) || before(2) && ir[k - 1].op == Op::PopExcept
        })
}

/// The statements after the last compound statement of a function body that can
/// take them as its `else`, when they end in a `return`, become that `else`: after
/// `if c: A` (`A` never falls through), after `try`/`except` whose handlers never fall
/// through. Each pair runs the same; only the `else` form leaves the unreachable
/// `return None` that [`dead_final_return`] found (CPython 3.8-3.9 add it when the
/// last statement is not a `return`; after a loop's `else` the peephole optimizer
/// drops it), so the source wrote that form.
pub(crate) fn final_else(body: &mut Vec<Stmt>) {
    if !matches!(body.last(), Some(Stmt::Return(_))) {
        return;
    }
    let takes_else = |s: &Stmt| match s {
        Stmt::If(_, a, e) => e.is_empty() && structure::ends_control(a),
        Stmt::Try(_, hs, e, f) => !hs.is_empty() && e.is_empty() && f.is_empty() && hs.iter().all(|h| structure::ends_control(&h.body)),
        _ => false,
    };
    let Some(k) = body.iter().rposition(takes_else) else { return };
    if k + 1 >= body.len() {
        return;
    }
    let tail: Vec<Stmt> = body.drain(k + 1..).collect();
    if let Some(Stmt::If(_, _, e) | Stmt::Try(_, _, e, _)) = body.last_mut() {
        *e = tail;
    }
}

/// Whether a module or class body still has a `return` (inside a loop): structuring
/// copied the body's end into a loop exit, which such a body cannot express.
fn loop_return(body: &[Stmt]) -> bool {
    fn walk(body: &[Stmt], in_loop: bool) -> bool {
        body.iter().any(|s| match s {
            Stmt::Return(_) => in_loop,
            Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => walk(a, true) || walk(b, true),
            Stmt::If(_, a, b) => walk(a, in_loop) || walk(b, in_loop),
            Stmt::Try(b, hs, e, f) => walk(b, in_loop) || hs.iter().any(|h| walk(&h.body, in_loop)) || walk(e, in_loop) || walk(f, in_loop),
            Stmt::With(_, b) => walk(b, in_loop),
            _ => false,
        })
    }
    walk(body, false)
}

/// Recovers the body of `code` (any CPython 3.8-3.15 code object) as statements,
/// without the `def`/`class` header; nested functions that fail become stubs when
/// `options.stub_failures` is set.
///
/// Errors: [`DecompileError`] naming the code object, offset and opname of the first
/// instruction or shape that cannot be decompiled, or malformed bytecode.
pub fn recover_body(code: &CodeObject, options: &Options) -> Result<Vec<Stmt>, DecompileError> {
    recover_body_in(code, options, &std::cell::RefCell::default())
}

/// [`recover_body`], adding the stubbed nested functions to `failures`.
pub(crate) fn recover_body_in(
    code: &CodeObject,
    options: &Options,
    failures: &std::cell::RefCell<Vec<Failure>>,
) -> Result<Vec<Stmt>, DecompileError> {
    recover_body_with(code, options, failures, false)
}

/// [`recover_body_in`]; `class_annotate` reads lookups through the class namespace
/// cell as plain names (see `recover::Naming::class_annotate`).
pub(crate) fn recover_body_with(
    code: &CodeObject,
    options: &Options,
    failures: &std::cell::RefCell<Vec<Failure>>,
    class_annotate: bool,
) -> Result<Vec<Stmt>, DecompileError> {
    let (mut body, ir, rec) = structured(code, options, failures, class_annotate)?;
    let at = |m: &str| DecompileError::new(code, 0, "", m);
    // The recovered blocks share the nested definitions with `body`: dropped here so
    // that binding them to names moves them instead of copying.
    let recover::Recovered { blocks, globals_stored, nonlocals_stored } = rec;
    drop(blocks);
    idioms::rotated_while(&mut body);
    if code.version >= depyf_bytecode::PythonVersion::PY314 {
        idioms::top_tested_while(&mut body);
    }
    idioms::asserts(&mut body);
    idioms::kept_test_returns(&mut body);
    // (Whether a marker name may be left, told by the walks of `bind`; see
    // `leftover_marker`. Likewise whether a negated test is there to fold: the walks
    // of `fold_negated_tests` change nothing without one.)
    let mut any_marker = false;
    let mut any_negated = false;
    let mut any_double_negated = false;
    definitions::bind(&mut body, &mut |e| {
        any_marker |= matches!(e, Expr::Name(n) if is_marker(n));
        any_negated |= definitions::negated_test(e);
        any_double_negated |= idioms::double_negated(e);
    })
    .map_err(|m| at(&m))?;
    if any_double_negated {
        idioms::double_negated_tests(&mut body);
    }
    if any_negated {
        definitions::fold_negated_tests(code, &mut body);
    }
    definitions::future_annotations(code, &mut body);
    // Idioms: the implicit `return None` at the end of a function body.
    idioms::merge_tails(&mut body);
    let is_function = code.co_flags & (co_flags::OPTIMIZED | co_flags::NEWLOCALS) != 0;
    // 3.8-3.9: an unreachable `return None` ends the code when the last statement was
    // not a `return`: a `return None` before it is one the source wrote.
    let dead_final = is_function && code.version <= depyf_bytecode::PythonVersion::PY39 && dead_final_return(code, &ir);
    if dead_final {
        final_else(&mut body);
    } else if matches!(body.last(), Some(Stmt::Return(None | Some(Expr::Const(Constant::None))))) {
        body.pop();
    }
    if is_function {
        drop_tail_returns(&mut body);
    }
    if code.co_flags & (co_flags::OPTIMIZED | co_flags::NEWLOCALS) == 0 {
        drop_implicit_returns(&mut body);
        if loop_return(&body) {
            return Err(at("a loop exit of a module or class body that leads to its end (for/else with break) is not supported yet"));
        }
    }
    if let Some(m) = leftover_marker(&body, any_marker) {
        return Err(at(&format!("a construct that recovery could not shape (`{m}` left in the output)")));
    }
    // A generator whose yields the compiler dropped as dead code (`return; yield`,
    // `if False: yield`) is still a generator: `if False: yield` keeps it one and
    // compiles to nothing.
    if code.co_flags & (co_flags::GENERATOR | co_flags::ASYNC_GENERATOR) != 0 && !ir.iter().any(|i| matches!(i.op, Op::Yield | Op::YieldFrom)) {
        body.push(Stmt::If(Expr::Const(Constant::Bool(false)), vec![Stmt::Expr(Expr::Yield(None))], Vec::new()));
    }
    // An async generator may only `return` without a value (a SyntaxError otherwise,
    // even for `return None`); every return it has returns None.
    if code.co_flags & co_flags::ASYNC_GENERATOR != 0 {
        bare_returns(&mut body);
    }
    // Declarations from the ops themselves, so that stores folded into larger
    // statements (augmented assignment, imports) are declared too.
    let (mut globals, mut nonlocals) = (globals_stored, nonlocals_stored);
    for i in &ir {
        match i.op {
            Op::StoreGlobal(n) | Op::DeleteGlobal(n) => {
                globals.insert(code.co_names[n].to_string());
            }
            Op::StoreDeref(n) | Op::DeleteDeref(n) if code.co_localspluskinds[n] & depyf_bytecode::local_kind::FREE != 0 => {
                nonlocals.insert(code.co_localsplusnames[n].to_string());
            }
            _ => {}
        }
    }
    // The docstring must be the first statement (before `global`/`nonlocal`, which
    // are statements too): a string after them is an expression statement and the
    // function would lose its `__doc__` (CPython `Python/compile.c`, docstring of a
    // body = first statement only).
    let mut decls = Vec::new();
    if let Some(doc) = code.docstring() {
        decls.push(Stmt::Expr(Expr::Const(Constant::Str(doc.into()))));
    }
    if !globals.is_empty() && code.co_name != "<module>" {
        decls.push(Stmt::Global(globals.into_iter().collect()));
    }
    if !nonlocals.is_empty() {
        decls.push(Stmt::Nonlocal(nonlocals.into_iter().collect()));
    }
    decls.extend(body);
    Ok(decls)
}

/// The statements of `code` as structuring leaves them (markers of definitions and
/// other shapes not yet turned into statements), with its IR and recovery.
fn structured(
    code: &CodeObject,
    options: &Options,
    failures: &std::cell::RefCell<Vec<Failure>>,
    class_annotate: bool,
) -> Result<(Vec<Stmt>, Vec<depyf_ir::IrInstr>, recover::Recovered), DecompileError> {
    // Decoded once for both (a decoding error is normalization's, after validation's).
    let decoded = depyf_bytecode::decode(code);
    validate(code, Some(decoded.as_deref().unwrap_or_default()))?;
    // The ranges come from the code, before inlined comprehensions are outlined and
    // match patterns rewritten (a case body may hold a comprehension; no pattern is
    // inside one).
    let ins = decoded.map_err(|e| depyf_ir::IrError::from_bytecode(code, e))?;
    let (ir, ranges) = depyf_ir::normalize_decoded_with_ranges(code, &ins)?;
    drop(ins);
    let (mut ir, inlined, saved) = inline_comp::outline(code, ir, options)?;
    let marked = inline_comp::mark_hidden(code, &ir, &saved);
    let code = marked.as_ref().unwrap_or(code);
    let cases = patterns::rewrite(code, &mut ir);
    let cfg = build_cfg(code, &ir, &ranges)?;
    let naming = recover::Naming { const_prefix: &options.const_prefix, stub_failures: options.stub_failures, failures, class_annotate, inlined: &inlined, iter_temps: false };
    let at = |m: &str| DecompileError::new(code, 0, "", m);
    // Control flow that no structure fits becomes a state machine (see
    // `state_machine`); forced on every function it applies to for its tests.
    let machine = cases.is_empty() && state_machine::applies(code, &cfg, class_annotate);
    let stubs_before = failures.borrow().len();
    let as_machine = || {
        failures.borrow_mut().truncate(stubs_before);
        let naming = recover::Naming { iter_temps: true, ..naming };
        let rec = recover::recover(code, &ir, &cfg, &naming).map_err(|e| e.message)?;
        let body = state_machine::build(&cfg, &rec)?;
        Ok::<_, String>((body, rec))
    };
    if machine && state_machine::forced(&cfg) {
        if let Ok((body, rec)) = as_machine() {
            return Ok((body, ir, rec));
        }
        failures.borrow_mut().truncate(stubs_before);
    }
    // (`as_machine` recovers nested functions again, listing their stubs anew.)
    // Structured moving each block's statements into the output at its first
    // emission; where a decision reads a block after that (`Structurer::read_moved`,
    // about one code object in a thousand), recovered and structured again with
    // copies.
    #[cfg(not(test))]
    let moves = true;
    #[cfg(test)]
    let moves = !tests::COPIES_ONLY.with(std::cell::Cell::get);
    let (rec, region) = structure::recover_and_structure(
        &cfg,
        &ir,
        code,
        moves,
        || {
            // (A second recovery lists the stubs of nested functions anew.)
            failures.borrow_mut().truncate(stubs_before);
            recover::recover(code, &ir, &cfg, &naming)
        },
        |st| {
            let body = st.region(depyf_cfg::BlockId(0), None, &at)?;
            // (Only code with handlers has `except` clauses.)
            match (!ranges.is_empty()).then(|| read_after_unbind(&body)).flatten() {
                Some(name) => Err(at(&format!("the code after an `except ... as {name}` clause reads `{name}`, which the clause unbinds (its value was read inside the clause)"))),
                None => Ok(body),
            }
        },
    )?;
    let mut body = match region {
        Ok(body) => body,
        Err(e) => {
            // The stubs of nested functions stay those of the first recovery when
            // the state machine fails too.
            let saved = failures.borrow().clone();
            if !machine {
                let mut e = e;
                if cases.is_empty() && state_machine::refused_for_handlers(code, &cfg, class_annotate) {
                    e.message = format!("{}; {}", e.message, state_machine::HANDLERS_NOTE);
                }
                return Err(e);
            }
            match as_machine() {
                Ok((body, rec)) => return Ok((body, ir, rec)),
                Err(m) => {
                    *failures.borrow_mut() = saved;
                    return Err(DecompileError { message: format!("{}; the state-machine fallback failed too: {m}", e.message), ..e });
                }
            }
        }
    };
    if !cases.is_empty() {
        patterns::fold(&mut body, &cases).map_err(|m| at(&format!("match statement: {m}")))?;
        patterns::inline_subject_temps(&mut body);
    }
    Ok((body, ir, rec))
}

/// The name of an `except E as name` clause that a `return` right after its `try`
/// reads, when nothing else in the `try` statement names it: the clause unbinds the
/// name as it ends (CPython `compiler_try_except`), so such a read is of a value that
/// the bytecode took inside the clause and structuring placed after it (a `return
/// name` of the clause inside a `with`, CPython 3.11+). `None` when no such read is
/// found. Nested `def` and `class` bodies are left to their own structuring.
fn read_after_unbind(body: &[Stmt]) -> Option<&str> {
    for (i, s) in body.iter().enumerate() {
        let nested: Vec<&[Stmt]> = match s {
            Stmt::Try(b, hs, e, f) => {
                // (A read nested deeper, such as a `try: return name` that tests whether
                // the name is bound, is the program's own.)
                if let Some(Stmt::Return(Some(value))) = body.get(i + 1) {
                    for name in hs.iter().filter_map(|h| h.name.as_deref()) {
                        let mut reads = false;
                        value.walk(&mut |x| reads |= x.is_name(name));
                        let mut named = false;
                        for x in b.iter().chain(e).chain(f).chain(hs.iter().flat_map(|o| &o.body)) {
                            x.walk_exprs(&mut |x| named |= x.is_name(name));
                        }
                        if reads && !named {
                            return Some(name);
                        }
                    }
                }
                [b, e, f].into_iter().map(|x| &x[..]).chain(hs.iter().map(|h| &h.body[..])).collect()
            }
            Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => vec![a, b],
            Stmt::With(_, b) => vec![b],
            Stmt::Match(_, cases) => cases.iter().map(|c| &c.body[..]).collect(),
            _ => continue,
        };
        if let Some(name) = nested.into_iter().find_map(read_after_unbind) {
            return Some(name);
        }
    }
    None
}

/// The body of a PEP 695 `<generic parameters of ...>` function as structuring leaves
/// it, for `definitions::generic` to read (it makes a definition, not source). Made
/// in a class body, it reads the class's names through the `__classdict__` cell.
pub(crate) fn generic_params_body(code: &CodeObject, options: &Options, failures: &std::cell::RefCell<Vec<Failure>>) -> Result<Vec<Stmt>, DecompileError> {
    let in_class = code.co_freevars().iter().any(|n| *n == "__classdict__");
    structured(code, options, failures, in_class).map(|(body, _, _)| body)
}

/// `return None` becomes `return`, in `body` and the statements nested in it (not in
/// nested functions or classes, which have returns of their own).
fn bare_returns(body: &mut [Stmt]) {
    for s in body {
        match s {
            Stmt::Return(r @ Some(Expr::Const(Constant::None))) => *r = None,
            Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                bare_returns(a);
                bare_returns(b);
            }
            other => other.bodies_mut().into_iter().for_each(|b| bare_returns(b)),
        }
    }
}

/// The CFG of `ir` with `ranges`, the protected ranges of `code` (`depyf_ir::protected_ranges`), as exception edges.
fn build_cfg(code: &CodeObject, ir: &[depyf_ir::IrInstr], ranges: &[depyf_bytecode::ExceptionTableEntry]) -> Result<Cfg, DecompileError> {
    let ranges: Vec<depyf_cfg::Range> = ranges.iter().map(|r| (r.start, r.end, r.target, r.depth, r.lasti)).collect();
    Cfg::build_with_ranges(ir, &ranges).map_err(|e| DecompileError::new(code, 0, "", e.to_string()))
}

/// Decompiles `code` into a complete definition (or a module body for `<module>`).
///
/// Errors: see [`recover_body`].
pub fn decompile(code: &CodeObject, options: &Options) -> Result<Decompiled, DecompileError> {
    // Compiler-made functions of 3.14+ annotations and type aliases: the source
    // they come from. Other compiler-made functions (3.12+ type aliases and
    // annotations take `.format`) have parameters no source can name.
    if let Some(body) = definitions::compiler_made_source(code, options)? {
        let source = future_header(&body) + &print_body(&body, 0);
        return Ok(Decompiled { opaque_constants: opaque_constants(code, options, &source), source, body, failures: Vec::new() });
    }
    if !code.co_name.starts_with('<') {
        let params = &code.co_localsplusnames[..code.total_argcount().min(code.co_localsplusnames.len())];
        // (Other names no source can spell are refused by `validate`, naming the
        // instruction that uses them.)
        if let Some(bad) = params.iter().find(|n| n.starts_with('.')) {
            return Err(DecompileError::new(code, 0, "", format!("a compiler-made function whose parameter `{bad}` has no source name")));
        }
    }
    if matches!(code.co_name.as_str(), "<listcomp>" | "<setcomp>" | "<dictcomp>" | "<genexpr>") {
        // A comprehension on its own: the expression, over an iterable named `_iter_`
        // (the caller computes the real one), so that it compiles to such a code
        // object again.
        let mut comp = definitions::comprehension(code, options)?;
        if let Expr::Comp(_, _, gens) | Expr::DictComp(_, _, gens) = &mut comp {
            gens[0].iter = Expr::name("_iter_");
        }
        let mut body = vec![Stmt::Expr(comp)];
        definitions::fold_negated_tests(code, &mut body);
        return Ok(Decompiled { source: print_body(&body, 0), body, opaque_constants: Vec::new(), failures: Vec::new() });
    }
    let failures = std::cell::RefCell::default();
    if code.co_name.starts_with("<generic parameters of ") {
        // A PEP 695 parameters function on its own: the generic definition it makes,
        // which compiles to such a function again.
        let def = definitions::generic_standalone(code, generic_params_body(code, options, &failures)?)?;
        let body = vec![def];
        let source = future_header(&body) + &print_body(&body, 0);
        return Ok(Decompiled { opaque_constants: opaque_constants(code, options, &source), source, body, failures: failures.into_inner() });
    }
    let mut body = recover_body_in(code, options, &failures)?;
    // Private names under the classes that the body defines, as written.
    mangling::demangle(code, &mut body);
    let source = if code.co_name == "<module>" {
        // The module docstring: `__doc__ = '...'` first is how the compiler stores it.
        // Printed as a docstring by swapping the first statement for the printing
        // only (the module body holds every nested definition: no deep clone).
        let doc = match body.first() {
            Some(Stmt::Assign(t, v @ Expr::Const(Constant::Str(_)))) if matches!(t.as_slice(), [Expr::Name(n)] if n == "__doc__") => Some(Stmt::Expr(v.clone())),
            _ => None,
        };
        match doc {
            Some(doc) => {
                let assign = std::mem::replace(&mut body[0], doc);
                let source = print_body(&body, 0);
                body[0] = assign;
                source
            }
            None => print_body(&body, 0),
        }
    } else if let Some(e) = (code.co_name == "<lambda>").then(|| definitions::lambda_body(&body)).flatten() {
        // A lambda on its own: an assignment of the lambda expression, so that the
        // recompiled code object is a `<lambda>` again.
        let name = options.function_name.clone().unwrap_or_else(|| "_lambda_".into());
        let lambda = Expr::Lambda(Box::new(arguments(code)), Box::new(e));
        print_body(&[Stmt::Assign(vec![Expr::Name(name.into())], lambda)], 0)
    } else if code.co_flags & (co_flags::OPTIMIZED | co_flags::NEWLOCALS) == 0 {
        // A class body (module-like scope with a name): `class Name:` and its body.
        // Bases and keywords are arguments of the class creation, not of this code.
        let class_body = definitions::class_body(code, body.clone());
        if definitions::is_generic_class_body(&class_body) {
            return Err(DecompileError::new(
                code,
                0,
                "",
                "the body of a generic class (PEP 695) on its own: its type parameters are named in the `<generic parameters of ...>` function that makes the class; decompile that or the enclosing code",
            ));
        }
        let name = options.function_name.clone().unwrap_or_else(|| code.co_name.clone());
        let mut class = [Stmt::ClassDef(name, Vec::new(), Vec::new(), class_body, Vec::new())];
        mangling::demangle(code, &mut class);
        print_body(&class, 0)
    } else {
        let name = options.function_name.clone().unwrap_or_else(|| code.co_name.clone());
        // The body moves into the `def` for printing and back out (no deep clone).
        let def = [Stmt::FunctionDef(name, Box::new(arguments(code)), body)];
        let source = print_body(&def, 0);
        let [Stmt::FunctionDef(_, _, b)] = def else { unreachable!("built above") };
        body = b;
        source
    };
    // A module body keeps its own `from __future__` import.
    let source = if code.co_name == "<module>" { source } else { future_header(&body) + &source };
    let opaque_constants = opaque_constants(code, options, &source);
    Ok(Decompiled { source, body, opaque_constants, failures: failures.into_inner() })
}

/// `from __future__ import annotations` and a newline when `body` prints an
/// annotation as the text the compiler stored under that import
/// (`definitions::future_annotations`): the text means the same only under it.
/// Empty otherwise.
fn future_header(body: &[Stmt]) -> String {
    let mut found = false;
    for s in body {
        s.walk_exprs(&mut |e| found |= matches!(e, Expr::SourceText(_)));
    }
    if found { "from __future__ import annotations\n".into() } else { String::new() }
}

/// The names `source` gives to constants of `code` that have no literal form
/// (`<const_prefix>_<index>`), with their indices in `co_consts`.
fn opaque_constants(code: &CodeObject, options: &Options, source: &str) -> Vec<(String, usize)> {
    // Read in one pass: looking for each name in turn read the whole source once per
    // constant (a module has one per function and class).
    let suffixes = digits_after(source, &format!("{}_", options.const_prefix));
    code.co_consts
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c, Constant::Opaque { .. } | Constant::Code(_) | Constant::Slice(_)))
        .filter(|(i, _)| {
            // The source contains `<const_prefix>_<i>` exactly when the digits after
            // one `<const_prefix>_` start with those of `i`.
            let i = i.to_string();
            suffixes.iter().any(|d| d.starts_with(&i))
        })
        .map(|(i, _)| (format!("{}_{i}", options.const_prefix), i))
        .collect()
}

/// The run of ASCII digits (maybe empty) after each occurrence of `head` in `text`,
/// overlapping occurrences included, in order.
/// (A `memmem` finder: `str::find` read a module's source a byte at a time.)
fn digits_after<'a>(text: &'a str, head: &str) -> Vec<&'a str> {
    let step = head.chars().next().map_or(1, char::len_utf8);
    let finder = memchr::memmem::Finder::new(head);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = finder.find(&text.as_bytes()[from..]) {
        let at = from + p + head.len();
        let digits = text[at..].bytes().take_while(u8::is_ascii_digit).count();
        out.push(&text[at..at + digits]);
        from += p + step;
        if from > text.len() {
            break;
        }
    }
    out
}

/// The stub that stands for `code` when it cannot be decompiled: `def name(params):`
/// raising `RuntimeError('depyf could not decompile <qualname>: <reason>')` (see
/// [`Options::stub_failures`]).
///
/// A name that source cannot spell (see [`spellable`]) is written in a spelled form, so
/// that the stub compiles.
pub fn stub_source(code: &CodeObject, reason: &str) -> String {
    let msg = format!("depyf could not decompile {}: {reason}", code.co_qualname);
    let exc = Expr::Call(Box::new(Expr::name("RuntimeError")), vec![Expr::Const(Constant::Str(msg.into()))], vec![]);
    print_body(&[Stmt::FunctionDef(spellable(&code.co_name), Box::new(spellable_arguments(arguments(code))), vec![Stmt::Raise(Some(exc), None)])], 0)
}

/// `name` when source can spell it ([`is_identifier`]), else `__depyf_name_<hex>__`
/// with the hexadecimal UTF-8 bytes of `name` (`not` → `__depyf_name_6e6f74__`): the
/// name of a stub whose code object has a name no source can spell.
pub(crate) fn spellable(name: &str) -> String {
    if is_identifier(name) {
        return name.to_string();
    }
    let hex: String = name.bytes().map(|b| format!("{b:02x}")).collect();
    format!("__depyf_name_{hex}__")
}

/// `args` with every parameter name made [`spellable`] (the parameters of a stub).
pub(crate) fn spellable_arguments(mut args: Arguments) -> Arguments {
    let fix = |n: &mut String| {
        if !is_identifier(n) {
            *n = spellable(n);
        }
    };
    args.posonly.iter_mut().chain(args.args.iter_mut()).chain(args.vararg.iter_mut()).chain(args.kwonly.iter_mut()).chain(args.kwarg.iter_mut()).for_each(fix);
    args
}

/// Whether source can spell `name` as a name: an identifier (Unicode `XID_Start` or
/// `_`, then `XID_Continue`, the rule of the Python Language Reference, "Identifiers and
/// keywords") that is not one of the keywords of Python 3.8-3.15 (soft keywords such as
/// `match` and `type` are names).
pub(crate) fn is_identifier(name: &str) -> bool {
    // Almost every name is ASCII: one table lookup per byte (every code object's
    // names are checked, issue #7 speed); a byte past ASCII sends it to the Unicode rule.
    const ASCII: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut i = 0;
        while i < 128 {
            let c = i as u8;
            t[i] = if c == b'_' || c.is_ascii_alphabetic() { 2 } else if c.is_ascii_digit() { 1 } else { 0 };
            i += 1;
        }
        t
    };
    let bytes = name.as_bytes();
    let spelled = match bytes.split_first() {
        None => return false,
        Some((&first, rest)) if ASCII[usize::from(first)] == 2 && rest.iter().all(|&c| ASCII[usize::from(c)] != 0) => true,
        Some(_) if name.is_ascii() => return false,
        Some(_) => {
            let mut chars = name.chars();
            chars.next().is_some_and(|c| c == '_' || unicode_ident::is_xid_start(c)) && chars.all(unicode_ident::is_xid_continue)
        }
    };
    spelled && !is_keyword(name)
}

/// Whether `name` is a keyword of Python 3.8-3.15 (`async` and `await` are keywords
/// from 3.7 on; CPython `Lib/keyword.py`).
pub(crate) fn is_keyword(name: &str) -> bool {
    // By length, then first byte before comparing: one or two byte comparisons for
    // most names (a 35-arm `match` compared whole strings one by one).
    const BY_LEN: [&[&str]; 9] = [
        &[],
        &[],
        &["as", "if", "in", "is", "or"],
        &["and", "def", "del", "for", "not", "try"],
        &["None", "True", "elif", "else", "from", "pass", "with"],
        &["False", "async", "await", "break", "class", "raise", "while", "yield"],
        &["assert", "except", "global", "import", "lambda", "return"],
        &["finally"],
        &["continue", "nonlocal"],
    ];
    let first = name.as_bytes().first().copied();
    BY_LEN.get(name.len()).is_some_and(|ks| ks.iter().any(|k| k.as_bytes().first().copied() == first && *k == name))
}

/// Renames `__temp_<n>` by order of first appearance so that two recoveries compare
/// equal when they differ only in how temporaries were numbered; drops the line
/// number a 3.13+ class body stores in `__firstlineno__`; reads a bare `return` (an
/// implicit return that structuring kept) as `return None`.
fn canonical_temps(text: &str) -> String {
    let kept: Vec<String> = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("__firstlineno__ = "))
        .map(|l| if l.trim() == "return" { format!("{l} None") } else { l.to_string() })
        .collect();
    let text = kept.join("\n") + "\n";
    let mut map: Vec<(String, String)> = Vec::new();
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        let boundary = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if boundary && text[i..].starts_with("__temp_") {
            let mut j = i + "__temp_".len();
            while j < text.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            if text[j..].starts_with("__") {
                j += 2;
            }
            let old = &text[i..j];
            let new = match map.iter().find(|(o, _)| o == old) {
                Some((_, n)) => n.clone(),
                None => {
                    let n = format!("__temp_{}__", map.len());
                    map.push((old.to_string(), n.clone()));
                    n
                }
            };
            out.push_str(&new);
            i = j;
        } else {
            let ch = text[i..].chars().next().expect("in bounds");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// Compares `original` with `recompiled` (the decompiled source compiled again):
/// [`Verdict::Identical`] when their normalized instruction streams are equal,
/// [`Verdict::Equivalent`] when both recover to the same statements on the same
/// control flow once temporaries are renumbered (stack shuffles, NOPs and compiler
/// temporaries do not count), else [`Verdict::Differs`] with the first differing
/// line. The second string is a human-readable detail.
pub fn compare(original: &CodeObject, recompiled: &CodeObject, options: &Options) -> (Verdict, String) {
    // Set displays of constants are compared whatever order their frozenset holds.
    let (original, recompiled) = (&*sorted_frozensets(original), &*sorted_frozensets(recompiled));
    if let (Ok(a), Ok(b)) = (normalize(original), normalize(recompiled)) {
        if depyf_ir::stream::stream(original, &a) == depyf_ir::stream::stream(recompiled, &b) {
            return (Verdict::Identical, "normalized instruction streams are equal".into());
        }
    }
    let a = match recover_body(original, options) {
        Ok(b) => canonical_temps(&print_body(&b, 0)),
        Err(e) => return (Verdict::Differs, format!("the original cannot be recovered: {e}")),
    };
    let b = match recover_body(recompiled, options) {
        Ok(b) => canonical_temps(&print_body(&b, 0)),
        Err(e) => return (Verdict::Differs, format!("the recompiled code cannot be recovered: {e}")),
    };
    if a == b {
        // Structuring can map different programs to the same source (and the
        // recompiled code recovers to it again): the statements of each block must
        // also run under the same exception handlers.
        if let (Ok(pa), Ok(pb)) = (handler_profile(original, options), handler_profile(recompiled, options)) {
            // Statements that only one side has (block-level recovery is less
            // canonical than the structured source) are not compared.
            let depths = |p: &std::collections::BTreeSet<(usize, String)>, t: &str| p.iter().filter(|(_, x)| x == t).map(|(d, _)| *d).collect::<Vec<_>>();
            for (_, t) in pa.iter() {
                let (da, db) = (depths(&pa, t), depths(&pb, t));
                if !db.is_empty() && da != db {
                    return (Verdict::Differs, format!("a statement runs under other exception handlers: `{}` under {da:?} handler(s) in the original, {db:?} recompiled", t.trim()));
                }
            }
        }
        return (Verdict::Equivalent, "same calls, loads, stores, returns and branches after recovery".into());
    }
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let at = la.iter().zip(&lb).position(|(x, y)| x != y).unwrap_or(la.len().min(lb.len()));
    (
        Verdict::Differs,
        format!(
            "recovered statement {} differs: original `{}`, recompiled `{}`",
            at + 1,
            la.get(at).map_or("<end>", |s| s.trim()),
            lb.get(at).map_or("<end>", |s| s.trim())
        ),
    )
}

/// `code` with the items of every `frozenset` constant (in it and in the code objects
/// nested in it) sorted, or `code` itself when it has none. A set display of
/// constants (`x in {'a', 'b'}`) compiles to a frozenset whose iteration order
/// follows the string hashes of the interpreter that compiled it (`PYTHONHASHSEED`):
/// the original and the recompiled code, compiled by two processes, may hold the
/// same set in two orders, which recover to two different-looking displays.
fn sorted_frozensets(code: &CodeObject) -> std::borrow::Cow<'_, CodeObject> {
    fn has_set(c: &Constant) -> bool {
        match c {
            Constant::FrozenSet(_) => true,
            Constant::Tuple(items) => items.iter().any(has_set),
            Constant::Code(code) => code.co_consts.iter().any(has_set),
            _ => false,
        }
    }
    fn sorted(c: &Constant) -> Constant {
        match c {
            Constant::FrozenSet(items) => {
                let mut items: Vec<Constant> = items.iter().map(sorted).collect();
                items.sort_by_cached_key(|c| format!("{c:?}"));
                Constant::FrozenSet(items)
            }
            Constant::Tuple(items) => Constant::Tuple(items.iter().map(sorted).collect()),
            Constant::Code(code) if code.co_consts.iter().any(has_set) => Constant::Code(std::sync::Arc::new(sorted_frozensets(code).into_owned())),
            c => c.clone(),
        }
    }
    if !code.co_consts.iter().any(has_set) {
        return std::borrow::Cow::Borrowed(code);
    }
    let mut owned = code.clone();
    owned.co_consts = code.co_consts.iter().map(sorted).collect();
    std::borrow::Cow::Owned(owned)
}

/// Each statement that recovery finds in a block of `code` (before structuring),
/// with the number of exception handlers that protect the block (the chain of
/// its protected range's handler, that handler's own, ...). Temporaries are all
/// named `__temp__`. [`compare`] needs these equal: structuring that moves code into
/// or out of a handler (3.12+ tails after `POP_EXCEPT` printed inside the
/// `except` clause) recovers to the same source but not to the same profile.
fn handler_profile(code: &CodeObject, options: &Options) -> Result<std::collections::BTreeSet<(usize, String)>, DecompileError> {
    validate(code, None)?;
    // The same ops as `structured` reads (inlined comprehensions, match cases).
    let (ir, ranges) = depyf_ir::normalize_with_ranges(code)?;
    let (mut ir, inlined, saved) = inline_comp::outline(code, ir, options)?;
    let marked = inline_comp::mark_hidden(code, &ir, &saved);
    let code = marked.as_ref().unwrap_or(code);
    patterns::rewrite(code, &mut ir);
    let cfg = build_cfg(code, &ir, &ranges)?;
    let failures = std::cell::RefCell::default();
    let naming = recover::Naming { const_prefix: &options.const_prefix, stub_failures: true, failures: &failures, class_annotate: false, inlined: &inlined, iter_temps: false };
    let rec = recover::recover(code, &ir, &cfg, &naming)?;
    let mut out = std::collections::BTreeSet::new();
    for (i, blk) in rec.blocks.iter().enumerate() {
        if blk.error.is_some() {
            continue;
        }
        let mut depth = 0;
        let mut h = cfg.blocks[i].handler;
        while let Some(e) = h {
            depth += 1;
            if depth > 64 {
                break;
            }
            h = cfg.blocks[e.target.index()].handler;
        }
        for s in &blk.stmts {
            // A pop is one statement whether or not a value waits above it.
            let text = print_body(std::slice::from_ref(s), 0).replace(recover::markers::POP_EXCEPT_HELD, recover::markers::POP_EXCEPT);
            out.insert((depth, one_temp_name(&text)));
        }
    }
    Ok(out)
}

/// `text` with every `__temp_N__` written `__temp__`.
fn one_temp_name(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("__temp_") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 7..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with("__") {
            out.push_str("__temp__");
            rest = &after[digits + 2..];
        } else {
            out.push_str("__temp_");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{canonical_temps, digits_after, is_identifier, is_keyword, spellable};
    use std::cell::Cell;

    thread_local! {
        /// Makes `structured` copy each block's statements from the start, as it
        /// does after a decision read a moved block.
        pub(crate) static COPIES_ONLY: Cell<bool> = const { Cell::new(false) };
        /// How many times `structured` structured a code object again with copies.
        pub(crate) static RESTARTS: Cell<usize> = const { Cell::new(0) };
    }

    /// Moving each block's statements into the output at its first emission gives
    /// the source that copying them gives, on every fixture of every version,
    /// including the code objects where a decision reads a moved block and the
    /// code is structured again (the `loops` fixture of 3.10-3.13 has one).
    #[test]
    fn moving_statements_gives_what_copying_gives() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/pyc");
        let mut files = 0;
        let mut restarts = 0;
        for dir in std::fs::read_dir(root).unwrap() {
            for file in std::fs::read_dir(dir.unwrap().path()).unwrap() {
                let path = file.unwrap().path();
                if path.extension().is_none_or(|e| e != "pyc") {
                    continue;
                }
                let module = depyf_bytecode::read_pyc(&std::fs::read(&path).unwrap()).unwrap().code;
                let options = super::Options::default();
                let moved = super::decompile(&module, &options).map(|d| d.source).map_err(|e| e.to_string());
                restarts = RESTARTS.with(Cell::get);
                COPIES_ONLY.with(|c| c.set(true));
                let copied = super::decompile(&module, &options).map(|d| d.source).map_err(|e| e.to_string());
                COPIES_ONLY.with(|c| c.set(false));
                // (Copies never read a moved block.)
                assert_eq!(RESTARTS.with(Cell::get), restarts, "{}", path.display());
                assert_eq!(moved, copied, "{}", path.display());
                files += 1;
            }
        }
        assert!(files >= 40, "{files} fixtures");
        assert!(restarts >= 4, "{restarts} code objects structured again");
    }

    /// The keywords of CPython 3.8-3.15 (`keyword.kwlist`), and names around them.
    #[test]
    fn identifiers_and_keywords() {
        let kwlist = "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield";
        for k in kwlist.split(' ') {
            assert!(is_keyword(k) && !is_identifier(k), "{k}");
        }
        for n in ["_", "x", "match", "case", "type", "print", "None_", "nott", "Def", "fo", "élan", "x1", "__class__", "_C__x"] {
            assert!(!is_keyword(n) && is_identifier(n), "{n}");
        }
        for n in ["", "1x", "a b", "a.b", "a-b", ".0", "<lambda>", "x\u{0}", "\u{2022}x"] {
            assert!(!is_identifier(n), "{n:?}");
        }
        assert!(is_identifier("\u{2160}"), "a letter number is XID_Start");
        assert_eq!(spellable("not"), "__depyf_name_6e6f74__");
        assert_eq!(spellable("ok"), "ok");
    }

    #[test]
    fn digits_after_finds_every_name_of_a_constant() {
        let text = "x = __const_12 + __const__const_3 + f(__const_)\n";
        assert_eq!(digits_after(text, "__const_"), vec!["12", "", "3", ""]);
        // The same answers as looking for each name in the text.
        for i in 0..40usize {
            let found = digits_after(text, "__const_").iter().any(|d| d.starts_with(&i.to_string()));
            assert_eq!(found, text.contains(&format!("__const_{i}")), "{i}");
        }
        assert_eq!(digits_after("ééé", "é"), vec!["", "", ""]);
        assert!(digits_after("", "__const_").is_empty());
    }

    /// Frozensets are sorted in the code, in tuples and in nested code objects; code
    /// without one is not copied.
    #[test]
    fn frozensets_are_sorted_at_every_depth() {
        use depyf_bytecode::Constant;
        use std::sync::Arc;
        let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/pyc/py312/basics.pyc");
        let mut module = depyf_bytecode::read_pyc(&std::fs::read(fixture).unwrap()).unwrap().code;
        module.co_consts = vec![Constant::None, Constant::Tuple(vec![Constant::Int(1)])];
        assert!(matches!(super::sorted_frozensets(&module), std::borrow::Cow::Borrowed(_)));
        let set = |items: &[&str]| Constant::FrozenSet(items.iter().map(|s| Constant::Str(Arc::from(*s))).collect());
        let mut inner = module.clone();
        inner.co_consts = vec![set(&["b", "a"])];
        let mut outer = module.clone();
        outer.co_consts = vec![Constant::Tuple(vec![set(&["z", "y", "x"])]), Constant::Code(Arc::new(inner)), Constant::None];
        let sorted = super::sorted_frozensets(&outer);
        assert_eq!(sorted.co_consts[0], Constant::Tuple(vec![set(&["x", "y", "z"])]));
        let Constant::Code(inner) = &sorted.co_consts[1] else { panic!("{:?}", sorted.co_consts[1]) };
        assert_eq!(inner.co_consts, vec![set(&["a", "b"])]);
        assert_eq!(sorted.co_consts[2], Constant::None);
    }

    #[test]
    fn temps_have_one_name_in_profiles() {
        assert_eq!(super::one_temp_name("__temp_12__ = a + __temp_3__\nx__temp_y"), "__temp__ = a + __temp__\nx__temp_y");
    }

    #[test]
    fn temps_are_renumbered_by_first_use() {
        assert_eq!(canonical_temps("__temp_7__ = a\nb = __temp_3__ + __temp_7__"), "__temp_0__ = a\nb = __temp_1__ + __temp_0__\n");
        assert_eq!(canonical_temps("x__temp_7"), "x__temp_7\n");
        assert_eq!(canonical_temps("__firstlineno__ = 81\nx = 1\n"), "x = 1\n");
    }
}
