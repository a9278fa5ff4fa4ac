//! Idioms: rewrites of structured statements into the forms a programmer writes.
//!
//! - shared tails: CPython copies a small exit block (`return 0`) into every jump
//!   to it, so structuring sees `if c: ...; return 0` followed by `return 0`; the
//!   copy inside the branch is dropped and the branch falls through to the tail.
//! - rotated loops: CPython 3.8+ compiles `while c: body` as a test before the loop
//!   and a copy of the test at its bottom, which structuring reads as
//!   `if c: while True: body; if not c: break`; this folds it back.

use depyf_bytecode::Constant;
use depyf_source::{Expr, Stmt};

use crate::recover::negate;

/// Folds `if c: while True: [...; if not c: break]` into `while c: [...]`,
/// and `if c: while True: [...; if not c: E; break] else: E` into
/// `while c: [...] else: E`, everywhere in `body`.
pub(crate) fn rotated_while(body: &mut Vec<Stmt>) {
    shared_exit_while(body);
    for s in body.iter_mut() {
        match s {
            Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                rotated_while(a);
                rotated_while(b);
            }
            Stmt::Try(..) | Stmt::With(..) => {
                for b in s.bodies_mut() {
                    rotated_while(b);
                }
            }
            _ => {}
        }
        tested_while(s);
        let Stmt::If(cond, then_body, else_body) = s else { continue };
        if then_body.len() != 1 {
            continue;
        }
        let Stmt::While(Expr::Const(Constant::Bool(true)), loop_body, loop_else) = &then_body[0] else { continue };
        if !loop_else.is_empty() {
            continue;
        }
        let loop_body = &continue_else_break(loop_body);
        let Some(Stmt::If(exit_cond, brk, exit_else)) = loop_body.last() else { continue };
        // `while c: ... else: E` (see `Structurer::rotated_while_else`): `E` is
        // written where the test before the loop fails and before the `break` of
        // the failed bottom test; a `break` of the body skips it, as from the
        // loop's `else`. (`E` without `break`/`continue` of its own, which would
        // mean different loops in the two places.)
        let orelse = else_body.clone();
        let mut exit_brk = orelse.clone();
        exit_brk.push(Stmt::Break);
        if !orelse.is_empty() && loop_exits(&orelse) {
            continue;
        }
        if !(*brk == exit_brk && exit_else.is_empty() && same_condition(exit_cond, &negate(cond.clone()))) {
            continue;
        }
        let exit_test = Stmt::If(exit_cond.clone(), exit_brk, Vec::new());
        let mut new_body = loop_body.clone();
        new_body.pop();
        // A `continue` that goes back to the top of the body without the test (the
        // `continue` of a `while True:` nested first in `while c:`, which CPython
        // lays out as one loop) would test `c` in `while c:`.
        if bare_continue(&new_body, &exit_test) {
            continue;
        }
        // A `continue` jumped to the bottom test, which structuring copied before it:
        // in `while c:` the `continue` alone re-tests `c`.
        fold_continue_tests(&mut new_body, &exit_test);
        // What is left of the test inside the body would test `c` once more.
        if contains_stmt(&new_body, &exit_test) {
            continue;
        }
        *s = Stmt::While(cond.clone(), new_body, orelse);
    }
}

/// `body` (of a `while True:` loop) with an ending `if c: continue` then `break`
/// written `if not c: break`: both go round again when `c` holds and leave the
/// loop otherwise. Structuring writes the bottom test of a rotated `while c:` that
/// way when the test is reached from several arms of an `if`/`elif` chain; the
/// second form is the one [`rotated_while`] folds.
fn continue_else_break(body: &[Stmt]) -> Vec<Stmt> {
    let mut out = body.to_vec();
    if let [.., Stmt::If(c, then_body, else_body), Stmt::Break] = body {
        if then_body.as_slice() == [Stmt::Continue] && else_body.is_empty() {
            out.truncate(body.len() - 2);
            out.push(Stmt::If(negate(c.clone()), vec![Stmt::Break], Vec::new()));
        }
    }
    out
}

