//! `try`/`except`/`else`/`finally` and `with` from protected ranges.
//!
//! A protected range whose handler starts with [`Op::PushExcInfo`] opens a `try`
//! (or, when the handler goes on with [`Op::WithExceptStart`], a `with`) at the
//! first block it covers that structuring reaches. The body is every block
//! reachable from there through normal edges whose chain of handlers (the block's
//! handler, that handler's handler, ...) contains the range's handler; it must have
//! at most one exit. Handlers are structured from their first block up to the
//! `after` block: the first block that the handler code reaches and that lies past
//! the handler's own clean-up block (CPython lays handlers out after the body and
//! the code after the `try` after them).
//!
//! Recovery leaves marker statements (see `recover::markers`): `except T` tests
//! read `if __exc_match__(T):`, `as e` is `e = __exc__`, `POP_EXCEPT` and
//! `RERAISE` are expression statements, `with` enter and exit are
//! `__with_enter__(m)` and `__with_exit__`. This module turns them back into
//! statements; none survives.
//!
//! Shapes not recognized fail with a `DecompileError` naming them.

use depyf_cfg::{BlockId, Terminator};
use depyf_ir::Op;
use depyf_source::{print_body, ExceptHandler, Expr, Stmt};

use super::{ends_control, Structurer};
use crate::recover::markers;
use crate::DecompileError;

fn is_marker(s: &Stmt, name: &str) -> bool {
    matches!(s, Stmt::Expr(Expr::Name(n)) if n == name)
}

fn marker_call<'e>(e: &'e Expr, name: &str) -> Option<&'e Expr> {
    match e {
        Expr::Call(f, args, kws) if f.is_name(name) && args.len() == 1 && kws.is_empty() => Some(&args[0]),
        _ => None,
    }
}

