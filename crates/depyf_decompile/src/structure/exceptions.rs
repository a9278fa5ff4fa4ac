//! `try`/`except`/`else`/`finally` and `with` from protected ranges.
//!
//! A protected range whose handler starts with [`Op::PushExcInfo`] opens a `try`
//! (or, when the handler goes on with [`Op::WithExceptStart`], a `with`) at the
//! first block it covers that structuring reaches. The body is every block
//! reachable from there through normal edges whose chain of handlers (the block's
//! handler, that handler's handler, ...) contains the range's handler; it must have
//! at most one exit besides the copies of the `finally` body or `__exit__` call
//! that CPython puts before each `break`, `continue` and `return` leaving it (3.11+,
//! see `split_exit_copies`), which read as those statements. Handlers are structured first, from their first block up to
//! the `after` block, where an `except` clause's exit (`POP_EXCEPT` and the
//! unbinding of its name) jumps or falls to (see `handler_join`; CPython 3.12+ lays
//! handlers out after all other code, so it may lie before them).
//!
//! Code that runs after an exception is popped is never printed inside the
//! `except` clause (there `sys.exc_info()` and the `as` name would still be set):
//! what CPython 3.12+ copies after a clause's `POP_EXCEPT` must be the code after
//! the `try` statement, and is printed there once (see `split_after_pop`).
//!
//! Recovery leaves marker statements (see `recover::markers`): `except T` tests
//! read `if __exc_match__(T):`, `as e` is `e = __exc__`, `POP_EXCEPT` and
//! `RERAISE` are expression statements, `with` enter and exit are
//! `__with_enter__(m)` and `__with_exit__`. This module turns them back into
//! statements; none survives.
//!
//! Shapes not recognized fail with a `DecompileError` naming them.

use std::collections::BTreeSet;
use depyf_cfg::{BlockId, Terminator};
use depyf_ir::Op;
use depyf_source::{print_body, ExceptHandler, Expr, Stmt};

use super::{ends_control, ExitStub, Structurer};
use crate::recover::markers;
use crate::DecompileError;