/// Folds `while True: [if c: [...; continue]; break]` into `while c: [...]`: how
/// structuring reads a loop whose header tests `c` and leaves the loop when it is
/// false (CPython 3.8-3.9 `while c:`, which these versions don't rotate,
/// `Python/compile.c` `compiler_while`). Both forms test `c` first on every
/// iteration, run the body while it holds and leave otherwise.
fn tested_while(s: &mut Stmt) {
    let Stmt::While(Expr::Const(Constant::Bool(true)), body, orelse) = s else { return };
    if !orelse.is_empty() {
        return;
    }
    let Some(Stmt::If(cond, then_body, else_body)) = body.first() else { return };
    // The body may also be the one `if c: [...] else: [...; break]` (structuring
    // writes an `if` that ends the loop body with an `else`, see
    // `Structurer::loop_end_merge`): its then-branch goes round again by falling off
    // the body's end.
    let in_else = body.len() == 1 && !else_body.is_empty();
    if !in_else && (!else_body.is_empty() || then_body.last() != Some(&Stmt::Continue)) {
        return;
    }
    // What runs once `c` fails: the `else` clause, up to the `break` that leaves
    // the loop, or ending the function; without `break`/`continue` of its own
    // (they would mean the enclosing loop in an `else` clause).
    let mut orelse = if in_else { else_body.clone() } else { body[1..].to_vec() };
    match orelse.last() {
        Some(Stmt::Break) => {
            orelse.pop();
        }
        Some(Stmt::Return(_) | Stmt::Raise(..)) => {}
        _ => return,
    }
    if loop_exits(&orelse) {
        return;
    }
    let cond = cond.clone();
    let mut new_body = then_body.clone();
    crate::structure::drop_trailing_continue(&mut new_body);
    if new_body.is_empty() {
        new_body.push(Stmt::Pass);
    }
    *s = Stmt::While(cond, new_body, orelse);
}

/// CPython 3.14+: folds `while True: [if c: break; rest]` into `while not c: rest`
/// where that `while` ends the body of an enclosing loop (directly or as the last
/// statement of an `if` branch that ends it), everywhere in `body`. 3.14 compiles such
/// a `while c:`, whose exit goes back to the enclosing loop's header, with its test
/// at the top only, `POP_JUMP_IF_TRUE body; NOT_TAKEN; JUMP_BACKWARD outer`, the shape
/// structuring reads as that `while True:`; written `while True:` it would compile
/// with a `NOP` for the `while True:` line more (CPython 3.14 `Python/codegen.c`,
/// `codegen_while`). Elsewhere the exit jumps forward and `while c:` would compile
/// otherwise. Both forms test the condition before each iteration and leave when it
/// fails (`break` and `continue` in `rest` mean the same loop in both); only its
/// truth is used (`negate_test`).
pub(crate) fn top_tested_while(body: &mut [Stmt]) {
    top_tested_while_in(body, false);
}

/// [`top_tested_while`] on `body`; `loop_tail`: `body` ends the body of a loop.
fn top_tested_while_in(body: &mut [Stmt], loop_tail: bool) {
    let n = body.len();
    for (k, s) in body.iter_mut().enumerate() {
        let tail = loop_tail && k + 1 == n;
        match s {
            Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                top_tested_while_in(a, true);
                top_tested_while_in(b, false);
            }
            Stmt::If(_, a, b) => {
                top_tested_while_in(a, tail);
                top_tested_while_in(b, tail);
            }
            _ => {
                for b in s.bodies_mut() {
                    top_tested_while_in(b, false);
                }
            }
        }
        if !tail {
            continue;
        }
        let Stmt::While(Expr::Const(Constant::Bool(true)), loop_body, orelse) = s else { continue };
        if !orelse.is_empty() {
            continue;
        }
        let Some(Stmt::If(cond, brk, els)) = loop_body.first() else { continue };
        if brk.as_slice() != [Stmt::Break] || !els.is_empty() {
            continue;
        }
        let cond = crate::recover::negate_test(cond.clone());
        let mut rest = loop_body[1..].to_vec();
        if rest.is_empty() {
            rest.push(Stmt::Pass);
        }
        *s = Stmt::While(cond, rest, Vec::new());
    }
}