impl Structurer<'_> {
    /// The handlers an exception raised in `b` goes through, innermost first.
    pub(super) fn handler_chain(&self, b: BlockId) -> Vec<BlockId> {
        let mut out = Vec::new();
        let mut cur = self.cfg.blocks[b.index()].handler;
        while let Some(h) = cur {
            if out.contains(&h.target) || out.len() > 64 {
                break;
            }
            out.push(h.target);
            cur = self.cfg.blocks[h.target.index()].handler;
        }
        out
    }

    fn first_ops(&self, h: BlockId, n: usize) -> Vec<&Op> {
        let blk = &self.cfg.blocks[h.index()];
        self.ir[blk.start..blk.end].iter().map(|i| &i.op).filter(|o| !matches!(o, Op::Nop)).take(n).collect()
    }

    fn is_exc_entry(&self, h: BlockId) -> bool {
        matches!(self.first_ops(h, 1).as_slice(), [Op::PushExcInfo])
    }

    fn is_with_handler(&self, h: BlockId) -> bool {
        matches!(self.first_ops(h, 2).as_slice(), [Op::PushExcInfo, Op::WithExceptStart])
    }

    /// The outermost `try`/`with` handler protecting `b` that is not open yet.
    pub(super) fn try_start(&self, b: BlockId) -> Option<BlockId> {
        self.handler_chain(b).into_iter().rev().filter(|h| self.is_exc_entry(*h)).find(|h| !self.opened.contains(h))
    }

    pub(super) fn protected_by(&self, x: BlockId, h: BlockId) -> bool {
        self.handler_chain(x).contains(&h)
    }

    /// Blocks of the current loop's header and follow: flow to them is
    /// `continue`/`break`, not part of a region.
    fn loop_edge(&self, x: BlockId) -> bool {
        self.loops.last().is_some_and(|l| l.header == x || l.follow == Some(x))
    }

    /// Normal-edge successors of the body of `h` starting at `b` that lie outside it.
    fn body_exits(&self, b: BlockId, h: BlockId) -> Vec<BlockId> {
        let mut seen = vec![false; self.cfg.blocks.len()];
        let mut work = vec![b];
        let mut exits = Vec::new();
        seen[b.index()] = true;
        while let Some(x) = work.pop() {
            for s in self.cfg.blocks[x.index()].succs() {
                if self.loop_edge(s) {
                    continue;
                }
                if !self.protected_by(s, h) && !self.is_return_tail(s, h) {
                    if !exits.contains(&s) {
                        exits.push(s);
                    }
                } else if !seen[s.index()] {
                    seen[s.index()] = true;
                    work.push(s);
                }
            }
        }
        exits.sort();
        exits
    }

    /// A block that only returns (after a `with` exit), reached from one place:
    /// CPython puts the `RETURN_VALUE` of a `return` in a `try`/`with` body outside
    /// the protected range, so it belongs to the body. Before 3.11 (a handler
    /// without clean-up of its own) the constant of `return <const>` is loaded after
    /// the `with` exit, which is also the code of a `return` right after the `with`:
    /// such a block is left after the `with` (both compile the same).
    fn is_return_tail(&self, s: BlockId, h: BlockId) -> bool {
        let blk = &self.cfg.blocks[s.index()];
        let ops: Vec<&Op> = self.ir[blk.start..blk.end].iter().map(|i| &i.op).filter(|o| !matches!(o, Op::Nop)).collect();
        if !self.has_cleanup(h) && ops.iter().position(|o| matches!(o, Op::WithExit)).is_some_and(|w| w + 1 < ops.len() && matches!(ops[w + 1], Op::LoadConst(_) | Op::LoadSmallInt(_))) {
            return false;
        }
        blk.preds.len() == 1
            && matches!(ops.last(), Some(Op::Return))
            && ops.iter().all(|o| matches!(o, Op::Return | Op::WithExit | Op::Swap(2) | Op::LoadConst(_) | Op::LoadSmallInt(_)))
    }

    /// The last block (in layout order) of the handler starting at `h` when it has no
    /// clean-up handler of its own (CPython 3.9-3.10: the entered handler is a block
    /// on the block stack that `POP_EXCEPT` pops): the blocks reachable from `h`
    /// through normal edges, not past a block that pops the exception state
    /// ([`Op::PopExcept`]) nor past the current loop's header or follow.
    fn handler_region_end(&self, h: BlockId) -> BlockId {
        let mut seen = vec![false; self.cfg.blocks.len()];
        let mut work = vec![h];
        seen[h.index()] = true;
        let mut last = h;
        while let Some(x) = work.pop() {
            last = last.max(x);
            let blk = &self.cfg.blocks[x.index()];
            if self.loop_edge(x) || self.ir[blk.start..blk.end].iter().any(|i| i.op == Op::PopExcept) {
                continue;
            }
            for s in blk.succs() {
                if !seen[s.index()] && !self.loop_edge(s) {
                    seen[s.index()] = true;
                    work.push(s);
                }
            }
        }
        last
    }

    /// Whether the handler `h` is protected by a clean-up handler of its own that
    /// pushes `lasti` (3.11+); 3.9-3.10 handlers have none.
    fn has_cleanup(&self, h: BlockId) -> bool {
        self.cfg.blocks[h.index()].handler.is_some_and(|c| c.lasti)
    }

    /// Blocks reachable from `b` through normal edges (not past the current loop's
    /// header or follow).
    fn reach(&self, b: BlockId) -> Vec<bool> {
        let mut seen = vec![false; self.cfg.blocks.len()];
        let mut work = vec![b];
        seen[b.index()] = true;
        while let Some(x) = work.pop() {
            if self.loop_edge(x) {
                continue;
            }
            for s in self.cfg.blocks[x.index()].succs() {
                if !seen[s.index()] {
                    seen[s.index()] = true;
                    work.push(s);
                }
            }
        }
        seen
    }

    /// Emits the `try` or `with` whose handler is `h` and whose body starts at `b`,
    /// then the rest of the region up to `stop`.
    pub(super) fn emit_try(
        &mut self,
        out: &mut Vec<Stmt>,
        b: BlockId,
        h: BlockId,
        stop: Option<BlockId>,
        entering_loop: bool,
        err: &dyn Fn(&str) -> DecompileError,
    ) -> Result<(), DecompileError> {
        let mut exits = self.body_exits(b, h);
        let mut finally_copies = false;
        if exits.len() > 1 && !self.has_cleanup(h) {
            // CPython 3.9-3.10 copy a small exit (a `with` exit and `return
            // <const>`) into every path that leaves the body: such copies are part of
            // the body (a `return <const>` there does the same). Copies of
            // `finally body; ...; return <const>` are merged too, provided the
            // `finally` below finds exactly `finally body; return <const>` after the
            // `try` (`finally_copies`). Other copies are not merged.
            let start = |x: BlockId| self.cfg.blocks[x.index()].start;
            let first = exits[0];
            if exits[1..].iter().all(|&x| self.same_code(start(first), start(x))) {
                if exits.iter().all(|&x| self.is_const_return_exit(start(x))) {
                    exits.truncate(1);
                } else if self.ends_with_const_return(start(first)) {
                    exits.truncate(1);
                    finally_copies = true;
                }
            }
        }
        if exits.len() > 1 {
            return Err(err("a try or with body with several exits"));
        }
        let e1 = exits.first().copied();
        self.opened.push(h);
        let mut body = Vec::new();
        let r = self.region_into(&mut body, b, e1.or(stop), entering_loop, err);
        self.opened.pop();
        r?;
        fold_returns(&mut body, self.is_with_handler(h));
        if self.is_with_handler(h) {
            if finally_copies {
                return Err(err("a try or with body with several exits"));
            }
            return self.finish_with(out, body, h, e1, stop, err);
        }
        // The handler's own clean-up block: code after the `try` lies past it.
        let cleanup = match self.cfg.blocks[h.index()].handler {
            Some(c) if c.lasti => c.target,
            _ => self.handler_region_end(h),
        };
        let rh = self.reach(h);
        let after = (cleanup.index() + 1..self.cfg.blocks.len()).find(|&x| rh[x]).map(|x| BlockId(x as u32));
        let after = match (after, stop) {
            (Some(a), Some(s)) if a > s => Some(s),
            (a, _) => a,
        };
        let hstmts = self.region(h, after.or(stop), err)?;
        let top_pop = hstmts.iter().any(|s| is_marker(s, markers::POP_EXCEPT));
        if !top_pop && hstmts.last().is_some_and(|s| is_marker(s, markers::RERAISE)) && !matches!(hstmts.first(), Some(Stmt::If(c, ..)) if marker_call(c, markers::EXC_MATCH).is_some()) {
            // `finally`: the handler runs it and re-raises; the normal exit runs a
            // copy of it first.
            let fbody: Vec<Stmt> = hstmts[..hstmts.len() - 1].to_vec();
            let Some(e1) = e1 else { return Err(err("a try/finally body that never exits normally")) };
            let mut rest = Vec::new();
            self.region_into(&mut rest, e1, stop, false, err)?;
            let n = fbody.len();
            if rest.len() < n || print_body(&rest[..n], 0) != print_body(&fbody, 0) {
                return Err(err("the normal exit of a try/finally does not run the finally body"));
            }
            // CPython copies the finally body before every return/break/continue
            // that leaves the try: drop those copies, the `finally` runs once.
            strip_finally_copies(&mut body, &fbody);
            if !self.has_cleanup(h) {
                // 3.9-3.10 copy `finally body; return <const>` into the paths that
                // leave the body: when that `return` follows the `try`, the copies
                // at the ends of the body are the same flow.
                if let [ret @ Stmt::Return(None | Some(Expr::Const(_)))] = &rest[n..] {
                    strip_tail_copy(&mut body, ret);
                } else if finally_copies {
                    return Err(err("copies of a try/finally exit that do more than return a constant"));
                }
            }
            let fbody = if fbody.is_empty() { vec![Stmt::Pass] } else { fbody };
            let stmt = match body.as_slice() {
                [Stmt::Try(b2, hs, e2, f2)] if f2.is_empty() && !hs.is_empty() => Stmt::Try(b2.clone(), hs.clone(), e2.clone(), fbody),
                _ => Stmt::Try(body, Vec::new(), Vec::new(), fbody),
            };
            out.push(stmt);
            out.extend(rest.into_iter().skip(n));
            return Ok(());
        }
        if finally_copies {
            return Err(err("a try or with body with several exits"));
        }
        let handlers = parse_handlers(hstmts).ok_or_else(|| err("an exception handler of an unknown shape"))?;
        let body = if body.is_empty() { vec![Stmt::Pass] } else { body };
        match (e1, after) {
            (Some(e), Some(a)) if e != a && !self.loop_edge(e) => {
                let orelse = self.region(e, Some(a), err)?;
                out.push(Stmt::Try(body, handlers, orelse, Vec::new()));
                self.region_into(out, a, stop, false, err)
            }
            (Some(e), _) => {
                out.push(Stmt::Try(body, handlers, Vec::new(), Vec::new()));
                self.region_into(out, e, stop, false, err)
            }
            (None, Some(a)) => {
                out.push(Stmt::Try(body, handlers, Vec::new(), Vec::new()));
                self.region_into(out, a, stop, false, err)
            }
            (None, None) => {
                out.push(Stmt::Try(body, handlers, Vec::new(), Vec::new()));
                Ok(())
            }
        }
    }

    /// Where the exceptional exit of the `with` whose handler is `h` goes when
    /// `__exit__` suppresses the exception: the handler tests the result of
    /// [`Op::WithExceptStart`] with a jump-if-true to `POP_TOP; POP_EXCEPT; POP_TOP;
    /// POP_TOP` (CPython 3.11-3.13 `compiler_with_except_finish`), which goes on to the
    /// code after the `with`. `None` for any other shape.
    fn suppressed_exit(&self, h: BlockId) -> Option<Result<BlockId, ()>> {
        let mut b = h;
        for _ in 0..8 {
            let blk = &self.cfg.blocks[b.index()];
            match blk.term {
                Terminator::FallThrough(n) => b = n,
                Terminator::Branch { jump, .. } if matches!(self.ir[blk.end - 1].op, Op::JumpIf { when: true, .. }) => {
                    let mut ops = Vec::new();
                    let mut s = jump;
                    for _ in 0..8 {
                        let sb = &self.cfg.blocks[s.index()];
                        ops.extend(self.ir[sb.start..sb.end].iter().map(|i| i.op.clone()).filter(|o| !matches!(o, Op::Nop | Op::Jump(_))));
                        let pops = [Op::PopTop, Op::PopExcept, Op::PopTop, Op::PopTop];
                        match sb.term {
                            Terminator::FallThrough(n) | Terminator::Jump(n) if ops.len() < 4 => s = n,
                            Terminator::FallThrough(n) | Terminator::Jump(n) => {
                                return (ops == pops).then_some(Ok(n));
                            }
                            // The code after the `with` is the implicit `return None`
                            // (3.15 loads `None` with LOAD_COMMON_CONSTANT).
                            Terminator::Return => {
                                let returns_none = matches!(self.rec.blocks[s.index()].stmts.last(), Some(Stmt::Return(Some(Expr::Const(depyf_bytecode::Constant::None)))));
                                let none = ops.len() == 6 && ops[..4] == pops && ops[5] == Op::Return && matches!(ops[4], Op::LoadConst(_) | Op::LoadCommonConstant("None")) && returns_none;
                                return none.then_some(Err(()));
                            }
                            _ => return None,
                        }
                    }
                    return None;
                }
                _ => return None,
            }
        }
        None
    }

    fn finish_with(&mut self, out: &mut Vec<Stmt>, mut body: Vec<Stmt>, h: BlockId, e1: Option<BlockId>, stop: Option<BlockId>, err: &dyn Fn(&str) -> DecompileError) -> Result<(), DecompileError> {
        let (mgr, target) = match body.first() {
            Some(Stmt::Assign(t, v)) if t.len() == 1 => (marker_call(v, markers::WITH_ENTER).cloned(), Some(t[0].clone())),
            Some(Stmt::Expr(v)) => (marker_call(v, markers::WITH_ENTER).cloned(), None),
            _ => (None, None),
        };
        let Some(mgr) = mgr else { return Err(err("a with body that does not start by entering its manager")) };
        body.remove(0);
        let mut rest = vec![Stmt::Expr(Expr::name(markers::WITH_EXIT))];
        if let Some(e1) = e1 {
            rest.clear();
            self.region_into(&mut rest, e1, stop, false, err)?;
        }
        if !rest.first().is_some_and(|s| is_marker(s, markers::WITH_EXIT)) {
            return Err(err("a with body whose normal exit does not call __exit__"));
        }
        rest.remove(0);
        if !self.has_cleanup(h) {
            // Before 3.11 the path that suppresses the exception (`POP_TOP`s,
            // `POP_EXCEPT`, then the code after the `with`) may be a copy of the code
            // after the `with` rather than a jump to it: it must do what `rest` does.
            let l = self.with_suppressed(h, err)?;
            match e1 {
                None => {
                    rest = self.region(l, stop, err)?;
                    if !rest.first().is_some_and(|x| is_marker(x, markers::POP_EXCEPT)) {
                        return Err(err("a with handler that does not drop the exception"));
                    }
                    rest.remove(0);
                }
                Some(e1) => {
                    let blk = &self.cfg.blocks[e1.index()];
                    let normal = (blk.start..blk.end).find(|&i| self.ir[i].op == Op::WithExit).map(|i| i + 1);
                    let blk = &self.cfg.blocks[l.index()];
                    let pop = (blk.start..blk.end).find(|&i| self.ir[i].op == Op::PopExcept);
                    let suppressed = pop.and_then(|p| (p + 1..blk.end).find(|&i| self.ir[i].op != Op::Nop)).filter(|&i| self.ir[i].op == Op::PopTop).map(|i| i + 1);
                    match (normal, suppressed) {
                        (Some(a), Some(b)) if self.same_code(a, b) => {}
                        _ => return Err(err("the code after a with differs on its normal and suppressed exits")),
                    }
                }
            }
        }
        if !self.has_cleanup(h) {
            // 3.9-3.10 copy `exit; return <const>` into the paths that leave the body
            // (see `emit_try`): when the code after the `with` is that `return`, the
            // copies at the ends of the body are the same flow.
            if let [ret @ Stmt::Return(None | Some(Expr::Const(_)))] = rest.as_slice() {
                strip_tail_copy(&mut body, ret);
            }
        }
        let mut items = vec![(mgr, target)];
        // `with a: with b:` is `with a, b:` when both are sync or both async.
        let is_async = |e: &Expr| e.async_inner().is_some();
        let body = match body.as_slice() {
            [Stmt::With(inner, b)] if inner.first().is_some_and(|(e, _)| is_async(e) == is_async(&items[0].0)) => {
                items.extend(inner.iter().cloned());
                b.clone()
            }
            _ => body,
        };
        out.push(Stmt::With(items, body));
        out.extend(rest);
        // A body that never exits normally: the code after the `with` runs only when
        // `__exit__` suppresses an exception, and must follow it. (3.11+ shape; before
        // 3.11 `rest` is already that code, read from the suppressing path above.)
        if e1.is_none() && self.has_cleanup(h) {
            let a = match self.suppressed_exit(h) {
                Some(Ok(a)) => a,
                Some(Err(())) => {
                    out.push(Stmt::Return(Some(Expr::Const(depyf_bytecode::Constant::None))));
                    return Ok(());
                }
                None => return Err(err("a with body that never exits normally, whose suppressing exit is not understood")),
            };
            if self.loop_edge(a) {
                return Err(err("a with body that never exits normally, in a loop whose header or exit follows it"));
            }
            if Some(a) != stop {
                self.region_into(out, a, stop, false, err)?;
            }
        }
        Ok(())
    }
}