/// Whether `s` is the marker statement `name`; a pop with a held value
/// ([`markers::POP_EXCEPT_HELD`]) is a [`markers::POP_EXCEPT`] too.
fn is_marker(s: &Stmt, name: &str) -> bool {
    matches!(s, Stmt::Expr(Expr::Name(n)) if n == name || (name == markers::POP_EXCEPT && n == markers::POP_EXCEPT_HELD))
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
        let mut buf = [BlockId(0); 65];
        let n = self.handler_chain_in(b, &mut buf);
        buf[..n].to_vec()
    }

    /// [`Self::handler_chain`] written into `buf` (its length returned): no
    /// allocation for the frequent questions about it.
    fn handler_chain_in(&self, b: BlockId, buf: &mut [BlockId; 65]) -> usize {
        let mut n = 0;
        let mut cur = self.cfg.blocks[b.index()].handler;
        while let Some(h) = cur {
            if buf[..n].contains(&h.target) || n > 64 {
                break;
            }
            buf[n] = h.target;
            n += 1;
            cur = self.cfg.blocks[h.target.index()].handler;
        }
        n
    }

    fn first_ops(&self, h: BlockId, n: usize) -> Vec<&Op> {
        let blk = &self.cfg.blocks[h.index()];
        self.ir[blk.start..blk.end].iter().map(|i| &i.op).filter(|o| !matches!(o, Op::Nop)).take(n).collect()
    }

    /// The ops of block `h` other than `NOP`s ([`Self::first_ops`] without collecting them).
    fn real_ops(&self, h: BlockId) -> impl Iterator<Item = &Op> {
        let blk = &self.cfg.blocks[h.index()];
        self.ir[blk.start..blk.end].iter().map(|i| &i.op).filter(|o| !matches!(o, Op::Nop))
    }

    fn is_exc_entry(&self, h: BlockId) -> bool {
        matches!(self.real_ops(h).next(), Some(Op::PushExcInfo))
    }

    fn is_with_handler(&self, h: BlockId) -> bool {
        let mut ops = self.real_ops(h);
        matches!((ops.next(), ops.next()), (Some(Op::PushExcInfo), Some(Op::WithExceptStart)))
    }

    /// Where an `except*` clause's test (`cond`, `__eg_match__(T) is not None`, whose
    /// failing arm is `jump`) meets the clause's body again: the next clause's test (or
    /// the handler's end), right after the failing arm's `POP_TOP` of the match (and,
    /// 3.12+, the `LIST_APPEND` of the rest copied there), a block without statements.
    /// Handler code is reached only through exception edges, where `follow` finds no
    /// meeting (it works on the normal-edge dominators). `None` for any other branch.
    pub(super) fn star_test_follow(&self, cond: &Expr, jump: BlockId) -> Option<BlockId> {
        let Expr::Compare(l, ops) = cond else { return None };
        marker_call(l, markers::EG_MATCH)?;
        if !matches!(ops.as_slice(), [("is not", Expr::Const(depyf_bytecode::Constant::None))]) {
            return None;
        }
        let code = &self.rec.blocks[jump.index()];
        if !self.no_stmts(jump) || code.collapsed_to.is_some() || code.error.is_some() {
            return None;
        }
        match self.cfg.blocks[jump.index()].term {
            Terminator::FallThrough(n) | Terminator::Jump(n) => Some(n),
            _ => None,
        }
    }

    /// The outermost `try`/`with` handler protecting `b` that is not open yet.
    pub(super) fn try_start(&self, b: BlockId) -> Option<BlockId> {
        let mut buf = [BlockId(0); 65];
        let n = self.handler_chain_in(b, &mut buf);
        buf[..n].iter().copied().rev().filter(|h| self.is_exc_entry(*h)).find(|h| !self.opened.contains(h))
    }

    pub(super) fn protected_by(&self, x: BlockId, h: BlockId) -> bool {
        let mut buf = [BlockId(0); 65];
        let n = self.handler_chain_in(x, &mut buf);
        buf[..n].contains(&h)
    }

    /// Blocks of the current loop's header and follow: flow to them is
    /// `continue`/`break`, not part of a region.
    fn loop_edge(&self, x: BlockId) -> bool {
        self.loops.last().is_some_and(|l| l.header == x || l.follow == Some(x))
    }

    /// Normal-edge successors of the body of `h` starting at `b` that lie outside it.
    ///
    /// A body whose own flow never completes (an inner `try` whose body always
    /// returns or raises) can still complete through the `except` clauses of the
    /// inner statements: when the normal edges reach no exit, the walk goes on into
    /// the handlers of the body's blocks that `h` protects too (the clauses' code),
    /// and their exits are the body's. Without that, the code after the outer `try`
    /// (its `else` body) would be read as more of the body, inside `h`'s protection.
    fn body_exits(&self, b: BlockId, h: BlockId) -> Vec<BlockId> {
        let exits = self.body_exits_walk(b, h, false);
        if exits.is_empty() {
            return self.body_exits_walk(b, h, true);
        }
        exits
    }

    /// [`Self::body_exits`]'s walk; `inner`: through the handlers of inner
    /// statements too.
    fn body_exits_walk(&self, b: BlockId, h: BlockId, inner: bool) -> Vec<BlockId> {
        let mut seen = vec![false; self.cfg.blocks.len()];
        let mut work = vec![b];
        let mut exits = Vec::new();
        seen[b.index()] = true;
        while let Some(x) = work.pop() {
            let blk = &self.cfg.blocks[x.index()];
            let handler = blk.handler.map(|e| e.target).filter(|&t| inner && t != h && self.protected_by(t, h));
            for s in blk.succs().into_iter().chain(handler) {
                if self.loop_edge(s) || self.handler_loop_break(s, h) {
                    continue;
                }
                if !self.protected_by(s, h) && !self.is_return_tail(s, h) && !self.is_gap(s) {
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

    /// Copies of the body's exits `exits` (of the `try` whose handler is `h` and
    /// whose body starts at `b`) that handler code inside the body reaches: blocks
    /// outside `h`'s protection, reached by a normal edge from a block of the body
    /// or of an inner handler that `h` protects, whose code is the same as that of
    /// one of `exits`. CPython 3.10 copies an exit block without a line number into
    /// each jump to it (`Python/compile.c` `duplicate_exits_without_lineno`): the
    /// `POP_BLOCK`, the copy of the `finally` body and the code after the `try`
    /// (when it only returns) stand again after the `POP_EXCEPT` of an inner
    /// `except` clause. [`Self::body_exits`] walks normal edges only, and read
    /// inside the clause that copy would be a `return` of a value taken before
    /// the `finally` body runs. A block that goes on into one of `exits` (`Nop`s
    /// before it) is no copy.
    fn handler_exit_copies(&self, b: BlockId, h: BlockId, exits: &[BlockId]) -> Vec<BlockId> {
        let start = |x: BlockId| self.cfg.blocks[x.index()].start;
        let mut seen = vec![false; self.cfg.blocks.len()];
        let mut work = vec![b];
        let mut copies = Vec::new();
        seen[b.index()] = true;
        while let Some(x) = work.pop() {
            let blk = &self.cfg.blocks[x.index()];
            let inner = blk.handler.map(|e| e.target).filter(|&t| t != h && self.protected_by(t, h));
            for s in blk.succs().into_iter().chain(inner) {
                if self.loop_edge(s) || seen[s.index()] {
                    continue;
                }
                if self.protected_by(s, h) {
                    seen[s.index()] = true;
                    work.push(s);
                } else if !exits.contains(&s) && !copies.contains(&s) && exits.iter().any(|&e| self.same_code_or_meet(start(e), start(s), false)) {
                    copies.push(s);
                }
            }
        }
        copies
    }

    /// Whether the straight-line code from block `x` runs to a `return` or `raise`
    /// without popping a value it did not push itself: code after a statement,
    /// not the end of a `return v` whose value the body left on the stack before
    /// the copy of a `finally` body (the same ops in a clause return another
    /// value). False on a branch or past 32 blocks.
    fn uses_no_body_value(&self, mut x: BlockId) -> bool {
        let mut depth = 0u32;
        for _ in 0..32 {
            let blk = &self.cfg.blocks[x.index()];
            for i in &self.ir[blk.start..blk.end] {
                let (pops, pushes) = i.op.stack_effect();
                if pops > depth {
                    return false;
                }
                if matches!(i.op, Op::Return | Op::Raise(_) | Op::Reraise) {
                    return true;
                }
                depth = depth - pops + pushes;
            }
            match blk.term {
                Terminator::FallThrough(n) | Terminator::Jump(n) => x = n,
                _ => return false,
            }
        }
        false
    }

    /// Whether `s` is the `break` of a loop in handler code (an `except` clause, the
    /// copy of a `finally` body run on an exception) as a block of its own that only
    /// jumps to the code after the loop. CPython 3.12+ removes the jump of that
    /// `break` in the copy of the same loop in normal code, where the code after the
    /// loop comes next (`Python/flowgraph.c` drops a jump to the next block, leaving
    /// a `NOP` for its line), so the `try` body there reaches the loop's follow
    /// itself and the `break` is read inside the body; read the same here, both
    /// copies of a `finally` body compare equal (either reading runs the same). Only
    /// 3.12+: not before 3.11 (`h` without clean-up of its own), whose copies keep
    /// that jump in both, nor on 3.11, whose `else:` of a `try` is told from the
    /// layout ([`super::Structurer::else_before_handlers`]).
    fn handler_loop_break(&self, s: BlockId, h: BlockId) -> bool {
        let Some(l) = self.loops.last() else { return false };
        if self.else_before_handlers || !self.has_cleanup(h) || self.rpo_index[l.header.index()] != usize::MAX || l.follow.is_none() {
            return false;
        }
        let blk = &self.cfg.blocks[s.index()];
        let only_jump = self.ir[blk.start..blk.end].iter().all(|i| matches!(i.op, Op::Nop | Op::Jump(_)));
        only_jump && blk.preds.len() == 1 && matches!(blk.term, Terminator::Jump(t) if Some(t) == l.follow)
    }

    /// A block of `Nop`s alone, reached from one place, that goes on to one block: no
    /// code of its own, so it belongs where its predecessor does. CPython 3.12+ cuts
    /// the `await` loop of an `async with` exit (folded into the exit) into such blocks
    /// where the exception ranges of its `yield` (dropped: `post311_exc`) start and end.
    /// A block that a handler protects and its predecessor does not is no gap: a
    /// `try` starts there (CPython 3.8-3.10 `SETUP_FINALLY` leaves a `NOP` of the
    /// `try:` line inside its range), and its statement is code after the body.
    fn is_gap(&self, s: BlockId) -> bool {
        let blk = &self.cfg.blocks[s.index()];
        blk.preds.len() == 1
            && matches!(blk.term, Terminator::FallThrough(_) | Terminator::Jump(_))
            && self.ir[blk.start..blk.end].iter().all(|i| matches!(i.op, Op::Nop))
            && {
                let outer = self.handler_chain(blk.preds[0]);
                self.handler_chain(s).iter().all(|x| outer.contains(x))
            }
    }

    /// A block that only returns (after a `with` exit, or dropping the iterator of an
    /// enclosing `for`), reached from one place:
    /// CPython puts the `RETURN_VALUE` of a `return` in a `try`/`with` body outside
    /// the protected range, so it belongs to the body. A `return` in nested `with`
    /// bodies calls each `__exit__` in a block of its own: a chain of such blocks
    /// (each reached from one place) that ends in the return is one tail too.
    /// Before 3.11 (`h` without clean-up of its own) the constant of `return
    /// <const>` is loaded after the `with` exit, which is also the code of a `return`
    /// right after the `with`: such a block is left after the `with` (both compile
    /// the same).
    pub(super) fn is_return_tail(&self, mut s: BlockId, h: BlockId) -> bool {
        let pre311 = !self.has_cleanup(h);
        // An `async with` exit awaits `__aexit__()`: the exception ranges of its
        // `await` loop cut the chain into blocks of `Nop`s after the exit.
        let mut seen_exit = false;
        for _ in 0..32 {
            let blk = &self.cfg.blocks[s.index()];
            let ops: Vec<&Op> = self.ir[blk.start..blk.end].iter().map(|i| &i.op).filter(|o| !matches!(o, Op::Nop)).collect();
            // Only 3.10 copies the small exit block of a `return <const>` after the
            // `with` into the jump at the body's end (`Python/compile.c`
            // `extend_block`); 3.8-3.9 ([`Self::dead_jumps_kept`]) jump to it, so
            // a block that goes on to load the constant is a `return` inside the body.
            if pre311 && !self.dead_jumps_kept && ops.iter().position(|o| matches!(o, Op::WithExit)).is_some_and(|w| w + 1 < ops.len() && ops[w + 1].is_literal_load()) {
                return false;
            }
            // `SWAP 2; POP_TOP` drops the iterator of an enclosing `for` under the
            // returned value (CPython 3.11+ `compiler_unwind_fblock` of `FOR_LOOP`).
            let iter_pop = |j: usize| j > 0 && matches!(ops[j - 1], Op::Swap(2));
            // 3.8-3.9: where the arms of an `if` ending the body meet at the
            // `POP_BLOCK`, the `return` after it is reached from several blocks of
            // the body (and lies outside the range); a `return` after the `try` or in
            // an `else:` is reached by the body's `JUMP_FORWARD` instead.
            let join = self.dead_jumps_kept && blk.preds.len() > 1 && blk.preds.iter().all(|&p| self.protected_by(p, h));
            if (blk.preds.len() != 1 && !join) || !ops.iter().enumerate().all(|(j, o)| (matches!(o, Op::Return | Op::WithExit | Op::Swap(2)) || o.is_literal_load()) || matches!(o, Op::PopTop) && iter_pop(j)) {
                return false;
            }
            if matches!(ops.last(), Some(Op::Return)) {
                return true;
            }
            let exits = ops.iter().any(|o| matches!(o, Op::WithExit));
            seen_exit |= exits;
            match blk.term {
                // Only a chain of `with` exits: a plain fall-through is code after.
                Terminator::FallThrough(n) | Terminator::Jump(n) if (exits || join || (seen_exit && ops.is_empty())) && !self.loop_edge(n) => s = n,
                _ => return false,
            }
        }
        false
    }

    /// Where the `except` clauses of handler `h` join the code after the `try`: the
    /// block that a handler exit jumps or falls to, where a handler exit is a block
    /// outside `cleanup`'s protection (the `COPY 3; POP_EXCEPT; RERAISE 1` block)
    /// that only pops the exception (`POP_EXCEPT`, then `name = None; del name` for
    /// `except E as name`). `None` when no exit is of that shape, as when CPython
    /// 3.12+ copies a small tail into each exit (`compiler.c` / `flowgraph.c` inline
    /// exit blocks without a line number) or every clause returns or re-raises. A
    /// join that `e1`, the body's normal exit, does not reach (an `else` that
    /// returns) must not start with a copy of the enclosing `finally` body: a
    /// `continue` in a clause inside `try`/`finally` goes to such a copy.
    ///
    /// CPython 3.12+ moves handlers after all other code (cold blocks), so the join
    /// can lie before the handler; 3.11 lays it out after the clean-up block.
    fn handler_join(&self, h: BlockId, cleanup: BlockId, e1: Option<BlockId>) -> Option<BlockId> {
        let from_body = e1.map(|e| self.reach(e));
        let mut seen = vec![false; self.cfg.blocks.len()];
        let mut work = vec![h];
        seen[h.index()] = true;
        let mut joins: Vec<BlockId> = Vec::new();
        while let Some(x) = work.pop() {
            for s in self.cfg.blocks[x.index()].succs() {
                if seen[s.index()] || self.loop_edge(s) {
                    continue;
                }
                seen[s.index()] = true;
                if self.protected_by(s, cleanup) {
                    work.push(s);
                    continue;
                }
                let code = &self.rec.blocks[s.index()];
                if code.collapsed_to.is_some() || code.error.is_some() || !only_pops_exception(self.stmts(s)) {
                    continue;
                }
                if let Terminator::Jump(t) | Terminator::FallThrough(t) = self.cfg.blocks[s.index()].term {
                    // A pop of an enclosing handler next is that handler's exit, not
                    // code after this `try`.
                    let pops_again = self.pops_next(t);
                    // Where the body's normal exit leads too; else not a copy of the
                    // enclosing `finally` body (a `continue`/`break` leaving it).
                    let shared = from_body.as_ref().is_none_or(|r| r[t.index()]) || !(self.runs_final_first(t) || self.copies_final_ops(t));
                    // (A block of its own that only jumps to the current loop's
                    // follow is a `break` too, see `handler_break_target`.)
                    let breaks = self.loops.last().is_some_and(|l| l.follow.is_some() && l.follow == Some(self.skip_empty(t)));
                    if !self.loop_edge(t) && !breaks && !pops_again && shared && !joins.contains(&t) {
                        joins.push(t);
                    }
                }
            }
        }
        joins.into_iter().min_by_key(|j| (self.rpo_index[j.index()], j.index()))
    }

    /// Whether the instructions at `t` are a copy of those of the innermost
    /// enclosing `finally` body as its handler runs them (CPython 3.11+: after the
    /// handler's `PUSH_EXC_INFO`, up to each `RERAISE` that ends it), branches
    /// included: the two are walked in step, each conditional jump of one matching
    /// the same jump of the other, on both of its edges. That body's statements
    /// span several basic blocks when it holds an `if` (or any branch), which
    /// [`Structurer::runs_final_first`] (statements of one block) misses: a clause's
    /// `return` then runs such a copy after its `POP_EXCEPT`, which is no code
    /// after the `try` where the clauses join.
    fn copies_final_ops(&self, t: BlockId) -> bool {
        if self.finals.last().is_none_or(|f| f.is_empty()) {
            return false;
        }
        let Some(hf) = self.opened.iter().zip(&self.opened_finally).rev().find(|&(&h, &fin)| fin && !self.is_with_handler(h)).map(|(&h, _)| h) else {
            return false;
        };
        let hstart = self.cfg.blocks[hf.index()].start;
        if !matches!(self.ir.get(hstart).map(|x| &x.op), Some(Op::PushExcInfo)) {
            return false;
        }
        // An op with its jump target cleared: the two copies jump to different
        // offsets.
        let bare = |op: &Op| -> Op {
            let mut o = op.clone();
            match &mut o {
                Op::Jump(t) | Op::ForIter(t) | Op::JumpIf { target: t, .. } | Op::JumpIfNone { target: t, .. } | Op::JumpIfOrPop { target: t, .. } => *t = 0,
                _ => {}
            }
            o
        };
        let index_of = |off: u32| self.ir.partition_point(|x| x.offset < off);
        let next = |i: usize| self.next_real_op(i);
        let mut work = vec![(self.cfg.blocks[t.index()].start, hstart + 1)];
        let mut seen = BTreeSet::new();
        let mut steps = 0;
        while let Some((a, b)) = work.pop() {
            steps += 1;
            if steps > 512 {
                return false;
            }
            let (Some(x), Some(y)) = (next(a), next(b)) else { return false };
            if !seen.insert((x, y)) {
                continue;
            }
            let q = &self.ir[y].op;
            if matches!(q, Op::Reraise) {
                // The end of the `finally` body in the handler: the copy goes on
                // to its exit here.
                continue;
            }
            if x == y {
                return false;
            }
            let p = &self.ir[x].op;
            if bare(p) != bare(q) {
                return false;
            }
            if matches!(p, Op::Return | Op::Raise(_)) {
                continue;
            }
            if let (Some(tp), Some(tq)) = (p.jump_target(), q.jump_target()) {
                work.push((index_of(tp), index_of(tq)));
            }
            work.push((x + 1, y + 1));
        }
        !seen.is_empty()
    }

    /// Whether the code at `t` starts with a copy of the innermost enclosing `finally`
    /// body (CPython runs it before a `break`/`continue`/`return` leaves the `try`).
    ///
    /// A `finally` body that starts with a `try` statement has its copy start
    /// with that `try`'s body, in a block that a handler of its own protects
    /// ([`Structurer::copy_starts_with_try`]).
    fn runs_final_first(&self, t: BlockId) -> bool {
        let Some(f) = self.finals.last().filter(|f| !f.is_empty()) else { return false };
        let stmts = self.stmts(t);
        (stmts.len() >= f.len() && print_body(&stmts[..f.len()], 0) == print_body(f, 0)) || self.copy_starts_with_try(t, &f[0])
    }

    /// Whether block `t` starts a copy of `first`, the first statement of a
    /// `finally` body, when that is a `try`/`except` (no `finally` of its own):
    /// `t` has statements, is protected by a `try` handler, and its statements
    /// start the `try` body (or are all of it and a `return <constant>`, which
    /// CPython 3.15 protects with the body, see `depyf_ir::normalize`). (CPython
    /// copies the whole `finally` body, its protected ranges included, before each
    /// way out of the `try`: `Python/compile.c` `compiler_unwind_fblock`, 3.9+.)
    /// Blocks without statements before `t` (the `NOP` of the `finally:` line)
    /// are passed over.
    fn copy_starts_with_try(&self, mut t: BlockId, first: &Stmt) -> bool {
        let Stmt::Try(tb, hs, _, fb) = first else { return false };
        for _ in 0..8 {
            let code = &self.rec.blocks[t.index()];
            if !self.no_stmts(t) || code.collapsed_to.is_some() || code.error.is_some() || self.cfg.blocks[t.index()].handler.is_some() {
                break;
            }
            match self.cfg.blocks[t.index()].term {
                Terminator::Jump(n) | Terminator::FallThrough(n) if !self.loop_edge(n) => t = n,
                _ => return false,
            }
        }
        let stmts = self.stmts(t);
        let k = stmts.len().min(tb.len());
        let const_return = |s: &Stmt| matches!(s, Stmt::Return(None | Some(Expr::Const(_))));
        !hs.is_empty()
            && fb.is_empty()
            && k > 0
            && (stmts.len() == k || (stmts.len() == k + 1 && const_return(&stmts[k])))
            && print_body(&tb[..k], 0) == print_body(&stmts[..k], 0)
            && self.cfg.blocks[t.index()].handler.is_some_and(|c| !c.lasti && self.is_exc_entry(c.target))
    }

    /// Whether the code at `t`, past blocks without statements, starts by popping
    /// an exception.
    fn pops_next(&self, mut t: BlockId) -> bool {
        for _ in 0..8 {
            let code = &self.rec.blocks[t.index()];
            if let Some(s) = self.stmts(t).first() {
                return is_marker(s, markers::POP_EXCEPT);
            }
            match self.cfg.blocks[t.index()].term {
                Terminator::Jump(n) | Terminator::FallThrough(n) if code.collapsed_to.is_none() && !self.loop_edge(n) => t = n,
                _ => return false,
            }
        }
        false
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
        // (3.10) The copies of the normal exit that inner `except` clauses go on
        // to (see `handler_exit_copies`) end the body as that exit does. Not
        // those of a `return <const>`, which a clause's own `return` of the
        // constant reads the same as (the `finally` body's copy is dropped).
        let exit_copies = match exits.as_slice() {
            [e] if self.small_exits_extended && !self.ends_with_const_return(self.cfg.blocks[e.index()].start) && self.uses_no_body_value(*e) => self.handler_exit_copies(b, h, &exits),
            _ => Vec::new(),
        };
        if exits.len() > 1 {
            // Exits that are blocks of jumps alone (no code, nothing they could
            // raise) going on to one block, and maybe that block itself when it
            // ends the body of an enclosing `with` (its `__exit__` call): that
            // block is the one exit. CPython 3.13+ gives the `JUMP_FORWARD` at the
            // end of an `if` arm that ends a `try` body a block of its own outside
            // the `try`'s range (under the range of a `with` around it), besides the
            // `NOP` the other arm falls into. (Not a loop's header: the jumps are
            // the end of its body, `continue`. Nor, taken alone, a block the body
            // reaches without jumps: the exits then read as they are.)
            let through = |x: BlockId| self.jump_only_target(x).unwrap_or(x);
            let t = through(exits[0]);
            let with_end = self.body_exits.contains(&t) && !self.try_exits.iter().any(|&(e, _)| e == t);
            if exits.iter().all(|&x| (x != t || with_end) && through(x) == t) && !self.protected_by(t, h) && self.latches[t.index()].is_empty() {
                exits = vec![t];
            }
        }
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
        let with = self.is_with_handler(h);
        // Each exit of the body other than the normal one (`break`, `continue`,
        // `return`) runs its own copy of the `finally` body or `__exit__` call; each
        // copy is checked and read as its exit statement alone (see
        // `split_exit_copies`: 3.11+, and 3.8-3.10 once the copies that are part of
        // the body are merged above).
        let mut stubs = Vec::new();
        if exits.len() > 1 && self.has_cleanup(h) {
            // CPython 3.12+ copies a small exit block after the statement (`return
            // r`) into each jump to it (`Python/flowgraph.c`
            // `inline_small_exit_blocks`): exits whose ops are all the same are that
            // one block, outside the protected range, and read as the first. Their
            // statements must be the same too: the same ops that return values
            // left on the stack by different code (`return f()` and `return g()`
            // before a `finally` body) recover to different temporaries.
            let start = |x: BlockId| self.cfg.blocks[x.index()].start;
            let first = exits[0];
            if exits[1..].iter().all(|&x| self.same_code(start(first), start(x))) {
                let r = self.copy_region(first, stop, err)?;
                // Flow that leaves the copies goes on nowhere that the body could
                // meet again.
                let mut same = ends_control(&r);
                let text = print_body(&r, 0);
                for &x in &exits[1..] {
                    same &= print_body(&self.copy_region(x, stop, err)?, 0) == text;
                }
                if same {
                    stubs = exits.split_off(1).into_iter().map(|x| (x, Vec::new())).collect();
                }
            }
        }
        if exits.len() > 1 {
            let (e, s) = self.split_exit_copies(&exits, h, stop, with, err)?;
            exits = e.into_iter().collect();
            stubs = s;
        }
        if exits.len() > 1 {
            return Err(err("a try or with body with several exits"));
        }
        let e1 = exits.first().copied();
        // The handler first: a `finally` body is needed to recognise its copies
        // after the end of the `except` clauses inside the body.
        let (after, hstmts) = if with { (None, Vec::new()) } else { self.handler_body(h, e1, stop, err)? };
        let mut hstmts = if with { hstmts } else { hoist_reraise(hstmts) };
        if !with && self.finally_without_end(h, &hstmts) {
            hstmts.push(Stmt::Expr(Expr::Name(markers::RERAISE.into())));
        }
        let is_finally = !with && is_finally_handler(&hstmts);
        let mut hstmts = if is_finally { drop_exit_pops(&hstmts) } else { hstmts };
        if is_finally {
            hoist_nested_clause_reraise(&mut hstmts);
            self.finals.push(hstmts[..hstmts.len() - 1].to_vec());
        }
        self.opened.push(h);
        self.opened_finally.push(is_finally || with);
        self.body_exits.extend(e1);
        let n_try_exits = self.try_exits.len();
        if !with && (!is_finally || self.has_cleanup(h)) {
            self.try_exits.extend(e1.map(|e| (e, self.loops.len())));
        }
        stubs.extend(exit_copies.into_iter().map(|x| (x, Vec::new())));
        let n_stubs = self.exit_stubs.len();
        if !stubs.is_empty() {
            self.exit_stubs.extend(stubs.iter().cloned());
            // Flow that reaches the normal exit leaves the body there.
            self.exit_stubs.extend(e1.map(|e| (e, Vec::new())));
            let open = self.loops.len();
            self.exit_stub_loops.resize(self.exit_stubs.len(), (open, e1));
        }
        let mut body = Vec::new();
        // The normal exits reached inside the body are this statement's end.
        let hits = self.exit_hits;
        let r = self.region_into(&mut body, b, e1.or(stop), entering_loop, err);
        self.exit_hits = hits;
        self.exit_stubs.truncate(n_stubs);
        self.exit_stub_loops.truncate(n_stubs);
        self.opened.pop();
        self.opened_finally.pop();
        if e1.is_some() {
            self.body_exits.pop();
        }
        self.try_exits.truncate(n_try_exits);
        if is_finally {
            self.finals.pop();
        }
        r?;
        fold_returns(&mut body, with);
        if with {
            if finally_copies {
                return Err(err("a try or with body with several exits"));
            }
            return self.finish_with(out, body, h, e1, stop, err);
        }
        if is_finally {
            // `finally`: the handler runs it and re-raises; the normal exit runs a
            // copy of it first.
            let fbody: Vec<Stmt> = hstmts[..hstmts.len() - 1].to_vec();
            let n = fbody.len();
            let mut rest = Vec::new();
            match e1 {
                Some(e1) => {
                    // (Read as the handler's copy is: `Structurer::loop_end_merge`
                    // would write a copy that ends a loop body otherwise.)
                    self.handler_loops.push(self.loops.len());
                    let r = self.region_into(&mut rest, e1, stop, false, err);
                    self.handler_loops.pop();
                    r?;
                    // `try: return x` then a copy of the `finally` body that rebinds
                    // `x`: the value loaded in the body waits on the stack, and
                    // recovery names it before the copy's store. The load is the
                    // body's (nothing runs between the body and its copy), so is
                    // the naming; the `return` of it after the copy folds back
                    // into the body (`idioms::fold_returned_temps`).
                    if let Some(Stmt::Assign(t, Expr::Name(_))) = rest.first() {
                        if matches!(t.as_slice(), [Expr::Name(tn)] if tn.starts_with("__temp_") && matches!(rest.last(), Some(Stmt::Return(Some(Expr::Name(r)))) if r == tn)) && rest.len() > 2 {
                            body.push(rest.remove(0));
                        }
                    }
                }
                // Every way out of the body is a copy read as its statement, or
                // there is none: the body always raises (or loops for ever), and
                // the finally body runs in the handler only.
                // A loop of the body left only by `break`s in its `except` clauses
                // (handler code, which `body_exits` does not walk) goes on after
                // the loop to the copy of the `finally` body that the normal exit
                // runs, then to the code after the `try`: the region read them in
                // the body, which would run the `finally` body twice. From that
                // copy on (right after a loop, starting as the `finally` body does;
                // CPython 3.12+ copies the small exit after it into the ends of its
                // last `if`, matched below) is the code after the body.
                None => match (1..body.len()).rev().find(|&i| matches!(body[i - 1], Stmt::While(..) | Stmt::For(..)) && body.len() - i >= n && body[i] == fbody[0]) {
                    Some(i) if n > 0 => rest = body.split_off(i),
                    _ => rest = fbody.clone(),
                },
            }
            if rest.len() == n && n > 0 {
                // CPython 3.12+ copies the small exit block after the `try` into
                // every end of a copy that ends in an `if` (see `is_copy_before`):
                // that exit is the code after the `try` when every end has it.
                if let Some(t) = small_exit_tail(&rest[n - 1]).or_else(|| tail_loop_return(&rest[n - 1])).cloned() {
                    if all_tails_leave(&rest[n - 1], &t) && !is_copy_before(&rest, &[], &fbody) && is_copy_before(&rest, std::slice::from_ref(&t), &fbody) {
                        rest.push(t);
                    }
                }
            }
            if rest.len() == n && n > 0 && !is_copy_before(&rest, &[], &fbody) {
                // The same with a `return` of any value (a local: CPython 3.12+
                // copies `LOAD_FAST x; RETURN_VALUE` too) when only `if` arms end in
                // it: an arm that ends in the `return` goes on to the same `return`
                // put after the `if`, whatever it returns.
                if let Some(t) = if_return_tail(&rest[n - 1]).cloned() {
                    if if_tails_leave(&rest[n - 1], &t) && is_copy_before_return(&rest, &t, &fbody) {
                        strip_tail_return(&mut rest[n - 1], &t);
                        rest.push(t);
                    }
                }
            }
            if rest.len() > n && !is_copy_before(&rest[..n], &rest[n..], &fbody) {
                // A copy whose `if`/`else` arms each end in a copy of the exit after
                // it reads as guarding `if`s (`if c: A; return` then the rest).
                if let Some(u) = unguard(&rest).filter(|u| u.len() == n + 1 && is_copy_before(&u[..n], &u[n..], &fbody)) {
                    rest = u;
                }
            }
            if rest.len() == n + 1 && !is_copy_before(&rest[..n], &rest[n..], &fbody) && is_copy_before_return(&rest[..n], &rest[n], &fbody) {
                // The copy's `if` arms end in copies of the `return` after it.
                let mut last = rest[n - 1].clone();
                strip_tail_return(&mut last, &rest[n]);
                rest[n - 1] = last;
            }
            if rest.len() < n || !is_copy_before(&rest[..n], &rest[n..], &fbody) {
                return Err(err("the normal exit of a try/finally does not run the finally body"));
            }
            // CPython copies the finally body before every return/break/continue
            // that leaves the try: drop those copies, the `finally` runs once.
            strip_finally_copies(&mut body, &fbody, &|n| self.is_plain_local(n));
            if copy_before_leaving(&body, &fbody, false) || merged_try_copy(&body, &fbody) {
                // e.g. 3.10 puts the rotated test of a `while` after the copy of a
                // `continue` in an `except` clause: kept, the finally would run twice.
                return Err(err("a copy of the finally body before code that leaves the try"));
            }
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
            // 3.8-3.9: a `return <const>` at the end of the body runs its copy of
            // the `finally` body, then loads the constant and returns, before the
            // handler; a `return` after the `try` comes after the handler (3.9 jumps
            // over it, 3.8 runs the shared body through `END_FINALLY`). Constants
            // only: a value returned from an enclosing `try` is on the stack before
            // a copy of this statement, and the peephole pass turns the jump over
            // the handler into that `RETURN_VALUE`.
            let mut rest = rest;
            if self.dead_jumps_kept && rest.len() == n + 1 && matches!(rest[n], Stmt::Return(None | Some(Expr::Const(_)))) && e1.is_some_and(|e| self.returns_before(e, h)) {
                body.extend(rest.pop());
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
        let mut body = body;
        if self.returns_into_dead_exit(h) {
            else_to_last_return(&mut body);
        }
        // Code after a clause's `POP_EXCEPT` is cut out as the code after the `try`
        // on 3.11+ only; 3.9-3.10 handlers are read as before (`clean` refuses a bare
        // `raise` there).
        let fins = if self.has_cleanup(h) { Some(self.finals.clone()) } else { None };
        let body = if body.is_empty() { vec![Stmt::Pass] } else { body };
        // Read as written, the code after the clauses being the end of the code at
        // `e1`; else with the copies of the code after the current loop that end
        // clauses read as `break` (see `clauses_break`); else with an `else` that
        // always leaves (see `handlers_and_after`).
        let breaks = match (fins.is_some() || self.small_exits_extended, self.after_loop_code(err)) {
            (true, Some(a)) => {
                let mut hs = hstmts.clone();
                clauses_break(&mut hs, &print_body(&a, 0)).then_some(hs)
            }
            _ => None,
        };
        // 3.10 reads a clause's copy of the code after the loop as `break` first: its
        // plain reading as the clause's own `return` never fails (no clean-up ranges).
        let first_break = match (&breaks, self.small_exits_extended) {
            (Some(hs), true) => self.handlers_and_after(hs, fins.as_deref(), e1, after, stop, true, err).ok(),
            _ => None,
        };
        let mut attempt = match first_break {
            Some(x) => Ok(x),
            None => self.handlers_and_after(&hstmts, fins.as_deref(), e1, after, stop, false, err),
        };
        if attempt.is_err() {
            if let Some(hs) = breaks {
                if let Ok(x) = self.handlers_and_after(&hs, fins.as_deref(), e1, after, stop, true, err) {
                    attempt = Ok(x);
                }
            }
        }
        if attempt.is_err() {
            if let Ok(x) = self.handlers_and_after(&hstmts, fins.as_deref(), e1, after, stop, true, err) {
                attempt = Ok(x);
            }
        }
        let (handlers, tail) = attempt?;
        if let Some((orelse, p)) = tail {
            let mut body = body;
            if let (None, [t @ Stmt::Return(None | Some(Expr::Const(_)))]) = (e1, p.as_slice()) {
                // A body without normal exit whose ends return the constant that
                // the clauses go on to after the `try`: CPython 3.11+ copies that
                // exit block, which has no line number when the `return` is the
                // implicit one, to each end of the body (`Python/flowgraph.c`
                // `duplicate_exits_without_lineno`, `inline_small_exit_blocks`);
                // the body falls through to it instead. A constant's `return`
                // does the same inside and after the `try` (loading it cannot
                // raise).
                strip_tail_exit(&mut body, t, true);
            }
            out.push(Stmt::Try(body, handlers, orelse, Vec::new()));
            out.extend(p);
            return Ok(());
        }
        if let (Some(e), None) = (e1, after) {
            if let Some(end) = self.written_try_else(e, h, stop) {
                // No clause falls through: the code laid out between the body and
                // the handlers is the `else` (the same flow as code after the `try`).
                let orelse = self.region(e, end.or(stop), err)?;
                out.push(Stmt::Try(body, handlers, orelse, Vec::new()));
                return match end {
                    Some(a) if Some(a) != stop => self.region_into(out, a, stop, false, err),
                    _ => Ok(()),
                };
            }
        }
        match (e1, after) {
            // The body's normal exit is where the enclosing region ends (the exit
            // of a `with` around the `try`, or a jump there: CPython 3.11) and the clauses go on to other code (a
            // `return` of an enclosing `with` after the `POP_EXCEPT`, with its own
            // copy of the `__exit__` call): that code is no `else` nor code after
            // the `try`, whose normal exit never runs it. (A copy of the code at the
            // exit is the same flow: CPython 3.12+ copies a small exit block into
            // each jump to it, `Python/flowgraph.c` `inline_small_exit_blocks`.)
            (Some(e), Some(a)) if stop.is_some_and(|s| self.jumps_to(e, s)) && e != a && !self.same_code(self.cfg.blocks[e.index()].start, self.cfg.blocks[a.index()].start) => {
                // `with m: try: B` + `except E: ...; return <const>`: the clause's
                // `return` calls `__exit__` in a copy of its own after the
                // `POP_EXCEPT` (CPython 3.11+ `compiler_unwind_fblock` of the
                // `WITH` block), and the `return` of a constant comes after it.
                // That copy, read as the `return` alone, ends the clauses that fall
                // off their end (a clause that jumped to the normal exit instead
                // would have that code, the exit's `__exit__` call included, in its
                // own body: left in, it refuses).
                let within_with = self.opened.last().is_some_and(|&w| self.is_with_handler(w)) && self.has_cleanup(h);
                let tail = self.region(a, stop, err)?;
                let ret = match tail.as_slice() {
                    [m, r @ Stmt::Return(None | Some(Expr::Const(_)))] if within_with && is_marker(m, markers::WITH_EXIT) => r.clone(),
                    _ => return Err(err("except clauses that go on elsewhere than the end of the region around their try")),
                };
                let mut handlers = handlers;
                for c in &mut handlers {
                    if !ends_control(&c.body) {
                        if c.body.len() == 1 && matches!(c.body[0], Stmt::Pass) {
                            c.body.clear();
                        }
                        c.body.push(ret.clone());
                    }
                }
                out.push(Stmt::Try(body, handlers, Vec::new(), Vec::new()));
                Ok(())
            }
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

    /// The `except` clauses of handler statements `hstmts` and, where code runs
    /// after a clause's exception is popped (`posts`, see [`split_after_pop`]; `fins`
    /// given for 3.11+ handlers), the `else` clause and that code, which is the code
    /// after the `try` (`None` when no clause has such code). `e1` is the body's
    /// normal exit and `after` where the clauses join the code after the `try`. The
    /// code after the clauses must be the same in all of them, and either the end of
    /// the code at `e1` (the rest is the `else`) or code that `e1` never reaches: an
    /// `else` that always leaves (returns, raises, breaks or continues) is all of the
    /// code at `e1`, and only the clauses go on to the code after the `try` (read so
    /// only with `else_leaves`).
    ///
    /// Copies of one `return <const>` at the ends of a clause's last `if` are read
    /// first as the code after the `try` (see [`split_after_pop`]), then, if that
    /// reading fails, as the clause's own `return`. (Each reading takes a copy of
    /// `hstmts`: the caller's own stays for its other readings.)
    #[allow(clippy::type_complexity)]
    fn handlers_and_after(
        &mut self,
        hstmts: &[Stmt],
        fins: Option<&[Vec<Stmt>]>,
        e1: Option<BlockId>,
        after: Option<BlockId>,
        stop: Option<BlockId>,
        else_leaves: bool,
        err: &dyn Fn(&str) -> DecompileError,
    ) -> Result<(Vec<ExceptHandler>, Option<(Vec<Stmt>, Vec<Stmt>)>), DecompileError> {
        if fins.is_some() {
            let copies = if e1.is_none() && self.small_exits_inlined { ConstExits::All } else { ConstExits::Copies };
            if let Ok(x) = self.handlers_and_after_read(hstmts.to_vec(), fins, e1, after, stop, else_leaves, copies, err) {
                return Ok(x);
            }
        } else if self.small_exits_extended {
            // The copy may follow an `else` that always leaves (`try: x = f()
            // except E: pass else: return g(x)` then `return y`): that reading comes
            // before the clause's own `return`, which any layout allows.
            for leaves in [else_leaves, true] {
                if let Ok(x) = self.handlers_and_after_read(hstmts.to_vec(), fins, e1, after, stop, leaves, ConstExits::LoadedAfterPop, err) {
                    return Ok(x);
                }
            }
        }
        self.handlers_and_after_read(hstmts.to_vec(), fins, e1, after, stop, else_leaves, ConstExits::Keep, err)
    }

    /// [`Structurer::handlers_and_after`] with copies of a constant's `return` at
    /// the ends of a clause cut as the code after the `try` (`copies`) or not.
    #[allow(clippy::type_complexity)]
    #[allow(clippy::too_many_arguments)]
    fn handlers_and_after_read(
        &mut self,
        hstmts: Vec<Stmt>,
        fins: Option<&[Vec<Stmt>]>,
        e1: Option<BlockId>,
        after: Option<BlockId>,
        stop: Option<BlockId>,
        else_leaves: bool,
        copies: ConstExits,
        err: &dyn Fn(&str) -> DecompileError,
    ) -> Result<(Vec<ExceptHandler>, Option<(Vec<Stmt>, Vec<Stmt>)>), DecompileError> {
        let mut posts = Vec::new();
        let handlers = parse_handlers(hstmts, &mut posts, fins, copies).map_err(|m| err(m))?;
        let Some(p) = posts.first() else { return Ok((handlers, None)) };
        // Code after an exception is popped runs outside the handler: it is the
        // code after the `try` (CPython 3.12+ copies small tails into each exit).
        let text = print_body(p, 0);
        if posts.iter().any(|q| print_body(q, 0) != text) {
            return Err(err("except clauses followed by different code after their exception is popped"));
        }
        if after.is_some() {
            return Err(err("code between the end of an except clause and the code after its try"));
        }
        let orelse = match e1 {
            None => Vec::new(),
            Some(e) if self.loop_edge(e) => return Err(err("an except clause followed by code where its try body continues a loop")),
            Some(e) => {
                let r = self.region(e, stop, err)?;
                if r.len() >= p.len() && print_body(&r[r.len() - p.len()..], 0) == text {
                    r[..r.len() - p.len()].to_vec()
                } else if else_leaves && ends_control(&r) {
                    // `try: ... except E: pass else: return x` then `return y`.
                    r
                } else {
                    return Err(err("the code after an except clause is not the code after its try"));
                }
            }
        };
        let p = p.clone();
        Ok((handlers, Some((orelse, p))))
    }

    /// The code after the current loop (what a `break` runs), read outside the
    /// loop, when it always leaves (returns, raises, or continues or breaks an
    /// enclosing loop): CPython 3.12+ copies such a small exit block into each jump
    /// to it (`Python/flowgraph.c` `inline_small_exit_blocks`). `None` outside a
    /// loop, for a loop without follow, or for other code.
    fn after_loop_code(&mut self, err: &dyn Fn(&str) -> DecompileError) -> Option<Vec<Stmt>> {
        let f = self.loops.last().and_then(|l| l.follow)?;
        // Read outside the loop (inside it, its follow is `break`).
        let l = self.loops.pop();
        let a = self.region(f, None, err);
        self.loops.extend(l);
        a.ok().filter(|a| ends_control(a))
    }

    /// For a `try` whose `except` clauses never fall through, body exit `e` and
    /// handler `h`: whether an `else` was written (see
    /// [`Structurer::else_before_handlers`]: `e` lies between the body and `h` in
    /// layout order), and where it ends: `Some(None)` when it never goes on (every
    /// path returns, raises or leaves the loop), `Some(Some(a))` when it goes on at
    /// `a` alone, laid out after the handlers (the code after the `try`). `None`:
    /// no `else`, or one that goes on at several places.
    fn written_try_else(&self, e: BlockId, h: BlockId, stop: Option<BlockId>) -> Option<Option<BlockId>> {
        // A body that never completes has as its one exit the unwinding of a
        // `return` (popping an enclosing handler's exception, or running a copy of
        // an enclosing `finally` body), not an `else`.
        if !self.else_before_handlers || e >= h || Some(e) == stop || self.loop_edge(e) || self.pops_next(e) || self.runs_final_first(e) {
            return None;
        }
        let mut seen = vec![false; self.cfg.blocks.len()];
        let mut work = vec![e];
        seen[e.index()] = true;
        let mut end = None;
        // Unwinding of enclosing statements on the way out of the `else` (the
        // `POP_EXCEPT` of a `return` inside an `except` clause, an `__exit__` call
        // of an enclosing `with`) is read where the code after the `try` is.
        let (mut enters, mut exits) = (false, false);
        while let Some(x) = work.pop() {
            let text = print_body(self.stmts(x), 0);
            if text.contains(markers::POP_EXCEPT) || text.contains(markers::POP_EXCEPT_HELD) {
                return None;
            }
            enters |= text.contains(markers::WITH_ENTER);
            exits |= text.contains(markers::WITH_EXIT);
            for s in self.cfg.blocks[x.index()].succs() {
                if self.loop_edge(s) || seen[s.index()] {
                    continue;
                }
                if Some(s) == stop || s > h {
                    match end {
                        None => end = Some(s),
                        Some(a) if a == s => {}
                        Some(_) => return None,
                    }
                    continue;
                }
                seen[s.index()] = true;
                work.push(s);
            }
        }
        if exits && !enters {
            return None;
        }
        Some(end)
    }

    /// Where a `while True:` loop with header `header` and blocks `body`, which no
    /// normal edge leaves, goes on after a `break` in an `except` clause of a `try`
    /// inside it: CPython (`Python/compile.c` `compiler_break`) unwinds the handler
    /// (`POP_EXCEPT`, and `name = None; del name` for `except E as name`) in a
    /// block of its own that jumps to the block after the loop. The handlers walked
    /// are those of the body that do not protect the header (an enclosing `try`'s
    /// exits are not the loop's), of CPython 3.11+, and the `except` clauses of
    /// CPython 3.8-3.9, whose `break` is `POP_EXCEPT` and a `JUMP_ABSOLUTE` out of
    /// the loop (3.10 handlers without a clean-up handler are structured from where
    /// their exits meet, but for a loop inside a `try` or `with` body). `None` when no such block leaves the loop, or
    /// when such blocks go to different places.
    pub(super) fn handler_break_target(&self, header: BlockId, body: &BTreeSet<BlockId>) -> Option<BlockId> {
        let mut seen = vec![false; self.cfg.blocks.len()];
        let mut work = Vec::new();
        for b in body {
            if let Some(e) = self.cfg.blocks[b.index()].handler {
                // (3.10 inside a `try` or `with` body being written too: read from
                // where its exits meet, the code after the loop would be written in
                // the loop, running on past the end of that body.)
                let clause = self.dead_jumps_kept || (self.pop_block_exits && !self.opened.is_empty());
                let walked = self.has_cleanup(e.target) || (clause && self.is_plain_except(e.target));
                // (A handler in the body too when a clause goes back into the loop
                // at the end of the `try` body, the loop's latch: CPython 3.12-3.13
                // jump there from its `POP_EXCEPT`. Its other clauses are walked.)
                let outside = !body.contains(&e.target) || (self.rpo_index[e.target.index()] == usize::MAX && !self.pop_block_exits);
                if outside && !seen[e.target.index()] && !self.protected_by(header, e.target) && walked {
                    seen[e.target.index()] = true;
                    work.push(e.target);
                }
            }
        }
        let mut found = None;
        while let Some(x) = work.pop() {
            for s in self.cfg.blocks[x.index()].succs() {
                if body.contains(&s) || seen[s.index()] {
                    continue;
                }
                seen[s.index()] = true;
                let code = &self.rec.blocks[s.index()];
                if code.collapsed_to.is_none() && code.error.is_none() && only_pops_exception(self.stmts(s)) {
                    if let Terminator::Jump(t) | Terminator::FallThrough(t) = self.cfg.blocks[s.index()].term {
                        // (Through a block of its own that only jumps on: CPython
                        // 3.12+ leaves the `JUMP_FORWARD` of a `break` in a clause of
                        // a `try` nested in another outside the outer handler's range.)
                        let t = if body.contains(&t) || self.pop_block_exits { t } else { self.skip_empty(t) };
                        if !body.contains(&t) {
                            if found.is_some_and(|f| f != t) {
                                return None;
                            }
                            found = Some(t);
                        }
                    }
                    continue;
                }
                work.push(s);
            }
        }
        found
    }

    /// Whether an `except` clause of a `try` nested in another `try`/`with` body
    /// inside the `while` loop of `header` (blocks `body`, the block after it
    /// `follow`) leaves that enclosing statement to somewhere other than the block
    /// after the loop through code of its own. A `break` there unwinds the
    /// enclosing statement too (CPython `Python/compile.c` `compiler_unwind_fblock`:
    /// `POP_BLOCK` on 3.8-3.10, a copy of the `finally` body or the `__exit__`
    /// call on every version) before jumping out; the loop's follow, found from
    /// the body's own exits or none at all, is then not where that `break` goes,
    /// and the code after the loop would be written at the `break`, inside the
    /// enclosing body (3.8-3.10 `code.InteractiveConsole.interact`), or the copy
    /// of the `finally` body after the loop. A clause nested in a plain
    /// `try`/`except` whose `break` goes straight to `follow` is read right.
    pub(super) fn clause_leaves_enclosing(&self, header: BlockId, body: &BTreeSet<BlockId>, follow: Option<BlockId>) -> bool {
        self.nested_clause_exits(header, body).into_iter().any(|(s, plain)| !(plain && follow.is_some_and(|f| self.jumps_to(s, f))))
    }

    /// Where the `except` clauses of `try` statements nested in another `try`/`with`
    /// body inside the loop of `header` (blocks `body`) leave that enclosing body
    /// (the first block past it that is not in the loop), each with whether the
    /// enclosing statement is a plain `try`/`except` (see
    /// [`Self::clause_leaves_enclosing`]). Exits that return a value loaded before
    /// the unwinding, or only return, are `return` statements, and code that goes
    /// back into the loop is a `continue` (after a copy of a `finally` body): left out.
    pub(super) fn nested_clause_exits(&self, header: BlockId, body: &BTreeSet<BlockId>) -> Vec<(BlockId, bool)> {
        let n = self.cfg.blocks.len();
        let mut done = vec![false; n];
        let mut out = Vec::new();
        for b in body {
            for h1 in self.handler_chain(*b) {
                if !self.is_exc_entry(h1) || body.contains(&h1) || done[h1.index()] || self.protected_by(header, h1) {
                    continue;
                }
                done[h1.index()] = true;
                // The innermost `try`/`with` handler around the clause, inside the loop.
                let Some(h2) = self.handler_chain(h1).into_iter().find(|h| self.is_exc_entry(*h)) else { continue };
                if self.protected_by(header, h2) {
                    continue;
                }
                let plain = self.is_plain_except(h2);
                let mut seen = vec![false; n];
                let mut work = vec![h1];
                seen[h1.index()] = true;
                while let Some(x) = work.pop() {
                    for s in self.cfg.blocks[x.index()].succs() {
                        if body.contains(&s) || seen[s.index()] {
                            continue;
                        }
                        seen[s.index()] = true;
                        if self.protected_by(s, h2) || s == h2 {
                            work.push(s);
                            continue;
                        }
                        if self.is_return_tail(s, h2) || self.returns_loaded_value(s) || self.goes_back_into(s, header, body) {
                            continue;
                        }
                        out.push((s, plain));
                    }
                }
            }
        }
        out
    }

    /// Whether the straight-line code from block `s` (code that leaves a `try` from
    /// a clause) goes on into the loop of `header` (blocks `body`): a `continue`
    /// after a copy of the `finally` body, not a way out of the loop.
    fn goes_back_into(&self, mut s: BlockId, header: BlockId, body: &BTreeSet<BlockId>) -> bool {
        for _ in 0..32 {
            if s == header || body.contains(&s) {
                return true;
            }
            match self.cfg.blocks[s.index()].term {
                Terminator::Jump(t) | Terminator::FallThrough(t) => s = t,
                _ => return false,
            }
        }
        false
    }

    /// Whether handler `h` starts an `except` clause chain (an exception type test,
    /// or a bare `except:` that pops the exception), not a `finally` body nor a
    /// `with` exit.
    fn is_plain_except(&self, h: BlockId) -> bool {
        let ops = self.first_ops(h, 6);
        ops.iter().any(|o| matches!(o, Op::CheckExcMatch)) || matches!(ops.as_slice(), [Op::PushExcInfo, Op::PopTop, ..])
    }

    /// Whether the straight-line code from block `x` (an exit of a `try`/`with`
    /// body) returns a value loaded before it: the op before its `RETURN_VALUE` ends
    /// a statement (a pop or a store, the end of the copied `finally` body or
    /// `__exit__` call), so the value was on the stack when the copy began, as for a
    /// `return v` in the body (CPython evaluates `v` first, then unwinds). A copy of
    /// code after the statement loads its value right before returning.
    fn returns_loaded_value(&self, mut x: BlockId) -> bool {
        let mut prev: Option<&Op> = None;
        for _ in 0..32 {
            let blk = &self.cfg.blocks[x.index()];
            for i in &self.ir[blk.start..blk.end] {
                match &i.op {
                    Op::Nop => {}
                    Op::Return => {
                        return matches!(prev, Some(Op::PopTop | Op::StoreFast(_) | Op::StoreName(_) | Op::StoreGlobal(_) | Op::StoreDeref(_) | Op::StoreAttr(_) | Op::StoreSubscr));
                    }
                    op => prev = Some(op),
                }
            }
            match blk.term {
                Terminator::FallThrough(n) | Terminator::Jump(n) => x = n,
                _ => return false,
            }
        }
        false
    }

    /// Like [`Self::returns_loaded_value`] through branches too: every `RETURN_VALUE`
    /// reached from block `x` (both arms of each branch, at most 32 blocks) follows
    /// an op that ends a statement or the conditional jump of an `if` (the value
    /// waits on the stack under the test, as in a copied `finally` body that ends
    /// in an `if` before a `return v` of the body: CPython 3.12+ copies the
    /// `RETURN_VALUE` block into each arm, `Python/flowgraph.c`
    /// `inline_small_exit_blocks`). A `return v` after the copy loads `v` in each
    /// arm right before returning. False when some path raises, loops or runs out.
    fn returns_loaded_value_paths(&self, x: BlockId) -> bool {
        let ends_stmt = |o: Option<&Op>| {
            matches!(o, Some(Op::PopTop | Op::StoreFast(_) | Op::StoreName(_) | Op::StoreGlobal(_) | Op::StoreDeref(_) | Op::StoreAttr(_) | Op::StoreSubscr | Op::JumpIf { .. } | Op::JumpIfNone { .. }))
        };
        let mut work: Vec<(BlockId, Option<&Op>)> = vec![(x, None)];
        let mut seen = 0;
        let mut returns = 0;
        while let Some((b, mut prev)) = work.pop() {
            seen += 1;
            if seen > 32 || !self.latches[b.index()].is_empty() {
                return false;
            }
            let blk = &self.cfg.blocks[b.index()];
            for i in &self.ir[blk.start..blk.end] {
                match &i.op {
                    Op::Nop => {}
                    Op::Return => {
                        if !ends_stmt(prev) {
                            return false;
                        }
                        returns += 1;
                    }
                    op => prev = Some(op),
                }
            }
            match blk.term {
                Terminator::FallThrough(n) | Terminator::Jump(n) => work.push((n, prev)),
                Terminator::Branch { jump, fall } => {
                    work.push((jump, prev));
                    work.push((fall, prev));
                }
                Terminator::Return => {}
                Terminator::Raise => return false,
            }
        }
        returns > 0
    }

    /// [`Self::region`] for code read as a copy of a `finally` body or of the code
    /// after a `try`/`with` (compared statement by statement with other copies):
    /// written as a handler's region is (see `Structurer::loop_end_merge`), the same
    /// wherever the copy stands.
    fn copy_region(&mut self, x: BlockId, stop: Option<BlockId>, err: &dyn Fn(&str) -> DecompileError) -> Result<Vec<Stmt>, DecompileError> {
        self.handler_loops.push(self.loops.len());
        let r = self.region(x, stop, err);
        self.handler_loops.pop();
        r
    }

    /// The statements of handler `h` (see `emit_try`) and the block where its
    /// `except` clauses join the code after the `try` (`None` when none does),
    /// given the body's normal exit `e1`.
    fn handler_body(&mut self, h: BlockId, e1: Option<BlockId>, stop: Option<BlockId>, err: &dyn Fn(&str) -> DecompileError) -> Result<(Option<BlockId>, Vec<Stmt>), DecompileError> {
        let after = match self.cfg.blocks[h.index()].handler {
            // The handler's own clean-up block (`COPY 3; POP_EXCEPT; RERAISE 1`,
            // 3.11+): the clauses join the code after the `try` where they pop.
            Some(c) if c.lasti && c.target != h => self.handler_join(h, c.target, e1),
            _ => {
                // No clean-up block (3.9-3.10: the handler's region ends where it
                // pops the exception): the first block past it that it reaches.
                // (On 3.8-3.9 not the current loop's follow: a clause whose
                // `POP_EXCEPT` jumps there is a `break`, see
                // `handler_break_target`, and the clauses join nowhere.)
                let end = self.handler_region_end(h);
                let rh = self.reach(h);
                let follow = |x: usize| self.dead_jumps_kept && self.loops.last().is_some_and(|l| l.follow == Some(BlockId(x as u32)));
                let a = (end.index() + 1..self.cfg.blocks.len()).find(|&x| rh[x] && !follow(x)).map(|x| BlockId(x as u32));
                match (a, stop) {
                    (Some(a), Some(s)) if a > s => Some(s),
                    (a, _) => a,
                }
            }
        };
        self.handler_loops.push(self.loops.len());
        let r = self.region(h, after.or(stop), err);
        self.handler_loops.pop();
        Ok((after, r?))
    }

    /// Splits the exits `exits` (more than one) of the body of the `try` or `with`
    /// (`with`) whose handler is `h` into
    /// the normal exit and the copies that leave the body by `break`, `continue` or
    /// `return`. CPython compiles each way out of the body into a copy of the
    /// `finally` body (or of the `__exit__(None, None, None)` call) followed by the
    /// jump or return (CPython 3.9-3.14 `Python/compile.c` `compiler_unwind_fblock`
    /// for `break`/`continue`/`return`, `compiler_try_finally`/`compiler_with` for the
    /// normal exit; 3.8's `finally` is normalized to 3.9's shape). Before 3.11 each
    /// copy starts after a `POP_BLOCK`, which the bytecode layer turns into the end of
    /// the protected range, and a `with` copy's `CALL_FUNCTION 3` of three `None`s is
    /// one [`Op::WithExit`] as on 3.11+: the copies have the 3.11 shape. Each exit's code must start with the same statements as the
    /// handler's `finally` body (or the exit marker); a copy is then read as its exit
    /// statement alone (returned with its block, for `exit_stubs`):
    /// - `break` or `continue` (a jump to the current loop's follow or header);
    /// - `return` of a constant, or of the temporary that holds a value computed in
    ///   the body before the copy;
    /// - the code after the current loop (CPython 3.12+ copies a small exit block
    ///   after a `for` into a `break`, `Python/flowgraph.c`
    ///   `inline_small_exit_blocks`): `break`.
    ///
    /// The exits of a `try` without `finally` have no copy before them: only
    /// `break`, `continue` and `return <const>` (which cannot raise, so the protected
    /// range does not matter) are read in the body.
    ///
    /// Any other exit is the normal one; there must be at most one (or several
    /// with the same statements that end in an exit statement). When every exit
    /// is a copy, one that `continue`s (the fall-through at the end of a loop body)
    /// is taken as the normal exit. Errors on any other shape.
    fn split_exit_copies(
        &mut self,
        exits: &[BlockId],
        h: BlockId,
        stop: Option<BlockId>,
        with: bool,
        err: &dyn Fn(&str) -> DecompileError,
    ) -> Result<(Option<BlockId>, Vec<ExitStub>), DecompileError> {
        const SEVERAL: &str = "a try or with body with several exits";
        // `try`/`except`: no copy; an exit that cannot raise (a jump, `return
        // <const>`) is the same statement inside or outside the protected range.
        let mut plain_try = false;
        let prologue = if with {
            vec![Stmt::Expr(Expr::name(markers::WITH_EXIT))]
        } else {
            let (_, hstmts) = self.handler_body(h, None, stop, err)?;
            // As `emit_try` reads it: a `finally` body that ends in an `if` has
            // the re-raise in both arms.
            let hstmts = hoist_reraise(hstmts);
            if is_finally_handler(&hstmts) {
                let f = drop_exit_pops(&hstmts);
                f[..f.len() - 1].to_vec()
            } else {
                plain_try = true;
                Vec::new()
            }
        };
        let text = print_body(&prologue, 0);
        let n = prologue.len();
        // The code after the current loop, which a `break` runs.
        let after_loop = self.after_loop_code(err);
        let mut normal = Vec::new();
        let mut stubs: Vec<ExitStub> = Vec::new();
        for &x in exits {
            let mut r = self.copy_region(x, stop, err)?;
            let mut copied_return = false;
            if r.len() < n || print_body(&r[..n], 0) != text {
                // CPython 3.12+ copies the small exit block after the copy (`return`
                // of a constant, `break`, `continue`) into every end of a copy that
                // ends in an `if` (see `is_copy_before`): flow leaving those ends
                // goes on to that exit, as it does after the `if`.
                let exit = r.last().filter(|t| matches!(t, Stmt::Return(None | Some(Expr::Const(_))) | Stmt::Break | Stmt::Continue)).cloned();
                // The same with `return v` of a value loaded before the copy, a
                // `return` of the body (see `returns_loaded_value_paths`): an arm
                // of the copy's last `if` that ends in it goes on to the same
                // `return` after the `if` (`is_copy_before_return`).
                let named = match r.last() {
                    Some(t @ Stmt::Return(Some(Expr::Name(_)))) if n > 0 && self.returns_loaded_value_paths(x) => {
                        let t = t.clone();
                        let last_if = |k: usize| r.get(k - 1).is_some_and(|l| if_tails_leave(l, &t));
                        let fits = (r.len() == n + 1 && is_copy_before_return(&r[..n], &t, &prologue)) || (r.len() == n && last_if(n) && is_copy_before_return(&r, &t, &prologue));
                        fits.then_some(t)
                    }
                    _ => None,
                };
                // `return v` whose copy of the `finally` body rebinds `v`: the value
                // waits on the stack from the body and recovery names it before the
                // copy runs (see `spilled_return`), or, when the copy rebinds `v` in
                // some arms of an `if` only, before the store in those arms (see
                // `spilled_return_in_arms`).
                let spilled = spilled_return(&r, &prologue)
                    .or_else(|| spilled_return_in_arms(&r, &prologue, &|v| self.is_plain_local(v)))
                    .or_else(|| spilled_return_merged(&r, &prologue, &|v| self.is_plain_local(v)))
                    .filter(|_| !plain_try);
                match (exit, named) {
                    _ if spilled.is_some() => {
                        r = prologue.clone();
                        r.extend(spilled);
                        copied_return = true;
                    }
                    (Some(t), _) if n > 0 && r.len() == n + 1 && is_copy_before(&r[..n], std::slice::from_ref(&t), &prologue) => {
                        r = prologue.clone();
                        r.push(t);
                    }
                    (_, Some(t)) => {
                        r = prologue.clone();
                        r.push(t);
                        copied_return = true;
                    }
                    _ => return Err(err(SEVERAL)),
                }
            }
            // Pops of the exceptions of enclosing `except` clauses (a `return` in a
            // `try` inside a clause unwinds them, CPython 3.11+
            // `compiler_unwind_fblock` of `HANDLER_CLEANUP`) stay with the exit.
            let mut lead = n;
            loop {
                match &r[lead..] {
                    [p, a, d, ..] if is_marker(p, markers::POP_EXCEPT) && is_unbind(a, d) => lead += 3,
                    [p, ..] if is_marker(p, markers::POP_EXCEPT) => lead += 1,
                    _ => break,
                }
            }
            let pops = &r[n..lead];
            let tail = &r[lead..];
            let stub = match tail {
                [Stmt::Break] | [Stmt::Continue] | [Stmt::Return(None | Some(Expr::Const(_)))] => Some(r[n..].to_vec()),
                // `try`/`except`: a `return` of a temporary, a value computed in the
                // body and named by recovery there (`return self.rc` in the body of a
                // `try` that a `finally` encloses: the enclosing statement reads its
                // copy as that `return`). Reading the name cannot raise (recovery
                // binds it before every read), so, like a constant, it is the same
                // statement inside or outside the protected range.
                [Stmt::Return(Some(Expr::Name(t)))] if plain_try && t.starts_with("__temp_") => Some(r[n..].to_vec()),
                _ if plain_try => None,
                [Stmt::Return(Some(Expr::Name(_)))] if pops.is_empty() && (copied_return || self.returns_loaded_value(x)) => Some(tail.to_vec()),
                _ if pops.is_empty() && !tail.is_empty() && after_loop.as_ref().is_some_and(|a| print_body(a, 0) == print_body(tail, 0)) => Some(vec![Stmt::Break]),
                _ => None,
            };
            match stub {
                Some(s) => stubs.push((x, s)),
                None => normal.push((x, print_body(&r, 0), ends_control(&r))),
            }
        }
        // Exits that run the same statements and leave by `break`, `continue`,
        // `return` or `raise` (the `continue` of a rotated `while c:`, `if not c:
        // break; continue`, after each copy) are one normal exit.
        if let [(first, text, true), rest @ ..] = normal.as_slice() {
            if !rest.is_empty() && rest.iter().all(|(_, t, c)| *c && t == text) {
                stubs.extend(rest.iter().map(|(x, ..)| (*x, Vec::new())));
                normal = vec![(*first, text.clone(), true)];
            }
        }
        let normal: Vec<BlockId> = normal.into_iter().map(|(x, ..)| x).collect();
        let e1 = match normal.as_slice() {
            [] => {
                // Any copy may be taken as the normal exit (the code after the
                // statement is then that copy's): the one that reads as the
                // original is the fall-through, a `continue` at the end of a loop
                // body or the `return` of a constant last in the layout (the end of
                // the function).
                let k = stubs.iter().rposition(|(_, s)| matches!(s.last(), Some(Stmt::Continue)));
                let k = k.or_else(|| stubs.iter().enumerate().filter(|(_, (_, s))| matches!(s.last(), Some(Stmt::Return(None | Some(Expr::Const(_)))))).max_by_key(|(_, (x, _))| *x).map(|(k, _)| k));
                k.map(|k| stubs.remove(k).0)
            }
            [e] => Some(*e),
            _ => return Err(err(SEVERAL)),
        };
        Ok((e1, stubs))
    }

    /// Whether `long`, code that CPython 3.12+ copied into a handler's exit, is the
    /// code `short` that ends at `stop` followed by the code from `stop` on (the
    /// copy goes on past `stop` when the tail after an enclosing statement is copied
    /// too).
    fn same_continuation(&mut self, short: &[Stmt], long: &[Stmt], stop: Option<BlockId>, err: &dyn Fn(&str) -> DecompileError) -> bool {
        let text = print_body(short, 0);
        if print_body(long, 0) == text {
            return true;
        }
        let Some(s) = stop else { return false };
        if long.len() <= short.len() || print_body(&long[..short.len()], 0) != text || ends_control(short) {
            return false;
        }
        // Only compared, never written: the code from `stop` on may be the code
        // after an enclosing `try` body being written (`Structurer::try_exits`).
        let exits = std::mem::take(&mut self.try_exits);
        let after = self.region(s, None, err);
        self.try_exits = exits;
        match after {
            Ok(after) => print_body(&after, 0) == print_body(&long[short.len()..], 0),
            Err(_) => false,
        }
    }

    /// The value `v` of a `return v` that ends a `with` body (handler `h`) whose
    /// value recovery reads at the body's exit `e1` (`rest`: `__temp = v;
    /// __with_exit__; return __temp`): a conditional expression (`return a if c
    /// else b`) whose arms meet at `e1`, after the protected range, where CPython
    /// calls `__exit__` with the value on the stack (3.11+ `Python/compile.c`
    /// `compiler_unwind_fblock_stack`; 3.8-3.10 `compiler_unwind_fblock`). `None` unless every way into `e1` and the
    /// block the value's branches start from lie in the body, so that `v` is
    /// evaluated there.
    fn with_return_value(&self, rest: &[Stmt], e1: BlockId, h: BlockId) -> Option<Expr> {
        let [Stmt::Assign(t, v), x, Stmt::Return(Some(Expr::Name(r)))] = rest else { return None };
        if !is_marker(x, markers::WITH_EXIT) || !matches!(t.as_slice(), [Expr::Name(n)] if n == r && n.starts_with("__temp_")) {
            return None;
        }
        let preds = &self.cfg.blocks[e1.index()].preds;
        let mut roots = (0..self.cfg.blocks.len()).filter(|&i| self.rec.blocks[i].collapsed_to == Some(e1)).peekable();
        roots.peek()?;
        let inside = |x: BlockId| self.protected_by(x, h);
        (preds.iter().all(|&p| inside(p)) && roots.all(|i| inside(BlockId(i as u32)))).then(|| v.clone())
    }

    fn finish_with(&mut self, out: &mut Vec<Stmt>, mut body: Vec<Stmt>, h: BlockId, e1: Option<BlockId>, stop: Option<BlockId>, err: &dyn Fn(&str) -> DecompileError) -> Result<(), DecompileError> {
        let (mgr, target) = match body.first() {
            Some(Stmt::Assign(t, v)) if t.len() == 1 => (marker_call(v, markers::WITH_ENTER).cloned(), Some(t[0].clone())),
            Some(Stmt::Expr(v)) => (marker_call(v, markers::WITH_ENTER).cloned(), None),
            _ => (None, None),
        };
        let Some(mgr) = mgr else { return Err(err("a with body that does not start by entering its manager")) };
        body.remove(0);
        let rest = if !self.has_cleanup(h) {
            // 3.9-3.10: the handler has no clean-up of its own; the suppressing
            // path is read from the `POP_EXCEPT` it jumps to.
            let mut rest = vec![Stmt::Expr(Expr::name(markers::WITH_EXIT))];
            let mut e1 = e1;
            if let Some(e) = e1 {
                rest.clear();
                self.region_into(&mut rest, e, stop, false, err)?;
                if let Some(v) = self.with_return_value(&rest, e, h) {
                    // `return v` ending the body: read as a body without a normal
                    // exit, the code after the `with` is the suppressing path's.
                    body.push(Stmt::Return(Some(v)));
                    rest = vec![Stmt::Expr(Expr::name(markers::WITH_EXIT))];
                    e1 = None;
                }
            }
            if !rest.first().is_some_and(|s| is_marker(s, markers::WITH_EXIT)) {
                return Err(err("a with body whose normal exit does not call __exit__"));
            }
            rest.remove(0);
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
                        // A body that never exits normally: every way out is a
                        // `return <const>` with its own copy of the `__exit__` call,
                        // one of which `split_exit_copies` took as the normal exit.
                        // The suppressing path does something else, so that copy is
                        // no code after the `with`: it is the body's last `return`
                        // (a constant: evaluating it before or after `__exit__` is
                        // the same), and the code after the `with` is the
                        // suppressing path's alone.
                        _ if matches!(rest.as_slice(), [Stmt::Return(None | Some(Expr::Const(_)))]) => {
                            body.append(&mut rest);
                            rest = self.region(l, stop, err)?;
                            if !rest.first().is_some_and(|x| is_marker(x, markers::POP_EXCEPT)) {
                                return Err(err("a with handler that does not drop the exception"));
                            }
                            rest.remove(0);
                        }
                        _ => return Err(err("the code after a with differs on its normal and suppressed exits")),
                    }
                }
            }
            // 3.9-3.10 copy `exit; return <const>` into the paths that leave the body
            // (see `emit_try`): when the code after the `with` is that `return`, the
            // copies at the ends of the body are the same flow.
            if let [ret @ Stmt::Return(None | Some(Expr::Const(_)))] = rest.as_slice() {
                strip_tail_copy(&mut body, ret);
            }
            rest
        } else {
            // Where `__exit__` suppresses the exception the handler goes on after the
            // `with` too: that code must be the normal exit's, or the code after the
            // `with` when the body never exits normally (it returns).
            // (Compared with the normal exit's code, not written: it may go on to the
            // code after an enclosing `try` body, `Structurer::try_exits`.)
            let exits = std::mem::take(&mut self.try_exits);
            self.handler_loops.push(self.loops.len());
            let suppressed = self.region(h, stop, err);
            self.handler_loops.pop();
            self.try_exits = exits;
            let suppressed = suppressed_path(suppressed?).ok_or_else(|| err("a with handler of an unknown shape"))?;
            match e1 {
                Some(e1) => {
                    let mut rest = Vec::new();
                    self.region_into(&mut rest, e1, stop, false, err)?;
                    if let Some(v) = self.with_return_value(&rest, e1, h) {
                        // `return v` ending the body: the code after the `with`
                        // is the suppressing path's alone.
                        body.push(Stmt::Return(Some(v)));
                        rest = suppressed;
                    } else if !rest.first().is_some_and(|s| is_marker(s, markers::WITH_EXIT)) {
                        return Err(err("a with body whose normal exit does not call __exit__"));
                    } else {
                        rest.remove(0);
                        if !self.same_continuation(&rest, &suppressed, stop, err) {
                            return Err(err("a with statement whose handler goes on elsewhere than its normal exit"));
                        }
                    }
                    rest
                }
                None => suppressed,
            }
        };
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
        Ok(())
    }
}

/// Reads, in each path of handler code `stmts` through `if` statements, the code
/// after a clause's `POP_EXCEPT` (and `name = None; del name`) whose text is
/// `after_loop`, the code after the enclosing loop, as `break`: CPython 3.12+
/// compiles a `break` in an `except` clause as the pop and a jump to the code after
/// the loop, and copies that code there when it is a small exit block
/// (`Python/flowgraph.c` `inline_small_exit_blocks`). Both run the same code after
/// the exception is popped. Loops, `with` and `try` statements of the handler are
/// not entered (a `break` there would leave them instead). Whether any was read.
fn clauses_break(stmts: &mut Vec<Stmt>, after_loop: &str) -> bool {
    let mut found = false;
    for i in 0..stmts.len() {
        if is_marker(&stmts[i], markers::POP_EXCEPT) {
            let mut k = i + 1;
            if k + 1 < stmts.len() && is_unbind(&stmts[k], &stmts[k + 1]) {
                k += 2;
            }
            if k < stmts.len() && print_body(&stmts[k..], 0) == after_loop {
                stmts.truncate(k);
                stmts.push(Stmt::Break);
                return true;
            }
            return found;
        }
        if let Stmt::If(_, a, b) = &mut stmts[i] {
            found |= clauses_break(a, after_loop);
            found |= clauses_break(b, after_loop);
        }
    }
    found
}

/// Cuts, in each path of handler code `stmts`, what follows the `POP_EXCEPT` that
/// ends the handler (and the `name = None; del name` after it) into `posts`, unless
/// it is an exit that means the same inside and outside the handler (`return` of a
/// constant or of a value computed before the pop, `break`, `continue`, nothing).
/// That code runs after the exception is popped and `name` deleted, so printing it
/// inside the `except` clause would run it with `sys.exc_info()` still set.
/// Paths inside `if` statements are followed (`top`: `stmts` is reached by `if`s
/// only); such code inside a loop, `with` or `try` of the handler is an error.
///
/// With `copies` [`ConstExits::All`], a `return` of a constant after a pop is cut
/// too (see [`ConstExits`]).
fn split_after_pop(stmts: &mut Vec<Stmt>, posts: &mut Vec<Vec<Stmt>>, top: bool, fins: &[Vec<Stmt>], copies: ConstExits) -> Result<(), &'static str> {
    for i in 0..stmts.len() {
        if is_marker(&stmts[i], markers::POP_EXCEPT) {
            let mut k = i + 1;
            if k + 1 < stmts.len() && is_unbind(&stmts[k], &stmts[k + 1]) {
                k += 2;
            }
            let held = matches!(&stmts[i], Stmt::Expr(Expr::Name(n)) if n == markers::POP_EXCEPT_HELD);
            let copy = top && !held && copies == ConstExits::All && matches!(&stmts[k..], [Stmt::Return(None | Some(Expr::Const(_)))]);
            if !copy && exits_alike(&stmts[k..], fins, held) {
                return Ok(());
            }
            if !top {
                return Err("code after the end of an except clause inside a loop, with or try of the clause");
            }
            posts.push(stmts.split_off(k));
            return Ok(());
        }
        let more = i + 1 < stmts.len();
        match &mut stmts[i] {
            Stmt::If(_, a, b) => {
                let n = posts.len();
                split_after_pop(a, posts, top, fins, copies)?;
                let cut_a = posts.len() > n;
                split_after_pop(b, posts, top, fins, copies)?;
                let cut_b = posts.len() > n + cut_a as usize;
                if (cut_a || cut_b) && more {
                    // An arm cut here went on to the code after the `try`, not to the
                    // statements after the `if` (printed after it because the arm
                    // left before the cut): they belong to the other arm alone, which
                    // must reach them (fall through, no pop of its own).
                    let other = if cut_a { &*b } else { &*a };
                    if cut_a == cut_b || ends_control(other) || has_pop(other) {
                        return Err("code after the end of an except clause in one branch and more code after the branch");
                    }
                    let rest = stmts.split_off(i + 1);
                    if let Stmt::If(_, a, b) = &mut stmts[i] {
                        let other = if cut_a { b } else { a };
                        other.extend(rest);
                        split_after_pop(other, posts, top, fins, copies)?;
                    }
                    hoist_common_tail(stmts);
                    return Ok(());
                }
                if cut_a && cut_b && !more {
                    hoist_common_tail(stmts);
                }
            }
            Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                split_after_pop(a, posts, false, fins, ConstExits::Keep)?;
                split_after_pop(b, posts, false, fins, ConstExits::Keep)?;
            }
            Stmt::With(_, b) => split_after_pop(b, posts, false, fins, ConstExits::Keep)?,
            Stmt::Try(b, hs, e, f) => {
                split_after_pop(b, posts, false, fins, ConstExits::Keep)?;
                for h in hs.iter_mut() {
                    split_after_pop(&mut h.body, posts, false, fins, ConstExits::Keep)?;
                }
                split_after_pop(e, posts, false, fins, ConstExits::Keep)?;
                split_after_pop(f, posts, false, fins, ConstExits::Keep)?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// Which `return <const>` statements after a clause's pop [`handler`] reads as the
/// code after the `try` (see [`const_exit_copies`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ConstExits {
    /// None: each stays the clause's own `return`.
    Keep,
    /// Those of a clause that has more than one.
    Copies,
    /// All (a `try` body that never completes, on CPython 3.12+, which copies
    /// the `return <const>` after the `try` after each clause's pop: its ends'
    /// copies are that code). CPython 3.11 jumps to an explicit `return` after
    /// the `try` and copies only the implicit `return None` at the end of the
    /// function, so there a single one stays the clause's.
    All,
    /// On CPython 3.10 (no clean-up ranges, `fins` is `None`): a clause ending at
    /// its top level in its pop and a `return` of a value loaded after the pop,
    /// which is a copy of the code after the `try` (see
    /// `Structurer::small_exits_extended`); the value may be any expression.
    LoadedAfterPop,
}

/// How many ends of clause body `stmts`, on the paths through its `if`s that
/// [`split_after_pop`] follows, are the clause's pop (and `name = None; del name`)
/// and a `return` of a constant loaded after the pop (not
/// [`markers::POP_EXCEPT_HELD`]: CPython 3.14 folds `return 1, 2` into a constant
/// only after deciding to load it before the pop).
///
/// One `return` written in the clause is one block that every path reaches; more
/// than one are copies of the clause's exit to the code after the `try` (the pop
/// and a jump there, which has no line number), which CPython 3.11+ makes for each
/// jump to it (`Python/flowgraph.c` `duplicate_exits_without_lineno`), with that
/// small code after the `try` copied in (`inline_small_exit_blocks`) or laid out
/// right after. A constant's `return` does the same on either side of the pop.
fn const_exit_copies(stmts: &[Stmt]) -> usize {
    let mut n = 0;
    for (i, s) in stmts.iter().enumerate() {
        if is_marker(s, markers::POP_EXCEPT) {
            let held = matches!(s, Stmt::Expr(Expr::Name(n)) if n == markers::POP_EXCEPT_HELD);
            let rest = &stmts[i + 1..];
            let rest = if rest.len() > 1 && is_unbind(&rest[0], &rest[1]) { &rest[2..] } else { rest };
            return n + usize::from(!held && matches!(rest, [Stmt::Return(None | Some(Expr::Const(_)))]));
        }
        if let Stmt::If(_, a, b) = s {
            n += const_exit_copies(a) + const_exit_copies(b);
        }
    }
    n
}

/// Moves the statements that end both arms of the `if` that ends `stmts` (the
/// `if` branch keeps at least one) after it: once the code after a clause's pop is
/// cut from the arms, what structuring copied into each arm from the block that
/// both reach before the pop (`if c: A; X` else `X`) is that one block again. The
/// same statements run on either path, so the flow is unchanged.
fn hoist_common_tail(stmts: &mut Vec<Stmt>) {
    let Some(Stmt::If(_, a, b)) = stmts.last_mut() else { return };
    let mut n = 0;
    while n + 1 < a.len() && n < b.len() && a[a.len() - 1 - n] == b[b.len() - 1 - n] {
        n += 1;
    }
    // Only when statements of the clause are shared, not just its pop (and unbind).
    let is_pop = |x: &Stmt| is_marker(x, markers::POP_EXCEPT) || matches!(x, Stmt::Assign(..) | Stmt::Delete(_));
    if a[a.len() - n..].iter().all(is_pop) {
        return;
    }
    let tail = a.split_off(a.len() - n);
    b.truncate(b.len() - n);
    stmts.extend(tail);
}

/// Whether `stmts` is pops of exceptions (`POP_EXCEPT` markers, each optionally
/// followed by `name = None; del name`) and then one `return` of a constant,
/// `break` or `continue`.
fn pops_before_exit(mut stmts: &[Stmt]) -> bool {
    loop {
        match stmts {
            [p, a, d, rest @ ..] if is_marker(p, markers::POP_EXCEPT) && is_unbind(a, d) => stmts = rest,
            [p, rest @ ..] if is_marker(p, markers::POP_EXCEPT) => stmts = rest,
            [Stmt::Return(None | Some(Expr::Const(_))) | Stmt::Break | Stmt::Continue] => return true,
            _ => return false,
        }
    }
}

/// Whether a pop of the exception (a `POP_EXCEPT` marker) is among `stmts` or the
/// statements nested in them.
fn has_pop(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => has_pop(a) || has_pop(b),
        Stmt::With(_, b) => has_pop(b),
        Stmt::Try(b, hs, e, f) => has_pop(b) || hs.iter().any(|h| has_pop(&h.body)) || has_pop(e) || has_pop(f),
        s => is_marker(s, markers::POP_EXCEPT),
    })
}

/// Statements after a handler's `POP_EXCEPT` (and `unbind`, its `name = None; del
/// name`) that behave the same inside the handler: pops of enclosing handlers (a
/// `return` from nested clauses) and copies of the enclosing `finally` bodies
/// `fins` (outermost first; CPython runs them before a `return`, `break` or
/// `continue` leaves the `try`), and then nothing, `break`, `continue`, a `return`
/// of a constant, or, when the pop ran with the returned value held on the stack
/// (`held`: [`markers::POP_EXCEPT_HELD`], the value was loaded inside the clause),
/// any `return`.
///
/// A `return` of another value after a plain pop is the code after the `try`:
/// CPython 3.12+ copies that small exit block after the clause's `POP_EXCEPT`
/// (`Python/flowgraph.c` `inline_small_exit_blocks`), where the clause's own
/// `return v` loads `v` before the pop (`SWAP 2; POP_EXCEPT`). A constant is loaded
/// after the pop either way (`Python/compile.c` `compiler_return`), so both readings
/// compile the same.
fn exits_alike(mut s: &[Stmt], fins: &[Vec<Stmt>], held: bool) -> bool {
    let mut fins = fins.iter().rev().filter(|f| !f.is_empty()).peekable();
    loop {
        if let Some(f) = fins.peek() {
            if s.len() > f.len() && print_body(&s[..f.len()], 0) == print_body(f, 0) {
                s = &s[f.len()..];
                fins.next();
                continue;
            }
            // CPython 3.12+ copies the small `return` after a copy of a `finally`
            // body that ends in an `if` into the ends of that `if`'s arms
            // (`Python/flowgraph.c` `inline_small_exit_blocks`).
            // The `return` may follow the `if` too (an arm that falls off its end).
            let n = f.len();
            let (copy, t) = match s.len() {
                k if k == n => (s, s.last().and_then(if_return_tail)),
                k if k == n + 1 => (&s[..n], s.last()),
                _ => (s, None),
            };
            if let Some(t @ Stmt::Return(v)) = t {
                if copy.last().is_some_and(|l| s.len() > n || if_tails_leave(l, t)) && is_copy_before_return(copy, t, f) {
                    return matches!(v, None | Some(Expr::Const(_))) || held;
                }
            }
        }
        match s {
            [p, a, d, rest @ ..] if is_marker(p, markers::POP_EXCEPT) && is_unbind(a, d) => s = rest,
            [p, rest @ ..] if is_marker(p, markers::POP_EXCEPT) => s = rest,
            _ => break,
        }
    }
    match s {
        [] | [Stmt::Break] | [Stmt::Continue] | [Stmt::Return(None)] | [Stmt::Return(Some(Expr::Const(_)))] => true,
        [Stmt::Return(Some(_))] => held,
        _ => false,
    }
}

/// A value whose evaluation runs no code: constants, names and tuples of them.
fn inert(v: &Expr) -> bool {
    match v {
        Expr::Const(_) | Expr::Name(_) => true,
        Expr::Tuple(items) => items.iter().all(inert),
        _ => false,
    }
}

/// Whether handler statements `hs` are those of a `finally` clause: no `except`
/// test, no top-level pop of the exception, ending in the re-raise.
fn is_finally_handler(hs: &[Stmt]) -> bool {
    let top_pop = hs.iter().any(|s| is_marker(s, markers::POP_EXCEPT));
    !top_pop && hs.last().is_some_and(|s| is_marker(s, markers::RERAISE)) && !matches!(hs.first(), Some(Stmt::If(c, ..)) if marker_call(c, markers::EXC_MATCH).is_some())
}

/// A handler body that ends in an `if` each of whose arms ends by re-raising (a
/// `finally` body that ends in an `if`: CPython 3.12+ copies the `RERAISE` block,
/// which has no line number, into both ends of the branch, `Python/flowgraph.c`
/// `duplicate_exits_without_lineno`), with the re-raise taken out of the arms
/// (nested `if`s that end the arms too) and put once after the `if`: the same flow.
/// An arm may end in a statement that never falls through instead (see
/// [`never_falls_through`]: `if c: raise e`, whose end gets no copy), provided
/// some arm re-raises. Other bodies (an `except` clause chain, whose `if` tests
/// the exception) are returned as they are.
fn hoist_reraise(mut hs: Vec<Stmt>) -> Vec<Stmt> {
    fn find(s: &[Stmt]) -> Option<&Stmt> {
        match s.last() {
            Some(Stmt::If(_, a, b)) => find(a).or_else(|| find(b)),
            Some(l) if is_marker(l, markers::RERAISE) => Some(l),
            _ => None,
        }
    }
    // A `finally` body that ends in a `try`/`except` (and its `else:`): CPython
    // 3.10 threads the jump at the end of each `except` clause (after its
    // `POP_EXCEPT`) to the `RERAISE` of the `finally` handler, which the `try`
    // body's normal exit reaches too (after the `else:` code, read after the
    // `try`). Taken out of the clauses, the re-raise runs once after the `try`,
    // and the code between the `try` and it, which the clauses skip, is its
    // `else:`: the same flow.
    if let Some((r, init)) = hs.split_last() {
        let untested = !matches!(hs.first(), Some(Stmt::If(c, ..)) if marker_call(c, markers::EXC_MATCH).is_some() || marker_call(c, markers::EG_MATCH).is_some());
        let k = init.iter().rposition(|s| matches!(s, Stmt::Try(..)));
        let shape = k.filter(|_| is_marker(r, markers::RERAISE) && untested && !hs.iter().any(|s| is_marker(s, markers::POP_EXCEPT))).and_then(|k| match &init[k] {
            Stmt::Try(_, clauses, orelse, fin) => Some((k, clauses, orelse, fin)),
            _ => None,
        });
        if let Some((k, clauses, orelse, fin)) = shape {
            let after = &init[k + 1..];
            if fin.is_empty()
                && orelse.is_empty()
                && !clauses.is_empty()
                && clauses.iter().any(|c| c.body.last() == Some(r))
                && clauses.iter().all(|c| ends_in_reraise(&c.body, r))
                && !after.iter().any(|s| is_marker(s, markers::RERAISE))
            {
                let r = r.clone();
                let tail: Vec<Stmt> = hs.drain(k + 1..hs.len() - 1).collect();
                if let Stmt::Try(_, clauses, orelse, _) = &mut hs[k] {
                    for c in clauses.iter_mut() {
                        strip_reraise(&mut c.body, &r);
                    }
                    *orelse = tail;
                }
                return hs;
            }
        }
    }
    let Some(Stmt::If(c, ..)) = hs.last() else { return hs };
    if marker_call(c, markers::EXC_MATCH).is_some() || marker_call(c, markers::EG_MATCH).is_some() || hs.iter().any(|s| is_marker(s, markers::POP_EXCEPT)) {
        return hs;
    }
    // A re-raise at the end of an arm (through nested `if`s).
    let Some(r) = find(&hs).cloned() else { return hs };
    if !ends_in_reraise(&hs, &r) {
        return hs;
    }
    strip_reraise(&mut hs, &r);
    hs.push(r);
    hs
}

/// Whether statements `s` end in the re-raise `r` on every path through the `if`s
/// that end them (or in a statement that never falls through, see
/// [`never_falls_through`]).
fn ends_in_reraise(s: &[Stmt], r: &Stmt) -> bool {
    match s.last() {
        Some(Stmt::If(_, a, b)) => ends_in_reraise(a, r) && ends_in_reraise(b, r),
        Some(l) => l == r || never_falls_through(l),
        None => false,
    }
}

/// Removes the re-raise `r` where it ends statements `s` or the arms of the `if`s
/// that end them (an `else` left holding only `pass` goes; an emptied list gets
/// `pass`).
fn strip_reraise(s: &mut Vec<Stmt>, r: &Stmt) {
    match s.last_mut() {
        Some(Stmt::If(_, a, b)) => {
            strip_reraise(a, r);
            strip_reraise(b, r);
            if matches!(b.as_slice(), [Stmt::Pass]) {
                b.clear();
            }
        }
        Some(l) if l == r => {
            s.pop();
        }
        _ => {}
    }
    if s.is_empty() {
        s.push(Stmt::Pass);
    }
}

/// A `finally` handler body `hs` that ends in an `if` and the re-raise, with a
/// `try`/`except` last in an arm (nested `if`s too; nothing after it in the arm)
/// whose clauses end in that re-raise: CPython 3.10 threads the jump at the end of
/// each clause to the handler's `RERAISE`, where the arm goes on anyway (see
/// [`hoist_reraise`] for the `try` at the top level). The clauses' re-raises are
/// taken out: the same flow.
fn hoist_nested_clause_reraise(hs: &mut [Stmt]) {
    fn in_arms(s: &mut Stmt, r: &Stmt) {
        match s {
            Stmt::If(_, a, b) => {
                for arm in [a, b] {
                    if let Some(l) = arm.last_mut() {
                        in_arms(l, r);
                    }
                }
            }
            Stmt::Try(_, clauses, orelse, fin) if fin.is_empty() && orelse.is_empty() && clauses.iter().any(|c| c.body.last() == Some(r)) && clauses.iter().all(|c| ends_in_reraise(&c.body, r)) => {
                for c in clauses.iter_mut() {
                    strip_reraise(&mut c.body, r);
                }
            }
            _ => {}
        }
    }
    let [.., last @ Stmt::If(..), r] = hs else { return };
    if !is_marker(r, markers::RERAISE) || matches!(&*last, Stmt::If(c, ..) if marker_call(c, markers::EXC_MATCH).is_some() || marker_call(c, markers::EG_MATCH).is_some()) {
        return;
    }
    let r = r.clone();
    in_arms(last, &r);
}

/// Whether flow never goes on past statement `s`: it returns, raises, breaks or
/// continues on every path (an `if` with both arms so, a `try` whose `finally`
/// body does so or whose body or `else` and every clause do so, a `while True:`
/// without `break`).
/// A `try` body that ends `if c: A` (A never falls through), then statements
/// ending in `return`, read with those statements as the `if`'s `else:` (see
/// `Structurer::returns_into_dead_exit`): the same flow, and the layout CPython
/// 3.8-3.9 gave the original. The last such `if` takes them; an `if` already
/// written with an `else:` or a body not of that shape is left as it is.
fn else_to_last_return(body: &mut Vec<Stmt>) {
    if !matches!(body.last(), Some(Stmt::Return(_))) {
        return;
    }
    let Some(i) = body.iter().rposition(|s| matches!(s, Stmt::If(..))) else { return };
    if i + 1 >= body.len() {
        return;
    }
    let ok = matches!(&body[i], Stmt::If(_, a, b) if b.is_empty() && a.last().is_some_and(never_falls_through));
    if ok {
        let rest: Vec<Stmt> = body.drain(i + 1..).collect();
        if let Some(Stmt::If(_, _, b)) = body.last_mut() {
            *b = rest;
        }
    }
}

fn never_falls_through(s: &Stmt) -> bool {
    let ends = |b: &[Stmt]| b.last().is_some_and(never_falls_through);
    match s {
        Stmt::Return(_) | Stmt::Raise(..) | Stmt::Break | Stmt::Continue => true,
        Stmt::While(Expr::Const(depyf_bytecode::Constant::Bool(true)), b, _) => !breaks(b),
        Stmt::If(_, a, b) => ends(a) && ends(b),
        Stmt::Try(b, hs, e, f) => ends(f) || (ends(if e.is_empty() { b } else { e }) && hs.iter().all(|h| ends(&h.body))),
        _ => false,
    }
}

/// `stmts` without the pops of the exception (`POP_EXCEPT` markers) that come right
/// before a `return`, `break` or `continue`, nested statements included: in the
/// handler copy of a `finally` body such an exit first drops the exception being
/// handled (CPython 3.11+ `compiler_unwind_fblock` of `HANDLER_CLEANUP`), which the
/// statement does by itself; the copies on the normal exits have no pop.
fn drop_exit_pops(stmts: &[Stmt]) -> Vec<Stmt> {
    let mut out: Vec<Stmt> = Vec::with_capacity(stmts.len());
    for (i, s) in stmts.iter().enumerate() {
        if is_marker(s, markers::POP_EXCEPT) && matches!(stmts.get(i + 1), Some(Stmt::Return(_) | Stmt::Break | Stmt::Continue)) {
            continue;
        }
        out.push(match s {
            Stmt::If(c, a, b) => Stmt::If(c.clone(), drop_exit_pops(a), drop_exit_pops(b)),
            other => other.clone(),
        });
    }
    out
}

/// `POP_EXCEPT`, optionally followed by `name = None; del name`, and nothing else.
fn only_pops_exception(stmts: &[Stmt]) -> bool {
    match stmts {
        [p] => is_marker(p, markers::POP_EXCEPT),
        [p, a, d] => is_marker(p, markers::POP_EXCEPT) && is_unbind(a, d),
        _ => false,
    }
}

/// `name = None` followed by `del name`: how CPython ends `except E as name:`.
fn is_unbind(a: &Stmt, d: &Stmt) -> bool {
    match (a, d) {
        (Stmt::Assign(t, Expr::Const(depyf_bytecode::Constant::None)), Stmt::Delete(dt)) => {
            matches!((t.as_slice(), dt.as_slice()), ([Expr::Name(m)], [Expr::Name(n)]) if m == n)
        }
        _ => false,
    }
}

/// The code a `with` handler (`if not __with_suppress__: RERAISE else: ...`) runs
/// after `__exit__` suppressed the exception and the exception is popped: the code
/// after the `with` statement. `None` for another shape.
fn suppressed_path(hs: Vec<Stmt>) -> Option<Vec<Stmt>> {
    let [Stmt::If(c, a, b)] = hs.as_slice() else { return None };
    let reraise = |x: &[Stmt]| matches!(x, [r] if is_marker(r, markers::RERAISE));
    // `async with` awaits the result of `__aexit__` first.
    let suppress = |v: &Expr| v.is_name("__with_suppress__") || matches!(v, Expr::Await(x) if x.is_name("__with_suppress__"));
    let path = match c {
        Expr::UnaryOp("not", v) if suppress(v) && reraise(a) => b,
        v if suppress(v) && reraise(b) => a,
        _ => return None,
    };
    match path.split_first() {
        Some((p, rest)) if is_marker(p, markers::POP_EXCEPT) => Some(rest.to_vec()),
        _ => None,
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
    /// Whether the `try` body whose handler is `h` ends in a `return` followed by the
    /// body's own exit, unreachable (CPython 3.8-3.9, [`Self::dead_jumps_kept`]):
    /// `compiler_try_except` (`Python/compile.c`) emits `POP_BLOCK; JUMP_FORWARD`
    /// after the body, and `Python/peephole.c` removes unreachable ops after a
    /// `RETURN_VALUE` only up to the next jump target. So that exit survives a
    /// final `return` only when a label follows it: the end of an `if` whose
    /// `else:` holds the `return` (the then-branch's `JUMP_FORWARD` to it was
    /// emitted, then removed as unreachable).
    fn returns_into_dead_exit(&self, h: BlockId) -> bool {
        if !self.dead_jumps_kept || h.0 < 2 {
            return false;
        }
        let (d, r) = (BlockId(h.0 - 1), BlockId(h.0 - 2));
        let blk = &self.cfg.blocks[d.index()];
        let ops: Vec<&Op> = self.ir[blk.start..blk.end].iter().map(|i| &i.op).filter(|o| !matches!(o, Op::Nop)).collect();
        self.rpo_index[d.index()] == usize::MAX
            && matches!(ops.as_slice(), [Op::Jump(_)])
            && matches!(blk.term, Terminator::Jump(_))
            && self.rpo_index[r.index()] != usize::MAX
            && matches!(self.cfg.blocks[r.index()].term, Terminator::Return)
    }

    /// Whether handler `h` (statements `hs`) is a `finally` body that never falls
    /// through (`finally: raise`, a `return`): its `RERAISE` (3.9) or
    /// `END_FINALLY` (3.8) is unreachable, so `hs` lacks the re-raise that
    /// [`is_finally_handler`] looks for. An `except` handler pops the exception
    /// first (`POP_TOP` x3 of a bare `except:`, or a test of its type); a
    /// `finally` body runs with it on the stack. Before 3.10 only
    /// ([`Self::dead_jumps_kept`]).
    fn finally_without_end(&self, h: BlockId, hs: &[Stmt]) -> bool {
        if !self.dead_jumps_kept || !self.is_exc_entry(h) || self.has_cleanup(h) {
            return false;
        }
        let pops_first = matches!(self.first_ops(h, 2).as_slice(), [Op::PushExcInfo, Op::PopTop]);
        let tests = matches!(hs.first(), Some(Stmt::If(c, ..)) if marker_call(c, markers::EXC_MATCH).is_some());
        !pops_first && !tests && !has_handler_marker(hs) && hs.last().is_some_and(never_falls_through)
    }

    /// Whether the straight-line code from block `e` (no branch) returns in a block
    /// laid out before block `h`.
    fn returns_before(&self, mut e: BlockId, h: BlockId) -> bool {
        for _ in 0..64 {
            let blk = &self.cfg.blocks[e.index()];
            match blk.term {
                Terminator::Return => return e < h,
                Terminator::FallThrough(n) | Terminator::Jump(n) if n > e => e = n,
                _ => return false,
            }
        }
        false
    }

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
        matches!(seen.as_slice(), [Op::WithExit, c, Op::Return] | [c, Op::Return] if c.is_literal_load())
    }

    /// Whether the straight-line code from op index `i` (`Nop`s skipped,
    /// unconditional jumps followed) ends with `LoadConst; Return`.
    fn ends_with_const_return(&self, mut i: usize) -> bool {
        let mut prev: Option<&Op> = None;
        for _ in 0..256 {
            match self.ir.get(i).map(|x| &x.op) {
                Some(Op::Nop) => i += 1,
                Some(Op::Jump(t)) => i = self.ir.partition_point(|x| x.offset < *t),
                Some(Op::Return) => return prev.is_some_and(|o| o.is_literal_load()),
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

    /// The index of the first op from op index `i` on that is not a `Nop`, following
    /// unconditional jumps (`None` past the end or after 64 steps: a loop of jumps).
    fn next_real_op(&self, mut i: usize) -> Option<usize> {
        for _ in 0..64 {
            match self.ir.get(i).map(|x| &x.op) {
                Some(Op::Nop) => i += 1,
                Some(Op::Jump(t)) => i = self.ir.partition_point(|x| x.offset < *t),
                Some(_) => return Some(i),
                None => return None,
            }
        }
        None
    }

    /// Whether the code from op index `a` and from op index `b` is the same: the
    /// same ops (`Nop`s skipped, unconditional jumps followed) up to a common
    /// position or to a `return`/`raise` on both. Straight-line code only (a
    /// conditional branch at two different places counts as different).
    fn same_code(&self, a: usize, b: usize) -> bool {
        self.same_code_or_meet(a, b, true)
    }

    /// [`Self::same_code`], where code that meets again at a common position counts
    /// as the same only with `meet`: without it, two copies of the code, each
    /// running to its own `return`/`raise`.
    fn same_code_or_meet(&self, mut a: usize, mut b: usize, meet: bool) -> bool {
        let next = |i: usize| self.next_real_op(i);
        for _ in 0..256 {
            let (Some(x), Some(y)) = (next(a), next(b)) else { return false };
            if x == y {
                return meet;
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
/// or the final re-raise) into `except` clauses. `fins` (the enclosing `finally`
/// bodies) is given for 3.11+ handlers only: there what follows a clause's
/// `POP_EXCEPT` goes to `posts` (see [`split_after_pop`]); `None` (3.9-3.10) keeps
/// it in the clause, where `clean` refuses a bare `raise`.
fn parse_handlers(mut rest: Vec<Stmt>, posts: &mut Vec<Vec<Stmt>>, fins: Option<&[Vec<Stmt>]>, copies: ConstExits) -> Result<Vec<ExceptHandler>, &'static str> {
    const UNKNOWN: &str = "an exception handler of an unknown shape";
    if rest.first().is_some_and(|s| star_clause(s).is_some()) {
        return parse_star_handlers(rest, posts, fins);
    }
    if copies == ConstExits::LoadedAfterPop {
        if let [Stmt::If(c, ..), Stmt::Return(Some(_))] = rest.as_slice() {
            // The copies of the `return` after the clauses' pops, read as one after
            // the `if` chain of the clauses: each clause gets its copy back.
            if marker_call(c, markers::EXC_MATCH).is_some() {
                let tail = rest.split_off(1);
                if !return_to_popped_arms(&mut rest, &tail) {
                    return Err(UNKNOWN);
                }
            }
        }
    }
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
        out.push(handler(typ, then, posts, fins, copies)?.ok_or(UNKNOWN)?);
        if bare {
            break;
        }
        rest = tail;
    }
    if out.is_empty() {
        return Err(UNKNOWN);
    }
    Ok(out)
}

/// Appends `tail` to each arm of the `if` chain of `except` clauses `arms` that
/// falls through after its pop (see [`ConstExits::LoadedAfterPop`]). False when an
/// arm that falls through has no pop.
fn return_to_popped_arms(arms: &mut Vec<Stmt>, tail: &[Stmt]) -> bool {
    if let [Stmt::If(_, a, b)] = arms.as_mut_slice() {
        return return_to_popped_arms(a, tail) && return_to_popped_arms(b, tail);
    }
    if ends_control(arms) || arms.last().is_some_and(|s| is_marker(s, markers::RERAISE)) {
        return true;
    }
    if !arms.iter().any(|s| is_marker(s, markers::POP_EXCEPT)) {
        return false;
    }
    arms.extend_from_slice(tail);
    true
}

/// The type and body of an `except*` clause: `if __eg_match__(T) is not None: body`
/// without `else` (or the same test negated, the body in the `else`). `None` for
/// anything else.
fn star_clause(s: &Stmt) -> Option<(Expr, Vec<Stmt>)> {
    let Stmt::If(c, a, b) = s else { return None };
    let Expr::Compare(l, ops) = c else { return None };
    let typ = marker_call(l, markers::EG_MATCH)?.clone();
    match ops.as_slice() {
        [("is not", Expr::Const(depyf_bytecode::Constant::None))] if b.is_empty() => Some((typ, a.clone())),
        [("is", Expr::Const(depyf_bytecode::Constant::None))] if a.is_empty() => Some((typ, b.clone())),
        _ => None,
    }
}

/// Whether a marker of exception handling (the handled exception, a pop, a re-raise,
/// an `except*` test) occurs in `stmts`, nested statements included.
fn has_handler_marker(stmts: &[Stmt]) -> bool {
    let mut bad = false;
    for s in stmts {
        bad |= is_marker(s, markers::POP_EXCEPT) || is_marker(s, markers::RERAISE);
        s.walk_exprs(&mut |e| bad |= e.is_name(markers::EXC) || e.is_name(markers::POP_EXCEPT) || e.is_name(markers::POP_EXCEPT_HELD) || e.is_name(markers::RERAISE) || e.is_name(markers::EG_MATCH));
    }
    bad
}

/// Drops the `name = None; del name` that ends an `except* T as name` clause at each
/// end of `body` (the last statement, or the ends of a final `if`'s branches, where
/// handler code copies the clause's tail into both). The compiler adds it again.
fn strip_tail_unbind(body: &mut Vec<Stmt>, name: &str) {
    let l = body.len();
    if l >= 2 && is_unbind(&body[l - 2], &body[l - 1]) && matches!(&body[l - 2], Stmt::Assign(t, _) if matches!(t.as_slice(), [Expr::Name(m)] if m == name)) {
        body.truncate(l - 2);
    } else if let Some(Stmt::If(_, a, b)) = body.last_mut() {
        strip_tail_unbind(a, name);
        strip_tail_unbind(b, name);
    }
}

/// The `except*` clauses (PEP 654) of a handler read as `if __eg_match__(T) is not
/// None: [name = __exc__;] body [name = None; del name]` for each clause, then the one
/// `POP_EXCEPT` of the whole handler (see `depyf_ir`'s `post311_star`: the clauses
/// cannot `return`, `break` or `continue`, each goes on to the next test). What follows
/// the pop is the code after the `try` (to `posts`, 3.12+ copies it there).
/// Errors on any other shape, or where a marker is left in a clause.
fn parse_star_handlers(mut rest: Vec<Stmt>, posts: &mut Vec<Vec<Stmt>>, fins: Option<&[Vec<Stmt>]>) -> Result<Vec<ExceptHandler>, &'static str> {
    const UNKNOWN: &str = "an except* handler of an unknown shape";
    let mut out = Vec::new();
    let mut n = 0;
    while let Some((typ, mut body)) = rest.get(n).and_then(star_clause) {
        n += 1;
        let mut name = None;
        if let Some(Stmt::Assign(t, v)) = body.first() {
            if let ([Expr::Name(x)], true) = (t.as_slice(), v.is_name(markers::EXC)) {
                name = Some(x.to_string());
                body.remove(0);
            }
        }
        if let Some(x) = &name {
            strip_tail_unbind(&mut body, x);
        }
        if has_handler_marker(&body) {
            return Err(UNKNOWN);
        }
        let body = if body.is_empty() { vec![Stmt::Pass] } else { body };
        out.push(ExceptHandler { typ: Some(typ), name, body, star: true });
    }
    if fins.is_none() {
        return Err(UNKNOWN);
    }
    let tail = rest.split_off(n);
    match tail.split_first() {
        Some((p, after)) if is_marker(p, markers::POP_EXCEPT) => {
            if !after.is_empty() {
                posts.push(after.to_vec());
            }
            Ok(out)
        }
        _ => Err(UNKNOWN),
    }
}

/// One `except` clause from its test's type and body; `Ok(None)` when the body is
/// of an unknown shape. Code after the clause's end goes to `posts` when `fins` is
/// given (3.11+, see [`parse_handlers`]).
fn handler(typ: Option<Expr>, mut body: Vec<Stmt>, posts: &mut Vec<Vec<Stmt>>, fins: Option<&[Vec<Stmt>]>, copies: ConstExits) -> Result<Option<ExceptHandler>, &'static str> {
    let mut name = None;
    if let Some(Stmt::Assign(t, v)) = body.first() {
        if let ([Expr::Name(n)], true) = (t.as_slice(), v.is_name(markers::EXC)) {
            name = Some(n.to_string());
            body.remove(0);
        }
    }
    if name.is_some() && typ.is_none() {
        return Ok(None);
    }
    if let Some(fins) = fins {
        let copies = match copies {
            ConstExits::Copies if const_exit_copies(&body) > 1 => ConstExits::All,
            ConstExits::Copies => ConstExits::Keep,
            c => c,
        };
        split_after_pop(&mut body, posts, true, fins, copies)?;
    } else if copies == ConstExits::LoadedAfterPop {
        split_loaded_return(&mut body, posts);
    }
    if !clean(&mut body, name.as_deref()) {
        return Ok(None);
    }
    let mut bad = false;
    for s in &body {
        s.walk_exprs(&mut |e| bad |= e.is_name(markers::EXC));
    }
    if bad {
        return Ok(None);
    }
    Ok(Some(ExceptHandler { typ, name, body, star: false }))
}

/// Cuts a `return` that follows the pop at the top level of clause body `stmts`
/// (after `name = None; del name`) into `posts`: the value is loaded after the pop,
/// so the `return` is a copy of the code after the `try` (CPython 3.10, see
/// [`ConstExits::LoadedAfterPop`]).
fn split_loaded_return(stmts: &mut Vec<Stmt>, posts: &mut Vec<Vec<Stmt>>) {
    // The clause's own pop comes first; one of an enclosing clause may follow it
    // (the copy is then the code after that clause's `try`).
    let Some(i) = stmts.iter().position(|s| matches!(s, Stmt::Expr(Expr::Name(n)) if n == markers::POP_EXCEPT)) else { return };
    let mut k = i + 1;
    if k + 1 < stmts.len() && is_unbind(&stmts[k], &stmts[k + 1]) {
        k += 2;
    }
    if matches!(&stmts[k..], [Stmt::Return(Some(_))]) {
        posts.push(stmts.split_off(k));
    }
}

/// Drops `POP_EXCEPT` markers and the `name = None; del name` after them. What
/// follows a `POP_EXCEPT` runs after the `except` clause, the exception no longer
/// being handled: a bare `raise` there re-raises another one (CPython 3.9-3.10 copy
/// the code after a `try` into its handlers, e.g. the bare `raise` of an enclosing
/// handler), so the clause is refused (false) when one follows it.
///
/// A second pop right after the clause's own, followed by another name's
/// `name = None; del name`, is the pop of an enclosing `except E as name` clause (a
/// path of a nested clause that leaves both: `return`, `break`, or the end of both,
/// which CPython 3.11+ reaches through a copy of the outer clause's exit): it is left
/// with what follows for that clause's own `clean`, which knows the name to drop.
fn clean(body: &mut Vec<Stmt>, name: Option<&str>) -> bool {
    clean_in(body, name, false, true)
}

/// [`clean`] of `body`; `nested`: `body` lies in a `try` or `with` of the clause,
/// where a pop may only come right before the `return` of a constant, `break` or
/// `continue` that leaves it (see `split_exit_copies`), after more pops, or, at the
/// end of a path that ends the clause's body (`tail`), right before the clause's own
/// `name = None; del name` and nothing else (the end of a nested clause that goes on
/// to the end of this one: the pop of an enclosing clause, left by [`clean`]).
fn clean_in(body: &mut Vec<Stmt>, name: Option<&str>, nested: bool, tail: bool) -> bool {
    let is_own_unbind = |body: &[Stmt], i: usize| match (name, body.get(i..i + 2)) {
        (Some(n), Some([a @ Stmt::Assign(t, _), d])) => is_unbind(a, d) && matches!(t.as_slice(), [Expr::Name(m)] if m == n),
        _ => false,
    };
    let mut i = 0;
    let mut popped = false;
    while i < body.len() {
        if is_marker(&body[i], markers::POP_EXCEPT) {
            let leaves_clause = tail && body.len() == i + 3 && is_own_unbind(body, i + 1);
            // The clause's own pop and unbind, left by a nested clause (see `clean`),
            // before the `return` of a value computed before the pops.
            let held_return = body.len() == i + 4 && is_own_unbind(body, i + 1) && matches!(&body[i + 3], Stmt::Return(Some(Expr::Name(t))) if t.starts_with("__temp_"));
            if nested && !pops_before_exit(&body[i..]) && !held_return && !leaves_clause {
                return false;
            }
            // An enclosing clause's pop and unbind (see `clean`): left to it.
            if popped && body.len() >= i + 3 && is_unbind(&body[i + 1], &body[i + 2]) && !is_own_unbind(body, i + 1) {
                return true;
            }
            body.remove(i);
            popped = true;
            if is_own_unbind(body, i) {
                body.drain(i..i + 2);
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
        popped = false;
        // The statement ends the clause's body when only the clause's own pop (and
        // unbind) follows it.
        let last = tail
            && match &body[i + 1..] {
                [] => true,
                [p, rest @ ..] => is_marker(p, markers::POP_EXCEPT) && (rest.is_empty() || (rest.len() == 2 && is_own_unbind(rest, 0))),
            };
        match &mut body[i] {
            Stmt::If(_, a, b) => {
                if !clean_in(a, name, nested, last) || !clean_in(b, name, nested, last) {
                    return false;
                }
            }
            Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                if !clean_in(a, name, nested, false) || !clean_in(b, name, nested, false) {
                    return false;
                }
            }
            // A `return` (or `break`/`continue`) in a `try` or `with` of the clause
            // pops the clause's exception first.
            Stmt::With(_, b) => {
                if !clean_in(b, name, true, false) {
                    return false;
                }
            }
            Stmt::Try(b, hs, e, f) => {
                let last = last && f.is_empty();
                if !clean_in(b, name, true, last) || !hs.iter_mut().all(|h| clean_in(&mut h.body, name, true, last)) || !clean_in(e, name, true, last) || !clean_in(f, name, true, false) {
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
/// markers before a `return` of a `with` body are the `with` block's own (and
/// those of the `with` blocks around it, which the `return` leaves too).
fn fold_returns(body: &mut Vec<Stmt>, with: bool) {
    fold_returns_in(body, with, false);
}

/// [`fold_returns`]; `in_clause`: `body` is part of a `try` without `finally`
/// inside the `with` body (see `Stmt::Try` below), where the markers before a
/// `break` or `continue` (of a loop around the `with`: a loop inside the body is
/// not walked) are read the same way.
fn fold_returns_in(body: &mut Vec<Stmt>, with: bool, in_clause: bool) {
    if with {
        let mut j = 0;
        while j < body.len() {
            let run = body[j..].iter().take_while(|s| is_marker(s, markers::WITH_EXIT)).count();
            let leaves = match body.get(j + run) {
                Some(Stmt::Return(_)) => true,
                Some(Stmt::Break | Stmt::Continue) => in_clause,
                _ => false,
            };
            if run > 0 && leaves {
                body.remove(j);
            } else {
                j += 1;
            }
        }
    }
    let mut i = 0;
    while i < body.len() {
        match &mut body[i] {
            Stmt::If(_, a, b) => {
                fold_returns_in(a, with, in_clause);
                fold_returns_in(b, with, in_clause);
            }
            Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                fold_returns_in(a, with, false);
                fold_returns_in(b, with, false);
            }
            // A `return`, `break` or `continue` in an `except` clause (or any part
            // of a `try`) inside the `with` body leaves the `with` too: 3.8-3.10
            // call `__exit__` after the clause's `POP_EXCEPT`, in the clause's own
            // block, which only the inner handler reaches (no normal-edge exit of
            // the body, see `body_exits`). Not in a `try` with a `finally`, whose
            // copies stand before the marker (`F; __with_exit__; return`): those
            // are the `try`'s to match.
            Stmt::Try(b, hs, e, f) if with && f.is_empty() => {
                fold_returns_in(b, with, true);
                hs.iter_mut().for_each(|h| fold_returns_in(&mut h.body, with, true));
                fold_returns_in(e, with, true);
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

/// Whether `copy`, followed by `after`, is a copy of `fbody`: the same statements, or
/// the same but for a copy of `after` (one `break`, `continue` or `return` of a
/// constant or a compiler temporary; in an `except` clause also of a name, see
/// [`inert`]) at the ends of its last statement, where CPython 3.12+ copies a small
/// exit block into the jumps to it (`Python/flowgraph.c` `inline_small_exit_blocks`)
/// and a `return` tail after a `with` exit counts as the `with` body's (see
/// `is_return_tail`). Flow leaving those ends goes on to `after`, so the copy there
/// does the same.
fn is_copy_before(copy: &[Stmt], after: &[Stmt], fbody: &[Stmt]) -> bool {
    let text = print_body(fbody, 0);
    if print_body(copy, 0) == text {
        return true;
    }
    let [t] = after else { return false };
    let Some((last, init)) = copy.split_last() else { return false };
    let mut last = last.clone();
    strip_end_exit(&mut last, t);
    let mut c = init.to_vec();
    c.push(last);
    if print_body(&c, 0) == text {
        return true;
    }
    // The `break`s of a loop that ends the copy jump to `t` (CPython 3.12+ copies
    // that small exit block into them): read them as `break` again.
    let Some(last) = c.last_mut() else { return false };
    tail_loop_exits_as_break(last, t) && print_body(&c, 0) == text
}

/// Whether `stmts` (a loop body) hold a `break` of that loop (not of a nested
/// loop).
fn breaks(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Break => true,
        Stmt::If(_, a, b) => breaks(a) || breaks(b),
        Stmt::While(_, _, e) | Stmt::For(_, _, _, e) => breaks(e),
        Stmt::Try(..) | Stmt::With(..) | Stmt::Match(..) => {
            let mut s = s.clone();
            s.bodies_mut().into_iter().any(|b| breaks(b))
        }
        _ => false,
    })
}

/// The first `return` that is a small exit (see [`is_small_exit`]) in the body of
/// a loop at a tail position of `s` (as [`tail_loop_exits_as_break`] walks them):
/// the `return` after a copy of a `finally` body that ends in a loop, copied into
/// each `break` of the loop (when the loop is left by `break` only, the copy has
/// no other).
fn tail_loop_return(s: &Stmt) -> Option<&Stmt> {
    fn in_body(stmts: &[Stmt]) -> Option<&Stmt> {
        stmts.iter().find_map(|s| match s {
            Stmt::Return(_) if is_small_exit(s) => Some(s),
            Stmt::If(_, a, b) => in_body(a).or_else(|| in_body(b)),
            Stmt::With(_, b) => in_body(b),
            Stmt::Try(b, hs, e, _) => in_body(b).or_else(|| hs.iter().find_map(|h| in_body(&h.body))).or_else(|| in_body(e)),
            _ => None,
        })
    }
    match s {
        Stmt::If(_, a, b) => a.last().and_then(tail_loop_return).or_else(|| b.last().and_then(tail_loop_return)),
        Stmt::While(_, body, _) | Stmt::For(_, _, body, _) => in_body(body),
        _ => None,
    }
}

/// Rewrites, in each loop at a tail position of `s` (`s` itself, or the last
/// statement of an `if` arm, recursively), the statements `t` of the loop's own
/// body (in `if`s, and in `try`/`with` bodies when `t` cannot raise, not in
/// nested loops) as `break`; whether any was. Flow that leaves such a loop by
/// `break` reaches the end of the statements, then `t`: the same flow, when
/// `t` is a `return` (CPython 3.12+ copies the small exit block of a `return`
/// after a `finally` body that ends in a loop into each `break` of the copy of
/// that body, `Python/flowgraph.c` `inline_small_exit_blocks`).
fn tail_loop_exits_as_break(s: &mut Stmt, t: &Stmt) -> bool {
    fn in_body(stmts: &mut [Stmt], t: &Stmt, protected: bool) -> bool {
        let mut any = false;
        for s in stmts.iter_mut() {
            if s == t {
                if protected && !matches!(t, Stmt::Return(None | Some(Expr::Const(_)))) {
                    return false;
                }
                *s = Stmt::Break;
                any = true;
                continue;
            }
            match s {
                Stmt::If(_, a, b) => {
                    any |= in_body(a, t, protected);
                    any |= in_body(b, t, protected);
                }
                Stmt::With(_, b) => any |= in_body(b, t, true),
                Stmt::Try(b, hs, e, _) => {
                    any |= in_body(b, t, true);
                    for h in hs.iter_mut() {
                        any |= in_body(&mut h.body, t, true);
                    }
                    any |= in_body(e, t, true);
                }
                _ => {}
            }
        }
        any
    }
    if !matches!(t, Stmt::Return(_)) {
        return false;
    }
    match s {
        Stmt::If(_, a, b) => {
            let x = a.last_mut().is_some_and(|l| tail_loop_exits_as_break(l, t));
            let y = b.last_mut().is_some_and(|l| tail_loop_exits_as_break(l, t));
            x || y
        }
        Stmt::While(_, body, _) | Stmt::For(_, _, body, _) => in_body(body, t, false),
        _ => false,
    }
}

/// Whether `copy` is a copy of `fbody` but for `ret`, a `return` of any value that
/// follows it, at the ends of arms of its last statement, an `if` (nested `if`s
/// too) or a `try` (see [`if_return_tail`]): the code of a `return` after a `finally` body that ends in an `if` joins
/// both arms (`if c: A; return x` then `return x` when the `if` falls through),
/// and CPython 3.12+ copies that small exit block into the arm that jumps to it
/// (`Python/flowgraph.c` `inline_small_exit_blocks`). An arm that ends in `ret`
/// goes on to the `ret` after the `if` when the copy is removed: the same flow,
/// whatever `ret` returns.
fn is_copy_before_return(copy: &[Stmt], ret: &Stmt, fbody: &[Stmt]) -> bool {
    if !matches!(ret, Stmt::Return(_)) {
        return false;
    }
    let Some((last, init)) = copy.split_last() else { return false };
    if !matches!(last, Stmt::If(..) | Stmt::Try(..)) {
        return false;
    }
    let mut last = last.clone();
    strip_tail_return(&mut last, ret);
    let mut c = init.to_vec();
    c.push(last);
    print_body(&c, 0) == print_body(fbody, 0)
}

/// `return v` for `copy`, the statements of an exit of a `try` body, when they
/// are the `finally` body `fbody` with `__temp = v` (`v` a name) put between two
/// of its statements (or first), then `return __temp`: the exit of a `return v` in
/// the body whose `finally` body rebinds `v` (`try: return self finally: self =
/// None`). CPython evaluates the value first, then runs the copy of the `finally`
/// body, then returns the value (3.11+ `Python/compile.c` `compiler_return` and
/// `compiler_unwind_fblock_stack`; 3.8-3.10 `compiler_unwind_fblock` with
/// `preserve_tos`), so the value waits on the stack across the copy and recovery
/// names it before the store that rebinds `v`. Between two statements of the copy
/// the stack holds what it held when the copy began, so the value named is the
/// one loaded before the copy began: in the body, since CPython loads a returned
/// value before it pops the `try` block (`SETUP_FINALLY`/`POP_BLOCK`, the range
/// that protects the load), and `return v` there loads it again. The copy may
/// branch (a `finally` body that ends in `if d: raise E`) as long as the `return`
/// follows it.
fn spilled_return(copy: &[Stmt], fbody: &[Stmt]) -> Option<Stmt> {
    let (Stmt::Return(Some(Expr::Name(t))), init) = copy.split_last()? else { return None };
    if !t.starts_with("__temp_") || fbody.is_empty() || init.len() != fbody.len() + 1 {
        return None;
    }
    let k = init.iter().position(|s| matches!(s, Stmt::Assign(ts, Expr::Name(_)) if matches!(ts.as_slice(), [Expr::Name(n)] if n == t)))?;
    let Stmt::Assign(_, v) = &init[k] else { return None };
    let mut rest = init.to_vec();
    rest.remove(k);
    let text = print_body(&rest, 0);
    (text == print_body(fbody, 0) && !text.contains(t.as_str())).then(|| Stmt::Return(Some(v.clone())))
}

/// `return v` for `copy`, the statements of an exit of a `try` body, when the
/// `finally` body `fbody` ends in an `if` that rebinds `v` (`v` a plain local, see
/// [`Structurer::is_plain_local`]) in some arms only (`finally: if c > 1: x = 0`),
/// the copy read the way CPython 3.10+ lays it out: the value of `return v` waits
/// on the stack across the copy (see [`spilled_return`]), recovery names it
/// `__temp = v` just before the store in an arm that rebinds `v`, which then ends
/// in `return __temp` (3.12+ `Python/flowgraph.c` `inline_small_exit_blocks`,
/// 3.10-3.11 `Python/compile.c` `optimize_cfg` copying the small `RETURN_VALUE`
/// block), and reads it as `v` itself in an arm that does not, where no store came
/// between the load in the body and the `return`. Each `__temp = v` removed and the
/// `return __temp` that must follow it in the same arm read as `return v`, the copy must be `fbody` with `return v`
/// ending arms of its last `if` and following it (see [`is_copy_before_return`]).
/// 3.8-3.9 merge the arms before one `return`: see [`spilled_return_merged`].
fn spilled_return_in_arms(copy: &[Stmt], fbody: &[Stmt], plain_local: &dyn Fn(&str) -> bool) -> Option<Stmt> {
    let (ret @ Stmt::Return(Some(Expr::Name(v))), init) = copy.split_last()? else { return None };
    if v.starts_with("__temp_") || !plain_local(v) || !matches!(fbody.last(), Some(Stmt::If(..))) {
        return None;
    }
    fn unspill(stmts: &[Stmt], v: &str, ret: &Stmt) -> Option<Vec<Stmt>> {
        let mut out = Vec::new();
        let mut temps: Vec<&str> = Vec::new();
        for s in stmts {
            match s {
                Stmt::Assign(ts, Expr::Name(src)) if matches!(ts.as_slice(), [Expr::Name(t)] if t.starts_with("__temp_")) => {
                    let [Expr::Name(t)] = ts.as_slice() else { return None };
                    if src != v {
                        return None;
                    }
                    temps.push(t);
                }
                Stmt::Return(Some(Expr::Name(t))) if temps.last() == Some(&t.as_str()) => {
                    temps.pop();
                    out.push(ret.clone());
                }
                Stmt::If(c, a, b) => out.push(Stmt::If(c.clone(), unspill(a, v, ret)?, unspill(b, v, ret)?)),
                s => out.push(s.clone()),
            }
        }
        // Each temporary is returned in the arm that binds it.
        temps.is_empty().then_some(out)
    }
    let init = unspill(init, v, ret)?;
    (!print_body(&init, 0).contains("__temp_") && is_copy_before_return(&init, ret, fbody)).then(|| ret.clone())
}

/// `return v` for `copy` as CPython 3.8-3.9 lay out the exit of
/// [`spilled_return_in_arms`]: the arms of the copy's `if` merge before one
/// `return`, so recovery binds the waiting value to a temporary first
/// (`__temp_1__ = v`), names it again before the store in an arm that rebinds `v`
/// (`__temp_0__ = v`) and carries that over (`__temp_1__ = __temp_0__`) to the
/// `return __temp_1__` after the `if`. Every temporary is then the value loaded
/// before the copy, which `return v` in the body loads; with those assignments
/// removed the copy must print as `fbody` (`v` a plain local).
fn spilled_return_merged(copy: &[Stmt], fbody: &[Stmt], plain_local: &dyn Fn(&str) -> bool) -> Option<Stmt> {
    let (Stmt::Return(Some(Expr::Name(t))), init) = copy.split_last()? else { return None };
    let Some(Stmt::Assign(ts, Expr::Name(v))) = init.first() else { return None };
    if !matches!(ts.as_slice(), [Expr::Name(n)] if n == t) || !t.starts_with("__temp_") || v.starts_with("__temp_") || !plain_local(v) {
        return None;
    }
    fn unspill(stmts: &[Stmt], v: &str, temps: &mut Vec<String>) -> Option<Vec<Stmt>> {
        let mut out = Vec::new();
        for s in stmts {
            match s {
                Stmt::Assign(ts, Expr::Name(src)) if matches!(ts.as_slice(), [Expr::Name(t)] if t.starts_with("__temp_")) => {
                    let [Expr::Name(t)] = ts.as_slice() else { return None };
                    if src != v && !temps.iter().any(|x| x.as_str() == src.as_str()) {
                        return None;
                    }
                    temps.push(t.to_string());
                }
                Stmt::If(c, a, b) => out.push(Stmt::If(c.clone(), unspill(a, v, temps)?, unspill(b, v, temps)?)),
                s => out.push(s.clone()),
            }
        }
        Some(out)
    }
    let rest = unspill(init, v, &mut Vec::new())?;
    let text = print_body(&rest, 0);
    (!text.contains("__temp_") && text == print_body(fbody, 0)).then(|| Stmt::Return(Some(Expr::name(v))))
}

/// The `return` that ends an arm of `s` through nested `if`s only, the first arm
/// first (the other when the first ends otherwise, in a statement that never
/// falls through, say). The body and the `except` clauses of a `try` without
/// `else`/`finally` are arms too: CPython 3.12+ copies the small exit after such a
/// `try` into the end of its body and of each clause that falls off
/// (`Python/flowgraph.c` `inline_small_exit_blocks`), 3.8-3.9 end them in a
/// `return` of a constant or of the value held across the copy of the `finally`
/// body that ends in the `try`.
fn if_return_tail(s: &Stmt) -> Option<&Stmt> {
    match s {
        Stmt::If(_, a, b) => a.last().and_then(if_return_tail).or_else(|| b.last().and_then(if_return_tail)),
        Stmt::Try(b, hs, e, f) if e.is_empty() && f.is_empty() => b.last().and_then(if_return_tail).or_else(|| hs.iter().find_map(|h| h.body.last().and_then(if_return_tail))),
        Stmt::Return(_) => Some(s),
        _ => None,
    }
}

/// Whether every way through the end of `s` (both arms of nested `if`s, the body
/// and clauses of a `try`, see [`if_return_tail`]) ends in `t` or in another
/// `return` or a `raise` (or a statement that never falls through, see
/// [`never_falls_through`]): no flow falls off its end.
fn if_tails_leave(s: &Stmt, t: &Stmt) -> bool {
    match s {
        Stmt::If(_, a, b) => [a, b].iter().all(|x| x.last().is_some_and(|l| if_tails_leave(l, t))),
        Stmt::Try(b, hs, e, f) if e.is_empty() && f.is_empty() => std::iter::once(b).chain(hs.iter().map(|h| &h.body)).all(|x| x.last().is_some_and(|l| if_tails_leave(l, t))),
        s => s == t || matches!(s, Stmt::Return(_) | Stmt::Raise(..)) || never_falls_through(s),
    }
}

/// Removes `ret` where it ends an arm of `if` statement `s` (nested `if`s that end
/// arms too; the body and clauses of a `try`, see [`if_return_tail`]), an arm left
/// empty becoming `pass` (an `else` none; see [`is_copy_before_return`]).
fn strip_tail_return(s: &mut Stmt, ret: &Stmt) {
    // (The statement left last after the `ret` that ended an arm may end in copies
    // of it too, an inner `try` whose body and clauses got their own: they went on
    // to that same `ret`.)
    let strip = |arm: &mut Vec<Stmt>, keep: bool| {
        if arm.last() == Some(ret) {
            arm.pop();
            if arm.is_empty() && keep {
                arm.push(Stmt::Pass);
            }
        }
        if let Some(l) = arm.last_mut() {
            strip_tail_return(l, ret);
        }
    };
    match s {
        Stmt::If(_, a, b) => {
            strip(a, true);
            strip(b, false);
        }
        Stmt::Try(b, hs, e, f) if e.is_empty() && f.is_empty() => {
            strip(b, true);
            for h in hs.iter_mut() {
                strip(&mut h.body, true);
            }
        }
        _ => {}
    }
}

/// `stmts`, which end in an exit `t` (`return`, `break`, `continue`),
/// with each `if c: A; t` (no `else`) followed by more code read as
/// `if c: A else: <the rest>`, then `t` once at the end: the same flow (`A` falls
/// into `t`, which leaves, so the rest runs only when `c` fails). `None` when
/// `stmts` has no such `if` or does not end in such an exit.
fn unguard(stmts: &[Stmt]) -> Option<Vec<Stmt>> {
    let (t, body) = stmts.split_last()?;
    if !matches!(t, Stmt::Return(_) | Stmt::Break | Stmt::Continue) {
        return None;
    }
    let i = body.iter().position(|s| matches!(s, Stmt::If(_, a, b) if b.is_empty() && a.len() > 1 && a.last() == Some(t)))?;
    let Stmt::If(c, a, _) = &body[i] else { return None };
    let rest = &stmts[i + 1..];
    let inner = match unguard(rest) {
        Some(mut u) => {
            u.pop();
            u
        }
        None => rest[..rest.len() - 1].to_vec(),
    };
    if inner.is_empty() {
        return None;
    }
    let mut out = body[..i].to_vec();
    out.push(Stmt::If(c.clone(), a[..a.len() - 1].to_vec(), inner));
    out.push(t.clone());
    Some(out)
}

/// A statement that CPython 3.12+ copies into the jumps to it as a small exit
/// block: `return` of a constant or of the compiler temporary holding a value the
/// body computed, `break`, `continue`.
fn is_small_exit(t: &Stmt) -> bool {
    matches!(t, Stmt::Return(None | Some(Expr::Const(_))) | Stmt::Break | Stmt::Continue)
        || is_marker(t, markers::RERAISE)
        || matches!(t, Stmt::Return(Some(Expr::Name(n))) if n.starts_with("__temp_"))
}

/// The statement that ends the first arm of `s` (through nested `if`s), or `s`.
fn first_tail(s: &Stmt) -> Option<&Stmt> {
    match s {
        Stmt::If(_, a, _) => a.last().and_then(first_tail),
        Stmt::Try(b, _, e, f) if f.is_empty() => if e.is_empty() { b } else { e }.last().and_then(first_tail),
        Stmt::With(_, b) => b.last().and_then(first_tail),
        s => Some(s),
    }
}

/// The first small exit (see [`is_small_exit`]) that ends a tail position of `s`
/// as [`first_tail`] walks them, trying the `else` arm of an `if` whose first arm
/// ends otherwise (in a statement that never falls through, say).
fn small_exit_tail(s: &Stmt) -> Option<&Stmt> {
    match s {
        Stmt::If(_, a, b) => a.last().and_then(small_exit_tail).or_else(|| b.last().and_then(small_exit_tail)),
        _ => first_tail(s).filter(|t| is_small_exit(t)),
    }
}

/// Whether every way through the end of `s` (both arms of `if`s, nested) ends in
/// `t` or in a `return`/`raise` (or a statement that never falls through, see
/// [`never_falls_through`]): no flow falls off its end.
fn all_tails_leave(s: &Stmt, t: &Stmt) -> bool {
    match s {
        Stmt::If(_, a, b) => [a, b].iter().all(|x| x.last().is_some_and(|l| all_tails_leave(l, t))),
        // The ends that `strip_end_exit` strips: the `try` body (or its `else`) and
        // every `except` clause, the `with` body.
        Stmt::Try(b, hs, e, f) if f.is_empty() => {
            let main = if e.is_empty() { b } else { e };
            main.last().is_some_and(|l| all_tails_leave(l, t)) && hs.iter().all(|h| h.body.last().is_some_and(|l| all_tails_leave(l, t)))
        }
        Stmt::With(_, b) => b.last().is_some_and(|l| all_tails_leave(l, t)),
        s => s == t || matches!(s, Stmt::Return(_) | Stmt::Raise(..)) || never_falls_through(s),
    }
}

/// Removes exit `t` where it ends a tail position of `s` (see [`is_copy_before`]):
/// the end of a `with` body, of an `except` clause or of a `try` body without
/// `else`/`finally`, of an `if` branch, recursively.
/// Removes exit `t` where it ends statements `stmts` (when `ok`) and, recursively,
/// where it ends a tail position of the statement then last (see
/// [`strip_end_exit`]); an emptied list gets `pass`.
fn strip_tail_exit(stmts: &mut Vec<Stmt>, t: &Stmt, ok: bool) {
    if ok && stmts.last() == Some(t) {
        stmts.pop();
        // The statement now last may end in copies of `t` too (an `if` in an `if`,
        // each arm given its own copy): flow falling off it reaches the same `t`
        // after.
        match stmts.last_mut() {
            Some(last) => strip_end_exit(last, t),
            None => stmts.push(Stmt::Pass),
        }
    } else if let Some(last) = stmts.last_mut() {
        strip_end_exit(last, t);
    }
}

fn strip_end_exit(s: &mut Stmt, t: &Stmt) {
    let plain = matches!(t, Stmt::Break | Stmt::Continue | Stmt::Return(None | Some(Expr::Const(_))))
        || is_marker(t, markers::RERAISE)
        || matches!(t, Stmt::Return(Some(Expr::Name(n))) if n.starts_with("__temp_"));
    let in_clause = plain || matches!(t, Stmt::Return(Some(v)) if inert(v));
    let strip = strip_tail_exit;
    match s {
        Stmt::With(_, b) => strip(b, t, plain),
        Stmt::If(_, a, b) => {
            strip(a, t, plain);
            if !b.is_empty() {
                strip(b, t, plain);
                // An `else` that held only the exit: `if c: A` then the exit.
                if matches!(b.as_slice(), [Stmt::Pass]) {
                    b.clear();
                }
            }
        }
        Stmt::Try(b, hs, e, f) if f.is_empty() => {
            if e.is_empty() {
                strip(b, t, plain);
            } else {
                strip(e, t, plain);
            }
            for h in hs.iter_mut() {
                strip(&mut h.body, t, in_clause);
            }
        }
        _ => {}
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
/// in `stmts` and the bodies nested in it (not in nested functions or classes), the
/// statements that leave the `try`. Inside a loop of `stmts` only before a `return`:
/// a `break` or `continue` there stays in the `try` and runs no copy.
/// `plain_local` tells the names that only code naming them can change (see
/// [`Structurer::is_plain_local`]).
fn strip_finally_copies(stmts: &mut Vec<Stmt>, fbody: &[Stmt], plain_local: &dyn Fn(&str) -> bool) {
    strip_finally_copies_in(stmts, fbody, false, plain_local)
}

fn strip_finally_copies_in(stmts: &mut Vec<Stmt>, fbody: &[Stmt], in_loop: bool, plain_local: &dyn Fn(&str) -> bool) {
    if fbody.is_empty() {
        return;
    }
    for s in stmts.iter_mut() {
        match s {
            Stmt::If(_, a, b) => {
                strip_finally_copies_in(a, fbody, in_loop, plain_local);
                strip_finally_copies_in(b, fbody, in_loop, plain_local);
            }
            Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                strip_finally_copies_in(a, fbody, true, plain_local);
                strip_finally_copies_in(b, fbody, in_loop, plain_local);
            }
            Stmt::With(_, b) => strip_finally_copies_in(b, fbody, in_loop, plain_local),
            Stmt::Try(b, hs, e, f) => {
                strip_finally_copies_in(b, fbody, in_loop, plain_local);
                for h in hs.iter_mut() {
                    strip_finally_copies_in(&mut h.body, fbody, in_loop, plain_local);
                }
                strip_finally_copies_in(e, fbody, in_loop, plain_local);
                strip_finally_copies_in(f, fbody, in_loop, plain_local);
            }
            _ => {}
        }
    }
    let mut i = 0;
    while i < stmts.len() {
        let exits = matches!(&stmts[i], Stmt::Return(v) if v.as_ref().is_none_or(|v| same_after_copy(v, fbody, plain_local))) || !in_loop && matches!(stmts[i], Stmt::Break | Stmt::Continue);
        // (CPython 3.12+ also copies the small `return` into the ends of the copy's
        // last `if`, see `is_copy_before_return`.)
        if exits && i >= fbody.len() && (stmts[i - fbody.len()..i] == *fbody || is_copy_before_return(&stmts[i - fbody.len()..i], &stmts[i], fbody)) {
            stmts.drain(i - fbody.len()..i);
            i -= fbody.len();
        }
        i += 1;
    }
}

/// Whether value `v`, returned right after a copy of the `finally` body `fbody`, is
/// the same evaluated before the copy: a constant, a temporary (named by recovery
/// before the copy, see `spilled_return`) or a plain local variable (`plain_local`)
/// that `fbody` does not mention, or a tuple of those. (A global or a cell changes
/// under any call of `fbody`.) Recovery writes `fbody; return v` both for a `return v` of
/// the `try` body (the value loaded before the copy, CPython 3.8-3.10
/// `Python/compile.c` `compiler_unwind_fblock` with `preserve_tos`) and for a copy
/// of the code after the `try` (3.10 copies `finally` body and `return v` into the
/// end of an `except` clause, the value loaded after the copy): only such values
/// read as `return v` in the `try` either way.
fn same_after_copy(v: &Expr, fbody: &[Stmt], plain_local: &dyn Fn(&str) -> bool) -> bool {
    match v {
        Expr::Const(_) => true,
        Expr::Name(n) if n.starts_with("__temp_") => true,
        Expr::Name(n) if plain_local(n) => !super::mentions(fbody, n),
        Expr::Tuple(items) => items.iter().all(|i| same_after_copy(i, fbody, plain_local)),
        _ => false,
    }
}

/// Whether `stmts` (or a body nested in it, not in nested functions or classes) still
/// holds `fbody` right before a statement that can leave the `try` (a `return`, or a
/// `break`/`continue` outside an inner loop, at any depth of that statement): a copy of
/// the finally body that [`strip_finally_copies`] could not remove because the exit
/// comes after more code, so that reading it as body code would run the finally
/// body twice on that path.
fn copy_before_leaving(stmts: &[Stmt], fbody: &[Stmt], in_loop: bool) -> bool {
    if fbody.is_empty() {
        return false;
    }
    for (i, s) in stmts.iter().enumerate() {
        if i >= fbody.len() && stmts[i - fbody.len()..i] == *fbody && leaves(s, in_loop) {
            return true;
        }
        let nested = match s {
            Stmt::If(_, a, b) => copy_before_leaving(a, fbody, in_loop) || copy_before_leaving(b, fbody, in_loop),
            Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => copy_before_leaving(a, fbody, true) || copy_before_leaving(b, fbody, in_loop),
            Stmt::With(_, b) => copy_before_leaving(b, fbody, in_loop),
            Stmt::Try(b, hs, e, f) => {
                copy_before_leaving(b, fbody, in_loop)
                    || hs.iter().any(|h| copy_before_leaving(&h.body, fbody, in_loop))
                    || copy_before_leaving(e, fbody, in_loop)
                    || copy_before_leaving(f, fbody, in_loop)
            }
            Stmt::Match(_, cases) => cases.iter().any(|c| copy_before_leaving(&c.body, fbody, in_loop)),
            _ => false,
        };
        if nested {
            return true;
        }
    }
    false
}

/// Whether `stmts` (at any depth, not in nested functions or classes) holds a `try`
/// that can leave the enclosing `try` and whose body, less a last `return`, `break`
/// or `continue`, is the body of the `try` that starts the finally body `fbody`: a
/// copy of that finally body whose way out recovery wrote into each of its ends
/// (CPython 3.8-3.9 `return x` in an `except` clause: the value is saved, the copy
/// runs, then each end of the copy's own `try` returns it), which
/// [`strip_finally_copies`] cannot remove; kept, the finally body would run twice.
fn merged_try_copy(stmts: &[Stmt], fbody: &[Stmt]) -> bool {
    let Some(Stmt::Try(fb, ..)) = fbody.first() else { return false };
    let want = print_body(fb, 0);
    let is_copy = |s: &Stmt| match s {
        Stmt::Try(b, ..) if leaves(s, false) => match b.split_last() {
            Some((Stmt::Return(_) | Stmt::Break | Stmt::Continue, rest)) => print_body(rest, 0) == want,
            _ => print_body(b, 0) == want,
        },
        _ => false,
    };
    stmts.iter().any(|s| {
        is_copy(s)
            || match s {
                Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => merged_try_copy(a, fbody) || merged_try_copy(b, fbody),
                Stmt::With(_, b) => merged_try_copy(b, fbody),
                Stmt::Try(b, hs, e, f) => merged_try_copy(b, fbody) || hs.iter().any(|h| merged_try_copy(&h.body, fbody)) || merged_try_copy(e, fbody) || merged_try_copy(f, fbody),
                Stmt::Match(_, cases) => cases.iter().any(|c| merged_try_copy(&c.body, fbody)),
                _ => false,
            }
    })
}

/// Whether statement `s` holds a `return`, or a `break`/`continue` that is not inside a
/// loop of its own (`in_loop`: `s` is already inside one), not in nested functions.
fn leaves(s: &Stmt, in_loop: bool) -> bool {
    let any = |b: &[Stmt], l: bool| b.iter().any(|x| leaves(x, l));
    match s {
        Stmt::Return(_) => true,
        Stmt::Break | Stmt::Continue => !in_loop,
        Stmt::If(_, a, b) => any(a, in_loop) || any(b, in_loop),
        Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => any(a, true) || any(b, in_loop),
        Stmt::With(_, b) => any(b, in_loop),
        Stmt::Try(b, hs, e, f) => any(b, in_loop) || hs.iter().any(|h| any(&h.body, in_loop)) || any(e, in_loop) || any(f, in_loop),
        Stmt::Match(_, cases) => cases.iter().any(|c| any(&c.body, in_loop)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(f: &str) -> Stmt {
        Stmt::Expr(Expr::Call(Box::new(Expr::name(f)), Vec::new(), Vec::new()))
    }

    fn pop() -> Stmt {
        Stmt::Expr(Expr::name(markers::POP_EXCEPT))
    }

    /// `return f()`: a value that runs code, so not the same inside the clause.
    fn ret(f: &str) -> Stmt {
        Stmt::Return(Some(Expr::Call(Box::new(Expr::name(f)), Vec::new(), Vec::new())))
    }

    #[test]
    fn copies_ending_in_if_arms_that_return_a_name() {
        // `finally: if c: a() else: b()` copied before `return x`, the `return`
        // in both arms (CPython 3.12+ copies the small exit block).
        let rx = Stmt::Return(Some(Expr::name("x")));
        let fbody = vec![Stmt::If(Expr::name("c"), vec![call("a")], vec![call("b")])];
        let copy = vec![Stmt::If(Expr::name("c"), vec![call("a"), rx.clone()], vec![call("b"), rx.clone()])];
        assert!(if_tails_leave(&copy[0], &rx));
        assert!(is_copy_before_return(&copy, &rx, &fbody));
        // An arm that falls off instead: not every way ends in the `return`.
        let open = vec![Stmt::If(Expr::name("c"), vec![call("a"), rx.clone()], vec![call("b")])];
        assert!(!if_tails_leave(&open[0], &rx));
        // Another value returned: not the copy.
        assert!(!is_copy_before_return(&copy, &ret("y"), &fbody));
        // `if c: a(); return x` then `b(); return x` reads as the if/else then the return.
        let flat = vec![Stmt::If(Expr::name("c"), vec![call("a"), rx.clone()], Vec::new()), call("b"), rx.clone()];
        assert_eq!(unguard(&flat), Some(vec![fbody[0].clone(), rx.clone()]));
        // A re-raise copied into both arms of a nested finally copy is a small exit.
        let rr = Stmt::Expr(Expr::name(markers::RERAISE));
        assert!(is_small_exit(&rr));
        let copy = vec![Stmt::If(Expr::name("c"), vec![call("a"), rr.clone()], vec![call("b"), rr.clone()])];
        assert!(is_copy_before(&copy, std::slice::from_ref(&rr), &fbody));
        // An `else` that held only the stripped exit disappears.
        let copy = vec![Stmt::If(Expr::name("c"), vec![call("a"), Stmt::Return(None)], vec![Stmt::Return(None)])];
        assert!(is_copy_before(&copy, &[Stmt::Return(None)], &[Stmt::If(Expr::name("c"), vec![call("a")], Vec::new())]));
    }

    #[test]
    fn clause_tail_cut_in_one_arm_gives_the_rest_to_the_other() {
        // `if c: pop; <code after the try>` then `pop; return x`, printed flat
        // because the first arm left: the rest belongs to the else arm.
        let mut stmts = vec![Stmt::If(Expr::name("c"), vec![call("a"), pop(), ret("r")], Vec::new()), pop(), ret("x")];
        let mut posts = Vec::new();
        split_after_pop(&mut stmts, &mut posts, true, &[], ConstExits::Keep).unwrap();
        // Both arms then end at their pop, each followed by its own code.
        assert_eq!(posts, vec![vec![ret("r")], vec![ret("x")]]);
        assert_eq!(stmts, vec![Stmt::If(Expr::name("c"), vec![call("a"), pop()], vec![pop()])]);
        // An else arm that cannot reach the rest: refused.
        let mut stmts = vec![Stmt::If(Expr::name("c"), vec![pop(), ret("r")], vec![Stmt::Break]), call("b")];
        assert!(split_after_pop(&mut stmts, &mut Vec::new(), true, &[], ConstExits::Keep).is_err());
    }

    #[test]
    fn copies_of_the_code_after_the_loop_read_as_break() {
        let raise = Stmt::Raise(Some(Expr::name("E")), None);
        let after = print_body(std::slice::from_ref(&raise), 0);
        let mut stmts = vec![Stmt::If(Expr::name("c"), vec![pop(), raise.clone()], Vec::new()), pop(), Stmt::Return(None)];
        assert!(clauses_break(&mut stmts, &after));
        assert_eq!(stmts, vec![Stmt::If(Expr::name("c"), vec![pop(), Stmt::Break], Vec::new()), pop(), Stmt::Return(None)]);
        // Inside a loop of the clause a `break` would leave that loop: not read.
        let mut stmts = vec![Stmt::While(Expr::name("c"), vec![pop(), raise], Vec::new())];
        assert!(!clauses_break(&mut stmts, &after));
    }

    #[test]
    fn finally_copies_before_exits_of_the_try_only() {
        // try: for i in it: f(); break / f(); continue / f(); return  finally: f()
        let inner = Stmt::For(Expr::name("i"), Expr::name("it"), vec![call("f"), Stmt::Break], Vec::new());
        let mut body = vec![inner.clone(), Stmt::If(Expr::name("c"), vec![call("f"), Stmt::Continue], Vec::new()), call("f"), Stmt::Return(None)];
        strip_finally_copies(&mut body, &[call("f")], &|_| false);
        // The inner loop's `break` leaves only that loop: its `f()` is the body's own.
        assert_eq!(body, vec![inner, Stmt::If(Expr::name("c"), vec![Stmt::Continue], Vec::new()), Stmt::Return(None)]);
        // A `return` inside an inner loop leaves the `try`: its copy goes.
        let mut body = vec![Stmt::For(Expr::name("i"), Expr::name("it"), vec![call("g"), call("f"), Stmt::Return(None)], Vec::new())];
        strip_finally_copies(&mut body, &[call("f")], &|_| false);
        assert_eq!(body, vec![Stmt::For(Expr::name("i"), Expr::name("it"), vec![call("g"), Stmt::Return(None)], Vec::new())]);
        // `f(); return x`: the copy goes only when `x` is a plain local, which `f()`
        // cannot change (a global or a cell it can: the copy then stays).
        let ret_x = || vec![call("f"), Stmt::Return(Some(Expr::name("x")))];
        let mut body = ret_x();
        strip_finally_copies(&mut body, &[call("f")], &|n| n == "x");
        assert_eq!(body, vec![Stmt::Return(Some(Expr::name("x")))]);
        let mut body = ret_x();
        strip_finally_copies(&mut body, &[call("f")], &|_| false);
        assert_eq!(body, ret_x());
    }

    #[test]
    fn return_spilled_in_one_arm_of_the_finally_copy() {
        // try: return x  finally: if d: x = 0   (3.10+ layout of the copy)
        let assign = |t: &str, v: Expr| Stmt::Assign(vec![Expr::name(t)], v);
        let zero = Expr::Const(depyf_bytecode::Constant::Int(0));
        let ret = |n: &str| Stmt::Return(Some(Expr::name(n)));
        let fbody = vec![Stmt::If(Expr::name("d"), vec![assign("x", zero.clone())], Vec::new())];
        let arm = vec![assign("__temp_0__", Expr::name("x")), assign("x", zero.clone()), ret("__temp_0__")];
        let copy = vec![Stmt::If(Expr::name("d"), arm.clone(), Vec::new()), ret("x")];
        assert_eq!(spilled_return_in_arms(&copy, &fbody, &|_| true), Some(ret("x")));
        // Not a plain local: the copy's `return x` may not read the body's value.
        assert_eq!(spilled_return_in_arms(&copy, &fbody, &|_| false), None);
        // A temporary that no `return` of its arm reads.
        let copy = vec![Stmt::If(Expr::name("d"), arm[..2].to_vec(), Vec::new()), ret("x")];
        assert_eq!(spilled_return_in_arms(&copy, &fbody, &|_| true), None);
        // A temporary of another name.
        let arm = vec![assign("__temp_0__", Expr::name("y")), assign("x", zero), ret("__temp_0__")];
        let copy = vec![Stmt::If(Expr::name("d"), arm, Vec::new()), ret("x")];
        assert_eq!(spilled_return_in_arms(&copy, &fbody, &|_| true), None);
    }

    #[test]
    fn return_spilled_through_merged_temporaries() {
        // try: return x  finally: if d: x = 0   (3.8-3.9 layout of the copy)
        let assign = |t: &str, v: Expr| Stmt::Assign(vec![Expr::name(t)], v);
        let zero = Expr::Const(depyf_bytecode::Constant::Int(0));
        let ret = |n: &str| Stmt::Return(Some(Expr::name(n)));
        let fbody = vec![Stmt::If(Expr::name("d"), vec![assign("x", zero.clone())], Vec::new())];
        let arm = vec![assign("__temp_0__", Expr::name("x")), assign("x", zero.clone()), assign("__temp_1__", Expr::name("__temp_0__"))];
        let copy = vec![assign("__temp_1__", Expr::name("x")), Stmt::If(Expr::name("d"), arm.clone(), Vec::new()), ret("__temp_1__")];
        assert_eq!(spilled_return_merged(&copy, &fbody, &|_| true), Some(ret("x")));
        assert_eq!(spilled_return_merged(&copy, &fbody, &|_| false), None);
        // A temporary carried over from something else than the value.
        let arm = vec![assign("__temp_0__", Expr::name("x")), assign("x", zero), assign("__temp_1__", Expr::name("y"))];
        let copy = vec![assign("__temp_1__", Expr::name("x")), Stmt::If(Expr::name("d"), arm, Vec::new()), ret("__temp_1__")];
        assert_eq!(spilled_return_merged(&copy, &fbody, &|_| true), None);
    }

    #[test]
    fn copy_left_before_code_that_leaves_the_try() {
        let inc = Stmt::AugAssign(Expr::name("i"), "+=", Expr::Const(depyf_bytecode::Constant::Int(1)));
        // 3.10 `except ...: continue` in a rotated while: copy, then the loop test.
        let test = Stmt::If(Expr::name("c"), vec![Stmt::Continue], Vec::new());
        let clause = vec![call("g"), inc.clone(), test.clone(), Stmt::Break];
        assert!(copy_before_leaving(&clause, std::slice::from_ref(&inc), false));
        // Inside an inner loop the same break/continue stays in the try.
        let inner = vec![Stmt::While(Expr::name("d"), clause, Vec::new())];
        assert!(!copy_before_leaving(&inner, std::slice::from_ref(&inc), false));
        // The finally statements followed by code that stays in the try are body code.
        assert!(!copy_before_leaving(&[inc.clone(), call("g")], &[inc], false));
    }

    #[test]
    fn reraise_of_a_finally_body_ending_in_try_except() {
        // Handler copy of `finally: try: a() except E: b()` on CPython 3.10: the
        // clause's jump after its pop is threaded to the `RERAISE`.
        let rx = Stmt::Expr(Expr::name(markers::RERAISE));
        let clause = |body: Vec<Stmt>| vec![ExceptHandler { typ: Some(Expr::name("E")), name: None, body, star: false }];
        let hs = vec![Stmt::Try(vec![call("a")], clause(vec![call("b"), rx.clone()]), Vec::new(), Vec::new()), rx.clone()];
        let want = vec![Stmt::Try(vec![call("a")], clause(vec![call("b")]), Vec::new(), Vec::new()), rx.clone()];
        assert_eq!(hoist_reraise(hs), want);
        // With code after the `try` that the clauses skip: that code is the `else:`.
        let hs = vec![Stmt::Try(vec![call("a")], clause(vec![call("b"), rx.clone()]), Vec::new(), Vec::new()), call("c"), rx.clone()];
        let want = vec![Stmt::Try(vec![call("a")], clause(vec![call("b")]), vec![call("c")], Vec::new()), rx.clone()];
        assert_eq!(hoist_reraise(hs), want);
        // A clause that goes on without re-raising keeps its code.
        let open = vec![Stmt::Try(vec![call("a")], clause(vec![call("b")]), Vec::new(), Vec::new()), rx.clone()];
        assert_eq!(hoist_reraise(open.clone()), open);
    }

    #[test]
    fn exit_pops_of_a_finally_handler() {
        // Handler copy of `finally: if c: return 1`, then the re-raise.
        let ret = Stmt::Return(Some(Expr::Const(depyf_bytecode::Constant::Int(1))));
        let hs = vec![Stmt::If(Expr::name("c"), vec![pop(), ret.clone()], Vec::new()), Stmt::Expr(Expr::name(markers::RERAISE))];
        assert!(is_finally_handler(&hs));
        let out = drop_exit_pops(&hs);
        assert_eq!(out[0], Stmt::If(Expr::name("c"), vec![ret], Vec::new()));
        // A pop followed by other code stays (it is not an exit of the body).
        let keep = vec![pop(), call("g")];
        assert_eq!(drop_exit_pops(&keep), keep);
        // `except` handlers are no `finally`.
        assert!(!is_finally_handler(&[pop(), Stmt::Expr(Expr::name(markers::RERAISE))]));
    }

    #[test]
    fn copy_with_the_following_exit_at_its_ends() {
        let fbody = vec![Stmt::With(vec![(Expr::name("m"), None)], vec![call("f")])];
        let ret = Stmt::Return(Some(Expr::name("__temp_0__")));
        let copy = vec![Stmt::With(vec![(Expr::name("m"), None)], vec![call("f"), ret.clone()])];
        assert!(is_copy_before(&copy, std::slice::from_ref(&ret), &fbody));
        // Another exit after the copy is not the one at its ends.
        assert!(!is_copy_before(&copy, &[Stmt::Return(None)], &fbody));
        // A user name may be unbound: in a `with` body its NameError would reach __exit__.
        let named = Stmt::Return(Some(Expr::name("log")));
        let copy = vec![Stmt::With(vec![(Expr::name("m"), None)], vec![call("f"), named.clone()])];
        assert!(!is_copy_before(&copy, &[named], &fbody));
    }
}