/// Whether `body` has a `break` or `continue` outside the loops nested in it.
fn loop_exits(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::Break | Stmt::Continue => true,
        Stmt::If(_, a, b) => loop_exits(a) || loop_exits(b),
        Stmt::Try(b, hs, e, f) => loop_exits(b) || hs.iter().any(|h| loop_exits(&h.body)) || loop_exits(e) || loop_exits(f),
        Stmt::With(_, b) => loop_exits(b),
        Stmt::Match(_, cases) => cases.iter().any(|c| loop_exits(&c.body)),
        _ => false,
    })
}

/// `if c: [while True: ...; if not c: break]; T` followed by `T` (T ends in a
/// return or raise; structuring copies it into the branch when the loop's exit
/// and the path around the loop are two copies of one exit block, as CPython
/// 3.10+ makes of an implicit `return None`) becomes `if c: while True: ...`
/// followed by `T`, the shape [`rotated_while`] folds. Only at this level of
/// `body`; [`rotated_while`] recurses.
fn shared_exit_while(body: &mut Vec<Stmt>) {
    let mut i = 0;
    while i < body.len() {
        let Stmt::If(_, then_body, else_body) = &body[i] else {
            i += 1;
            continue;
        };
        let n = then_body.len();
        let ok = n >= 2
            && matches!(then_body[0], Stmt::While(Expr::Const(Constant::Bool(true)), _, _))
            && matches!(then_body.last(), Some(Stmt::Return(_) | Stmt::Raise(..)))
            && else_body.is_empty()
            && body.len() >= i + n
            && same_exit(&then_body[1..], &body[i + 1..i + n]);
        if ok {
            if let Stmt::If(_, then_body, _) = &mut body[i] {
                then_body.truncate(1);
            }
        }
        i += 1;
    }
}

/// Whether the statements `a` and `b`, which end in a `return`, are one exit: equal,
/// or equal but for a `return None` that one spells out (CPython's copy of the
/// implicit return carries the line of the code before it, which reads as written).
fn same_exit(a: &[Stmt], b: &[Stmt]) -> bool {
    let none = |s: &Stmt| matches!(s, Stmt::Return(None | Some(Expr::Const(Constant::None))));
    match (a.split_last(), b.split_last()) {
        (Some((x, a)), Some((y, b))) => a == b && (x == y || (none(x) && none(y))),
        _ => false,
    }
}

/// Whether `a` and `b` are one condition up to where their `not`s sit (`not (x and
/// y)` / `not x or not y`, `not a in b` / `a not in b`).
fn same_condition(a: &Expr, b: &Expr) -> bool {
    a == b || inward_nots(a.clone()) == inward_nots(b.clone())
}

/// `e` with every `not` pushed down to the operands (De Morgan), double negations
/// and negated `is`/`in` comparisons folded, and nested `and`/`or` of one kind
/// flattened: one form for comparing conditions.
fn inward_nots(e: Expr) -> Expr {
    fn neg(e: Expr) -> Expr {
        match e {
            Expr::UnaryOp("not", inner) => inward_nots(*inner),
            Expr::BoolOp(is_and, items) => flat(!is_and, items.into_iter().map(neg).collect()),
            Expr::Compare(l, mut rest) if rest.len() == 1 && matches!(rest[0].0, "is" | "is not" | "in" | "not in") => {
                let (op, r) = rest.pop().expect("one comparison");
                let op = match op {
                    "is" => "is not",
                    "is not" => "is",
                    "in" => "not in",
                    _ => "in",
                };
                Expr::Compare(l, vec![(op, r)])
            }
            other => Expr::UnaryOp("not", Box::new(other)),
        }
    }
    fn flat(is_and: bool, items: Vec<Expr>) -> Expr {
        let mut out = Vec::new();
        for i in items {
            match i {
                Expr::BoolOp(k, inner) if k == is_and => out.extend(inner),
                other => out.push(other),
            }
        }
        Expr::BoolOp(is_and, out)
    }
    match e {
        Expr::UnaryOp("not", inner) => neg(*inner),
        Expr::BoolOp(is_and, items) => flat(is_and, items.into_iter().map(inward_nots).collect()),
        other => other,
    }
}