impl Structurer<'_> {
    /// The statements that follow a pre-3.11 `with` when its manager suppresses the
    /// exception: the handler `h` is `PushExcInfo; WithExceptStart; JumpIf(true, L);
    /// Reraise` and `L` drops the exception (the `POP_EXCEPT` marker) and goes on.
    fn with_suppressed(&self, h: BlockId, err: &dyn Fn(&str) -> DecompileError) -> Result<BlockId, DecompileError> {
        let blk = &self.cfg.blocks[h.index()];
        match blk.term {
            depyf_cfg::Terminator::Branch { jump, .. } if matches!(self.ir[blk.end - 1].op, Op::JumpIf { when: true, .. }) => Ok(jump),
            _ => Err(err("a with handler of an unknown shape")),
        }
    }

    /// Whether the code from op index `i` is `[WithExit;] LoadConst; Return`
    /// (`Nop`s skipped, unconditional jumps followed).
    fn is_const_return_exit(&self, mut i: usize) -> bool {
        let mut seen = Vec::new();
        for _ in 0..32 {
            match self.ir.get(i).map(|x| &x.op) {
                Some(Op::Nop) => i += 1,
                Some(Op::Jump(t)) => i = self.ir.partition_point(|x| x.offset < *t),
                Some(op) => {
                    seen.push(op);
                    if matches!(op, Op::Return) {
                        break;
                    }
                    i += 1;
                }
                None => return false,
            }
        }
        matches!(seen.as_slice(), [Op::WithExit, Op::LoadConst(_) | Op::LoadSmallInt(_), Op::Return] | [Op::LoadConst(_) | Op::LoadSmallInt(_), Op::Return])
    }

    /// Whether the straight-line code from op index `i` (`Nop`s skipped,
    /// unconditional jumps followed) ends with `LoadConst; Return`.
    fn ends_with_const_return(&self, mut i: usize) -> bool {
        let mut prev: Option<&Op> = None;
        for _ in 0..256 {
            match self.ir.get(i).map(|x| &x.op) {
                Some(Op::Nop) => i += 1,
                Some(Op::Jump(t)) => i = self.ir.partition_point(|x| x.offset < *t),
                Some(Op::Return) => return matches!(prev, Some(Op::LoadConst(_) | Op::LoadSmallInt(_))),
                Some(op) if op.jump_target().is_some() || op.is_terminator() => return false,
                Some(op) => {
                    prev = Some(op);
                    i += 1;
                }
                None => return false,
            }
        }
        false
    }

    /// Whether the code from op index `a` and from op index `b` is the same: the
    /// same ops (`Nop`s skipped, unconditional jumps followed) up to a common
    /// position or to a `return`/`raise` on both. Straight-line code only (a
    /// conditional branch at two different places counts as different).
    fn same_code(&self, mut a: usize, mut b: usize) -> bool {
        let next = |mut i: usize| -> Option<usize> {
            for _ in 0..64 {
                match self.ir.get(i).map(|x| &x.op) {
                    Some(Op::Nop) => i += 1,
                    Some(Op::Jump(t)) => i = self.ir.partition_point(|x| x.offset < *t),
                    Some(_) => return Some(i),
                    None => return None,
                }
            }
            None
        };
        for _ in 0..256 {
            let (Some(x), Some(y)) = (next(a), next(b)) else { return false };
            if x == y {
                return true;
            }
            let (p, q) = (&self.ir[x].op, &self.ir[y].op);
            if p != q || p.jump_target().is_some() {
                return false;
            }
            if matches!(p, Op::Return | Op::Raise(_) | Op::Reraise) {
                return true;
            }
            a = x + 1;
            b = y + 1;
        }
        false
    }
}

/// Splits a handler chain (`if __exc_match__(T): ... else: ...`, a bare handler,
/// or the final re-raise) into `except` clauses.
fn parse_handlers(mut rest: Vec<Stmt>) -> Option<Vec<ExceptHandler>> {
    let mut out = Vec::new();
    loop {
        let (typ, then, tail) = match rest.as_slice() {
            [Stmt::If(c, then, els)] if marker_call(c, markers::EXC_MATCH).is_some() => (marker_call(c, markers::EXC_MATCH).cloned(), then.clone(), els.clone()),
            [Stmt::If(c, then, els), tail @ ..] if els.is_empty() && ends_control(then) && marker_call(c, markers::EXC_MATCH).is_some() => {
                (marker_call(c, markers::EXC_MATCH).cloned(), then.clone(), tail.to_vec())
            }
            [s] if is_marker(s, markers::RERAISE) => break,
            [] => break,
            _ => (None, std::mem::take(&mut rest), Vec::new()),
        };
        let bare = typ.is_none();
        out.push(handler(typ, then)?);
        if bare {
            break;
        }
        rest = tail;
    }
    (!out.is_empty()).then_some(out)
}

fn handler(typ: Option<Expr>, mut body: Vec<Stmt>) -> Option<ExceptHandler> {
    let mut name = None;
    if let Some(Stmt::Assign(t, v)) = body.first() {
        if let ([Expr::Name(n)], true) = (t.as_slice(), v.is_name(markers::EXC)) {
            name = Some(n.clone());
            body.remove(0);
        }
    }
    if name.is_some() && typ.is_none() {
        return None;
    }
    if !clean(&mut body, name.as_deref()) {
        return None;
    }
    let mut bad = false;
    for s in &body {
        s.walk_exprs(&mut |e| bad |= e.is_name(markers::EXC));
    }
    if bad {
        return None;
    }
    Some(ExceptHandler { typ, name, body })
}