/// Replaces `<exit_test>; continue` by `continue`, outside nested loops.
fn fold_continue_tests(body: &mut Vec<Stmt>, exit_test: &Stmt) {
    let mut i = 0;
    while i < body.len() {
        if body[i] == *exit_test && body.get(i + 1) == Some(&Stmt::Continue) {
            body.remove(i);
            continue;
        }
        match &mut body[i] {
            Stmt::If(_, a, b) => {
                fold_continue_tests(a, exit_test);
                fold_continue_tests(b, exit_test);
            }
            // The clauses of a `try` (its `else` falls to the bottom test, CPython
            // 3.11-3.13 copy that test there) and `with`/`match` bodies: a
            // `continue` there leaves them for the test as well.
            s @ (Stmt::Try(..) | Stmt::With(..) | Stmt::Match(..)) => {
                for b in s.bodies_mut() {
                    fold_continue_tests(b, exit_test);
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// Whether `needle` is a statement of `body`, of its `if` branches or of the
/// clauses of its `try`/`with`/`match` statements (not of nested loops).
fn contains_stmt(body: &[Stmt], needle: &Stmt) -> bool {
    body.iter().any(|s| {
        s == needle
            || match s {
                Stmt::If(_, a, b) => contains_stmt(a, needle) || contains_stmt(b, needle),
                Stmt::Try(b, hs, e, f) => contains_stmt(b, needle) || hs.iter().any(|h| contains_stmt(&h.body, needle)) || contains_stmt(e, needle) || contains_stmt(f, needle),
                Stmt::With(_, b) => contains_stmt(b, needle),
                Stmt::Match(_, cases) => cases.iter().any(|c| contains_stmt(&c.body, needle)),
                _ => false,
            }
    })
}

/// Whether `body` (of a loop) has a `continue` of its own (outside nested loops)
/// that does not follow `exit_test`: one that goes back to the top of the body
/// without the loop's test.
fn bare_continue(body: &[Stmt], exit_test: &Stmt) -> bool {
    body.iter().enumerate().any(|(i, s)| match s {
        Stmt::Continue => i == 0 || body[i - 1] != *exit_test,
        Stmt::If(_, a, b) => bare_continue(a, exit_test) || bare_continue(b, exit_test),
        Stmt::Try(b, hs, e, f) => bare_continue(b, exit_test) || hs.iter().any(|h| bare_continue(&h.body, exit_test)) || bare_continue(e, exit_test) || bare_continue(f, exit_test),
        Stmt::With(_, b) => bare_continue(b, exit_test),
        Stmt::Match(_, cases) => cases.iter().any(|c| bare_continue(&c.body, exit_test)),
        _ => false,
    })
}

/// `LOAD_ASSERTION_ERROR`, until [`asserts`] reads the `assert` statement.
pub(crate) const ASSERTION_ERROR: &str = "<AssertionError>";

/// Folds `if not c: raise AssertionError(msg)` (CPython's `assert c, msg`, whose
/// `LOAD_ASSERTION_ERROR` no name lookup can shadow) into `assert c, msg`, everywhere
/// in `body`. Also the shapes structuring gives when the compiler placed the raise
/// after the code that follows the `assert` (CPython 3.12+ moves such cold blocks to
/// the end, `Python/flowgraph.c` `push_cold_blocks_to_end`): `if c: T else: raise
/// AssertionError(msg)`, and `if c: T` followed by that raise where `T` does not fall
/// through; both become `assert c, msg` followed by `T`; and `if not c: raise
/// AssertionError(msg) else: E` (an `elif` chain read from the test that follows
/// the `assert`) becomes `assert c, msg` followed by `E`. A raise that no `if`
/// guards is `assert False, msg`.
pub(crate) fn asserts(body: &mut Vec<Stmt>) {
    fold_asserts(body);
    unguarded_asserts(body);
}

/// The raises of `LOAD_ASSERTION_ERROR` that [`fold_asserts`] left, which no test
/// guards, become `assert False, msg`: CPython folds a conditional jump on a constant,
/// so that test leaves no instruction.
fn unguarded_asserts(body: &mut [Stmt]) {
    for s in body {
        if let Some(msg) = assertion_raise(std::slice::from_ref(s)) {
            *s = Stmt::Assert(Expr::Const(Constant::Bool(false)), msg);
            continue;
        }
        match s {
            Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                unguarded_asserts(a);
                unguarded_asserts(b);
            }
            _ => s.bodies_mut().into_iter().for_each(|b| unguarded_asserts(b)),
        }
    }
}

/// The `if` shapes of [`asserts`], bottom-up.
fn fold_asserts(body: &mut Vec<Stmt>) {
    let mut i = 0;
    while i < body.len() {
        match &mut body[i] {
            Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                fold_asserts(a);
                fold_asserts(b);
            }
            s @ (Stmt::Try(..) | Stmt::With(..)) => {
                for b in s.bodies_mut() {
                    fold_asserts(b);
                }
            }
            _ => {}
        }
        let Stmt::If(_, then_body, else_body) = &body[i] else {
            i += 1;
            continue;
        };
        if let Some(msg) = assertion_raise(then_body) {
            // `if not c: raise AssertionError` [`else: E`]: `assert c` [then `E`].
            let Stmt::If(cond, _, else_body) = body.remove(i) else { unreachable!("matched above") };
            body.splice(i..i, std::iter::once(Stmt::Assert(crate::recover::negate_test(cond), msg)).chain(else_body));
            i += 1;
            continue;
        }
        // `if c: T else: raise` / `if c: T` + `raise`, with `T` ending in a jump.
        let (tail_raise, msg) = match assertion_raise(else_body) {
            Some(msg) => (false, msg),
            None => match body.get(i + 1..i + 2).and_then(assertion_raise) {
                Some(msg) if else_body.is_empty() && crate::structure::ends_control(then_body) => (true, msg),
                _ => {
                    i += 1;
                    continue;
                }
            },
        };
        let Stmt::If(cond, then_body, _) = body.remove(i) else { unreachable!("matched above") };
        if tail_raise {
            body.remove(i);
        }
        body.splice(i..i, std::iter::once(Stmt::Assert(cond, msg)).chain(then_body));
        // The statements of `T` are visited in turn (an `assert` may follow).
        i += 1;
    }
}

/// `Some(msg)` when `body` is exactly `raise AssertionError` (`msg` `None`) or
/// `raise AssertionError(msg)`, raised through `LOAD_ASSERTION_ERROR`.
fn assertion_raise(body: &[Stmt]) -> Option<Option<Expr>> {
    match body {
        [Stmt::Raise(Some(Expr::Name(n)), None)] if n == ASSERTION_ERROR => Some(None),
        [Stmt::Raise(Some(Expr::Call(f, args, kws)), None)] if f.is_name(ASSERTION_ERROR) && args.len() == 1 && kws.is_empty() => Some(Some(args[0].clone())),
        _ => None,
    }
}

/// Drops from the branches of an `if` the terminal statements that also follow it,
/// bottom-up through nested bodies.
pub(crate) fn merge_tails(body: &mut Vec<Stmt>) {
    for s in body.iter_mut() {
        match s {
            Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                merge_tails(a);
                merge_tails(b);
            }
            Stmt::Try(..) | Stmt::With(..) => {
                for b in s.bodies_mut() {
                    merge_tails(b);
                }
            }
            _ => {}
        }
    }
    let mut i = body.len();
    while i > 0 {
        i -= 1;
        // Borrowed, not cloned: cloning every suffix made this quadratic in the
        // size of the body (half of all decompile time on a stdlib).
        let (head, tail) = body.split_at_mut(i + 1);
        if tail.is_empty() || !matches!(tail.last(), Some(Stmt::Return(_) | Stmt::Raise(..))) {
            continue;
        }
        if let Stmt::If(_, a, b) = &mut head[i] {
            strip_suffix(a, tail);
            strip_suffix(b, tail);
        }
    }
}

/// Removes `tail` from the end of `branch`, also from the ends of an `if` that ends
/// it, when what remains falls through.
fn strip_suffix(branch: &mut Vec<Stmt>, tail: &[Stmt]) {
    if branch.len() > tail.len() && branch.ends_with(tail) {
        branch.truncate(branch.len() - tail.len());
        return;
    }
    if let Some(Stmt::If(_, a, b)) = branch.last_mut() {
        strip_suffix(a, tail);
        strip_suffix(b, tail);
    }
}

/// Folds `t = E; if t: return X; return t` (the `else:` form too) into
/// `return E and X`, and `if not t:` into `return E or X`, everywhere in `body`, for
/// a temporary `t` that the function reads nowhere else. That is how recovery reads
/// a `JUMP_IF_*_OR_POP` (3.8-3.11; 3.12+ `COPY 1; POP_JUMP_IF_*`) whose two ends
/// each return, the compiler having copied the small `return` block into both
/// (CPython 3.8-3.13 `Python/compile.c`/`flowgraph.c` `inline_small_exit_blocks`):
/// `return a and b`, `return a < b < c`. Both forms evaluate `E` once, test it once
/// and return it or `X`, so the fold changes nothing that runs.
pub(crate) fn kept_test_returns(body: &mut Vec<Stmt>) {
    let mut reads = std::collections::BTreeMap::<String, usize>::new();
    for s in body.iter() {
        s.walk_scope_exprs(&mut |e| {
            if let Expr::Name(n) = e {
                if n.starts_with("__temp_") {
                    *reads.entry(n.to_string()).or_default() += 1;
                }
            }
        });
    }
    // Both folds need a temporary that is read (a count in `reads`).
    if reads.is_empty() {
        return;
    }
    fold_kept_tests(body, &reads);
    fold_returned_temps(body, &reads);
}

/// Folds `t = E; return t` into `return E`, also where `t = E` ends the body of a
/// `with` or of a `try` that has only a `finally` (nested ones too) and `return t`
/// follows that statement, for a temporary `t` that the function names nowhere else
/// (or, for `t = E` right before the `return`, anywhere).
/// Recovery reads so a `return E` whose value waits on the stack while the code
/// that leaves a `try`/`with` runs: the `finally` body or `__exit__` call copied
/// before the `RETURN_VALUE` (CPython 3.11+ `Python/compile.c`
/// `compiler_unwind_fblock_stack`), or the `POP_EXCEPT` and unbinding of an
/// `except E as name` clause. `return E` inside the statement evaluates `E`, then
/// runs the same exit code, then returns it (a `return`, `break` or exception of
/// the `finally` body or `__exit__` wins in both forms), so the fold changes nothing
/// that runs. A `try` with an `except` clause that falls through is left alone: it
/// would reach the `return t`, not the code after the `try`.
fn fold_returned_temps(body: &mut Vec<Stmt>, reads: &std::collections::BTreeMap<String, usize>) {
    for s in body.iter_mut() {
        match s {
            Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                fold_returned_temps(a, reads);
                fold_returned_temps(b, reads);
            }
            s @ (Stmt::Try(..) | Stmt::With(..)) => {
                for b in s.bodies_mut() {
                    fold_returned_temps(b, reads);
                }
            }
            _ => {}
        }
    }
    let mut i = 0;
    while i + 1 < body.len() {
        let t = match &body[i + 1] {
            // Right after its store the temporary holds nothing else whatever other
            // copies of the code name it (CPython 3.12+ copies exit blocks, and each
            // copy names the same temporary).
            Stmt::Return(Some(Expr::Name(t))) if t.starts_with("__temp_") && (reads.get(t.as_str()) == Some(&2) || matches!(&body[i], Stmt::Assign(ts, _) if matches!(ts.as_slice(), [Expr::Name(n)] if n == t))) => t.clone(),
            _ => {
                i += 1;
                continue;
            }
        };
        if set_last_return(&mut body[i], &t) {
            body.remove(i + 1);
        }
        i += 1;
    }
}

/// Turns `t = E`, the statement `s` or the last statement of the body of `s` (a
/// `with`, or a `try` with only a `finally`, nested), into `return E`; whether it did.
fn set_last_return(s: &mut Stmt, t: &str) -> bool {
    match s {
        Stmt::Assign(targets, e) if matches!(targets.as_slice(), [Expr::Name(n)] if n == t) => {
            let e = std::mem::replace(e, Expr::Const(Constant::None));
            *s = Stmt::Return(Some(e));
            true
        }
        Stmt::With(_, b) => b.last_mut().is_some_and(|l| set_last_return(l, t)),
        Stmt::Try(b, hs, orelse, fin) if hs.is_empty() && orelse.is_empty() && !fin.is_empty() => b.last_mut().is_some_and(|l| set_last_return(l, t)),
        // `except` clauses that never fall through (each ends in `raise` or
        // `return`) never reach the `return t` after the statement: only the body
        // does, as with `finally` alone (`try: return f() except E: ...; raise
        // finally: ...`, CPython 3.12+), or with no `finally` where the `try` is
        // inside an `except` clause (`try: return f()` there compiles to `f()`
        // inside the range, then `SWAP 2; POP_EXCEPT; RETURN_VALUE` outside it,
        // CPython 3.11+).
        Stmt::Try(b, hs, orelse, _) if orelse.is_empty() && !hs.is_empty() && hs.iter().all(|h| matches!(h.body.last(), Some(Stmt::Raise(..) | Stmt::Return(_)))) => {
            b.last_mut().is_some_and(|l| set_last_return(l, t))
        }
        _ => false,
    }
}

fn fold_kept_tests(body: &mut Vec<Stmt>, reads: &std::collections::BTreeMap<String, usize>) {
    for s in body.iter_mut() {
        match s {
            Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                fold_kept_tests(a, reads);
                fold_kept_tests(b, reads);
            }
            s @ (Stmt::Try(..) | Stmt::With(..)) => {
                for b in s.bodies_mut() {
                    fold_kept_tests(b, reads);
                }
            }
            _ => {}
        }
    }
    let mut i = 0;
    while i + 1 < body.len() {
        let Stmt::Assign(targets, _) = &body[i] else {
            i += 1;
            continue;
        };
        let [Expr::Name(t)] = targets.as_slice() else {
            i += 1;
            continue;
        };
        let returns_t = |s: &[Stmt]| matches!(s, [Stmt::Return(Some(Expr::Name(n)))] if n == t);
        // (is_and, X, statements the `if` and its tail take)
        let found = match &body[i + 1] {
            Stmt::If(cond, then, orelse) => {
                let is_and = match cond {
                    Expr::Name(n) if n == t => Some(true),
                    Expr::UnaryOp("not", inner) if inner.is_name(t) => Some(false),
                    _ => None,
                };
                match (is_and, then.as_slice()) {
                    (Some(k), [Stmt::Return(Some(x))]) if returns_t(orelse) => Some((k, x.clone(), 2)),
                    (Some(k), [Stmt::Return(Some(x))]) if orelse.is_empty() && body.get(i + 2).is_some_and(|s| returns_t(std::slice::from_ref(s))) => Some((k, x.clone(), 3)),
                    _ => None,
                }
            }
            _ => None,
        };
        // `t` named by the assignment, the test and the `return t` only (not in `X`).
        let Some((is_and, x, n)) = found.filter(|_| reads.get(t.as_str()) == Some(&3)) else {
            i += 1;
            continue;
        };
        let Stmt::Assign(_, e) = body[i].clone() else { unreachable!("matched above") };
        body.splice(i..i + n, std::iter::once(Stmt::Return(Some(crate::recover::bool_op(is_and, e, x)))));
        i += 1;
    }
}