/// Drops `POP_EXCEPT` markers and the `name = None; del name` after them. What
/// follows a `POP_EXCEPT` runs after the `except` clause, the exception no longer
/// being handled: a bare `raise` there re-raises another one (CPython 3.9-3.10 copy
/// the code after a `try` into its handlers, e.g. the bare `raise` of an enclosing
/// handler), so the clause is refused (false) when one follows it.
fn clean(body: &mut Vec<Stmt>, name: Option<&str>) -> bool {
    let mut i = 0;
    while i < body.len() {
        if is_marker(&body[i], markers::POP_EXCEPT) {
            body.remove(i);
            if let Some(n) = name {
                let unbind = matches!(body.get(i), Some(Stmt::Assign(t, Expr::Const(depyf_bytecode::Constant::None))) if matches!(t.as_slice(), [Expr::Name(m)] if m == n))
                    && matches!(body.get(i + 1), Some(Stmt::Delete(t)) if matches!(t.as_slice(), [Expr::Name(m)] if m == n));
                if unbind {
                    body.drain(i..i + 2);
                }
            }
            let mut reraise = false;
            for s in &body[i..] {
                reraise |= matches!(s, Stmt::Raise(None, _));
                if let Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) = s {
                    reraise |= has_bare_raise(a) || has_bare_raise(b);
                }
            }
            if reraise {
                return false;
            }
            continue;
        }
        match &mut body[i] {
            Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                if !clean(a, name) || !clean(b, name) {
                    return false;
                }
            }
            _ => {}
        }
        i += 1;
    }
    true
}