/// Whether `e` is a negated `and`/`or` that reads with fewer `not`s once the negation
/// is moved into its operands: `not (not a or not b)` (`a and b`), `not (not j or out)`
/// (`j and not out`), no operand an `is`/`in` comparison. [`recover::negate`] writes the
/// negation of an `or` so when an operand may not be a bool (`a and b` returns an
/// operand, the `not` form a bool); see [`double_negated_tests`].
pub(crate) fn double_negated(e: &Expr) -> bool {
    let Expr::UnaryOp("not", inner) = e else { return false };
    let Expr::BoolOp(_, items) = &**inner else { return false };
    let folds = |x: &Expr| matches!(x, Expr::Compare(_, ops) if matches!(ops.as_slice(), [("is" | "is not" | "in" | "not in", _)]));
    let negated = items.iter().filter(|x| matches!(x, Expr::UnaryOp("not", _))).count();
    let operand = |x: &Expr| match x {
        Expr::UnaryOp("not", y) => folds(y),
        y => folds(y),
    };
    items.len() >= 2 && !items.iter().any(operand) && items.len() - negated < 1 + negated
}

/// Moves the `not` of `not (not a or not b)` into the operands (`a and b`; `not (not j
/// or out)` is `j and not out`) in the tests of `if` and `while` statements of `body`
/// (nested statements too, not definitions): there only the truth of the test counts,
/// which is the same, and CPython compiles both to the same jumps (`compiler_jump_if`
/// flips the sense at each `not`), so `x and x < 9 or x == 20` reads back as written.
/// Operands that are `is`/`in` comparisons are left alone: CPython folds `not (a is b)`
/// into `a is not b` (3.8-3.13 `Python/ast_opt.c`), so the two forms compile
/// differently there.
pub(crate) fn double_negated_tests(body: &mut [Stmt]) {
    fn test(e: &mut Expr) {
        if double_negated(e) {
            let Expr::UnaryOp(_, inner) = e else { unreachable!("checked") };
            let Expr::BoolOp(is_and, items) = &mut **inner else { unreachable!("checked") };
            let operands = std::mem::take(items).into_iter().map(|x| match x {
                Expr::UnaryOp("not", y) => *y,
                y => Expr::UnaryOp("not", Box::new(y)),
            });
            *e = Expr::BoolOp(!*is_and, operands.collect());
        }
        // The operands of a test's `and`/`or`/`not` are tested too.
        match e {
            Expr::UnaryOp("not", inner) => test(inner),
            Expr::BoolOp(_, items) => items.iter_mut().for_each(test),
            _ => {}
        }
    }
    for s in body {
        match s {
            Stmt::If(c, a, b) | Stmt::While(c, a, b) => {
                test(c);
                double_negated_tests(a);
                double_negated_tests(b);
            }
            Stmt::For(_, _, a, b) => {
                double_negated_tests(a);
                double_negated_tests(b);
            }
            other => other.bodies_mut().into_iter().for_each(|b| double_negated_tests(b)),
        }
    }
}

#[cfg(test)]
mod tests {
    use depyf_source::{print_body, Expr, Stmt};

    use super::double_negated_tests;

    fn not(e: Expr) -> Expr {
        Expr::UnaryOp("not", Box::new(e))
    }

    fn lt(a: &str, b: &str) -> Expr {
        Expr::Compare(Box::new(Expr::name(a)), vec![("<", Expr::name(b))])
    }

    #[test]
    fn double_negations_in_tests_read_as_written() {
        // `if not (not x or not x < n) or y:` and the same in a `while` inside it.
        let test = || Expr::BoolOp(false, vec![not(Expr::BoolOp(false, vec![not(Expr::name("x")), not(lt("x", "n"))])), Expr::name("y")]);
        let mut body = vec![Stmt::If(test(), vec![Stmt::While(test(), vec![Stmt::Pass], Vec::new())], Vec::new())];
        double_negated_tests(&mut body);
        assert_eq!(print_body(&body, 0), "if x and x < n or y:\n    while x and x < n or y:\n        pass\n");
        // One operand negated of two: the `not` moves to the other.
        let mut body = vec![Stmt::If(not(Expr::BoolOp(false, vec![not(Expr::name("j")), Expr::name("out")])), vec![Stmt::Pass], Vec::new())];
        double_negated_tests(&mut body);
        assert_eq!(print_body(&body, 0), "if j and not out:\n    pass\n");
        // A value keeps its form (`x and y` would be an operand, not a bool), and so does
        // a test over an `is` comparison (CPython folds `not (a is b)`).
        let is = Expr::Compare(Box::new(Expr::name("a")), vec![("is", Expr::name("b"))]);
        let kept = not(Expr::BoolOp(false, vec![not(is), not(Expr::name("c"))]));
        let mut body = vec![Stmt::Assign(vec![Expr::name("v")], test()), Stmt::If(kept, vec![Stmt::Pass], Vec::new())];
        double_negated_tests(&mut body);
        assert_eq!(print_body(&body, 0), "v = not (not x or not x < n) or y\nif not (not a is b or not c):\n    pass\n");
    }
}