/// Whether a bare `raise` occurs in `stmts` (nested `if`/`while`/`for`/`try`
/// bodies included, not nested functions or classes).
fn has_bare_raise(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Raise(None, _) => true,
        Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => has_bare_raise(a) || has_bare_raise(b),
        Stmt::With(_, b) => has_bare_raise(b),
        Stmt::Try(b, hs, e, f) => has_bare_raise(b) || hs.iter().any(|h| has_bare_raise(&h.body)) || has_bare_raise(e) || has_bare_raise(f),
        _ => false,
    })
}

/// `__temp = v; [__with_exit__;] return __temp` is `return v` (the value of a
/// `return` in a `try`/`with` body crosses into its return tail), and the exit
/// marker before a `return` of a `with` body is the `with` block's own.
fn fold_returns(body: &mut Vec<Stmt>, with: bool) {
    if with {
        let mut j = 0;
        while j < body.len() {
            if is_marker(&body[j], markers::WITH_EXIT) && matches!(body.get(j + 1), Some(Stmt::Return(_))) {
                body.remove(j);
            } else {
                j += 1;
            }
        }
    }
    let mut i = 0;
    while i < body.len() {
        match &mut body[i] {
            Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                fold_returns(a, with);
                fold_returns(b, with);
            }
            _ => {}
        }
        if let (Some(Stmt::Assign(t, v)), Some(Stmt::Return(Some(Expr::Name(r))))) = (body.get(i), body.get(i + 1)) {
            if matches!(t.as_slice(), [Expr::Name(n)] if n == r && n.starts_with("__temp_")) {
                let v = v.clone();
                body.drain(i..i + 2);
                body.insert(i, Stmt::Return(Some(v)));
            }
        }
        i += 1;
    }
}

/// Removes `ret` where it ends `stmts`, or ends a branch of the `if` that ends it
/// (recursively): flow that leaves the statements goes on to an equal `ret`.
fn strip_tail_copy(stmts: &mut Vec<Stmt>, ret: &Stmt) {
    match stmts.last_mut() {
        Some(s) if s == ret => {
            stmts.pop();
        }
        Some(Stmt::If(_, a, b)) => {
            strip_tail_copy(a, ret);
            strip_tail_copy(b, ret);
            if a.is_empty() {
                a.push(Stmt::Pass);
            }
        }
        _ => {}
    }
}

/// Removes `fbody` where it stands right before a `return`, `break` or `continue`
/// in `stmts` and the bodies nested in it (not in nested functions or classes).
fn strip_finally_copies(stmts: &mut Vec<Stmt>, fbody: &[Stmt]) {
    if fbody.is_empty() {
        return;
    }
    for s in stmts.iter_mut() {
        match s {
            Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                strip_finally_copies(a, fbody);
                strip_finally_copies(b, fbody);
            }
            Stmt::With(_, b) => strip_finally_copies(b, fbody),
            Stmt::Try(b, hs, e, f) => {
                strip_finally_copies(b, fbody);
                for h in hs.iter_mut() {
                    strip_finally_copies(&mut h.body, fbody);
                }
                strip_finally_copies(e, fbody);
                strip_finally_copies(f, fbody);
            }
            _ => {}
        }
    }
    let mut i = 0;
    while i < stmts.len() {
        let exits = matches!(stmts[i], Stmt::Return(_) | Stmt::Break | Stmt::Continue);
        if exits && i >= fbody.len() && stmts[i - fbody.len()..i] == *fbody {
            stmts.drain(i - fbody.len()..i);
            i -= fbody.len();
        }
        i += 1;
    }
}
