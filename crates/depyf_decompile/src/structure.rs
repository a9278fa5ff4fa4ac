//! Structuring: turns recovered blocks into nested statements.
//!
//! - Loops are natural loops of back edges. A header that ends in `FOR_ITER` becomes
//!   `for`; any other header becomes `while True:` whose exits are `break`, and a
//!   rotated loop (`if c: while True: ...; if not c: break`) is folded back into
//!   `while c:` by `idioms`. Edges to the innermost loop's header are `continue`,
//!   edges to its follow block are `break`.
//! - Two-way branches become `if`/`else` whose merge point is the immediate
//!   post-dominator (when it lies inside the current loop); shared tails that no
//!   merge point explains are emitted again (duplicated), so acyclic flow always gets
//!   correct code.
//!
//! Assumes recovery ran on every reachable block.

use std::collections::BTreeSet;

use depyf_cfg::{BlockId, Cfg, Terminator};
use depyf_source::{Expr, Stmt};

use crate::recover::{negate, Recovered};
use crate::DecompileError;

mod exceptions;

/// A loop being emitted.
struct LoopCtx {
    header: BlockId,
    /// Where `break` goes; `None` when the loop is only left by `return`/`raise`.
    follow: Option<BlockId>,
    body: BTreeSet<BlockId>,
    /// Copies of the code after a `for` loop that CPython made at a `break` (see
    /// [`Structurer::break_copies`]): reaching one is `break`.
    copies: Vec<BlockId>,
    /// The no-op block before `header` that `continue` jumps to (see
    /// [`Structurer::pre_headers`]): reaching it is `continue` too.
    entry: Option<BlockId>,
}

impl LoopCtx {
    /// Whether flow to `x` goes back to the top of this loop (`continue`).
    fn is_header(&self, x: BlockId) -> bool {
        x == self.header || Some(x) == self.entry
    }
}

/// A block that leaves a `try`/`with` body and the statements that stand for it
/// (see `Structurer::exit_stubs`).
type ExitStub = (BlockId, Vec<Stmt>);

/// The deepest nesting of regions the structurer follows. CPython's tokenizer allows
/// 100 indentation levels (`MAXINDENT`, `Parser/tokenizer.h`); `elif` chains and
/// duplicated tails nest regions further, so the bound is higher, and low enough that
/// the recursion fits in a 2 MiB thread stack (Rust's default for spawned threads).
const MAX_REGION_DEPTH: usize = 400;

pub(crate) struct Structurer<'a> {
    pub cfg: &'a Cfg,
    pub ir: &'a [depyf_ir::IrInstr],
    /// Handlers of the `try`/`with` statements being emitted.
    opened: Vec<BlockId>,
    /// For each of [`Self::opened`], whether it is a `try`/`finally` handler.
    opened_finally: Vec<bool>,
    /// Bodies of the `finally` clauses whose `try` bodies are being emitted,
    /// outermost first.
    finals: Vec<Vec<Stmt>>,
    /// Blocks that leave the bodies of the `try`/`with` statements being emitted,
    /// with the statements that stand for them: a copy of a `finally` body or
    /// `__exit__` call followed by `break`/`continue`/`return` is that statement
    /// alone, and the normal exit (no statements) ends the body (see
    /// `exceptions::split_exit_copies`).
    exit_stubs: Vec<ExitStub>,
    /// For each of [`Self::exit_stubs`], how many loops were open when its `try`/`with`
    /// was (a loop opened since is inside the body), and the body's normal exit (an
    /// empty stub, a copy of it, stands for it).
    exit_stub_loops: Vec<(usize, Option<BlockId>)>,
    /// How many times structuring reached a normal exit of those bodies (an empty
    /// stub): a branch whose arm gets there must not go on to code after it.
    exit_hits: usize,
    /// How many times a region stopped at the header of the innermost loop because
    /// that was its `stop` (see [`Self::loop_end_merge`]): an `if` whose arms
    /// reach the end of the loop body.
    header_hits: usize,
    /// For each exception handler region being emitted, how many loops were open
    /// when it was entered (its `except` tests and clean-up are matched as shapes of
    /// their own, see [`Self::loop_end_merge`]).
    handler_loops: Vec<usize>,
    /// The normal exits of the `try`/`with` bodies being emitted (where their
    /// regions stop): [`Self::skip_bare`] does not skip past them into the code
    /// after the statement.
    body_exits: Vec<BlockId>,
    /// The normal exits of the `try` bodies being emitted (not `with` bodies, whose
    /// exit block, the `__exit__` call, is still part of the statement; nor the
    /// `finally` bodies of CPython 3.8-3.10, whose copies the structurer matches on
    /// its own): code there is after the `try` and never written inside the body.
    /// (With the number of loops open when the `try` was: a `for` opened at that
    /// depth ends the body when its `break` goes there.)
    try_exits: Vec<(BlockId, usize)>,
    /// What recovery learned about each block, but for its statements (taken out
    /// into [`Self::stmts_of`]).
    pub rec: &'a Recovered,
    /// Each block's recovered statements, until its first emission moves them into
    /// the output (with [`Self::moves`]); decisions read them through
    /// [`Self::stmts`] and [`Self::no_stmts`].
    stmts_of: Vec<Vec<Stmt>>,
    /// Whether the statements of each block have been moved into the output.
    moved: Vec<Moved>,
    /// Whether the first emission of a block moves its statements instead of
    /// copying them (issue #7: on the CPython 3.15 standard library the copies
    /// took 54 M of structuring's 400 M instructions, and dropping the unread
    /// originals 36 M more). A decision that reads a
    /// moved block afterwards, or a second emission of it, sets
    /// [`Self::read_moved`], and the caller structures again with copies. In the
    /// CPython 3.15 standard library that happened to 547 code objects with
    /// exception handlers (a `finally` body emitted on each way out, the two paths
    /// out of a `with` handler) and to 10 of the 18,000 without: code with handlers
    /// is structured with copies from the start.
    moves: bool,
    /// Set when a decision read the statements of a block already moved (or a
    /// block was emitted again after its statements moved): what this structurer
    /// made must be thrown away and made again with [`Self::moves`] off.
    read_moved: std::cell::Cell<bool>,
    /// The code object being structured.
    code: &'a depyf_bytecode::CodeObject,
    /// Blocks emitted so far, to bound duplication.
    pub emitted: usize,
    pub limit: usize,
    /// Regions being emitted inside one another (recursion of [`Self::region_into`]),
    /// bounded by [`MAX_REGION_DEPTH`] so that tangled or hostile control flow fails
    /// with an error instead of overflowing the stack of the calling thread.
    depth: usize,
    /// The block whose region is being structured (the last one entered): where a
    /// structural error without an instruction of its own is reported ([`Self::locate`]).
    current: BlockId,
    loops: Vec<LoopCtx>,
    /// Loop headers, with the sources of their back edges.
    latches: Vec<Vec<BlockId>>,
    /// For a loop header `h`, the block of no code before it that falls into it and
    /// that `continue` jumps to, when there is one (see [`pre_header_of`]); its back
    /// edges are `h`'s (in `latches`).
    pre_headers: Vec<Option<BlockId>>,
    /// Position of each block in reverse postorder (`usize::MAX`: unreachable along
    /// normal edges, such as handler code).
    rpo_index: Vec<usize>,
    /// Whether the entry reaches each block along normal and exception edges (dead
    /// code, which CPython 3.8-3.9 leave after jumps, is not).
    live: Vec<bool>,
    /// Blocks reachable from each block along forward edges, as bitsets: row `b`
    /// is `reach[b * words..(b + 1) * words]`.
    reach: Vec<u64>,
    /// Words per row of `reach`.
    words: usize,
    idom: &'a [Option<BlockId>],
    /// Whether the compiler left unreachable jumps in place (CPython 3.8-3.9): the
    /// `JUMP_FORWARD` that ends an `if` branch before its `else` stays after a
    /// `raise` (and after a `return` that ends a nested `if`/`else`), which tells
    /// an `else:` written in the source from statements after the `if` (see
    /// [`Self::written_else`]). Set by [`Self::new`] from the version.
    pub dead_jumps_kept: bool,
    /// Whether a `return None` in code with exception handling may read as the
    /// implicit one (see [`Self::implicit_return`]): CPython 3.10-3.14. Set by
    /// [`Self::new`] from the version.
    pub implicit_returns_in_handled_code: bool,
    /// Whether the `else` of a `try` lies between its body and its handlers, apart
    /// from the code after the `try` (CPython 3.11 `Python/compile.c`
    /// `compiler_try_except` lays out body, `else`, then the handlers, and keeps the
    /// `JUMP_FORWARD` over them at the end of a body without `else`; 3.9-3.10 give
    /// the same bytecode for both forms when no handler falls through, and 3.12+
    /// move handlers after all other code). Set by [`Self::new`] from the version.
    pub else_before_handlers: bool,
    /// Whether a `try`/`with` body leaves through a `POP_BLOCK` of its own, a block
    /// of no statements before the code after the statement (CPython 3.8-3.10 block
    /// stack, `Python/compile.c` `compiler_try_except`; 3.11+ exception tables have
    /// none): [`Self::skip_empty`] stops at that exit. Set by [`Self::new`].
    pub pop_block_exits: bool,
    /// Whether the compiler copies a small exit block (`return <const>`, `return
    /// x`) into each jump to it (CPython 3.12+ `Python/flowgraph.c`
    /// `inline_small_exit_blocks`), so that code after a `try` may follow an
    /// `except` clause's pop directly. Set by [`Self::new`].
    pub small_exits_inlined: bool,
    /// Whether the compiler copies a small exit block into an unconditional jump
    /// to it without 3.11+'s clean-up ranges to tell the copies apart (CPython 3.10
    /// `Python/compile.c` `extend_block`): an `except` clause's `POP_EXCEPT`
    /// followed by a `return` of a value loaded after the pop is a copy of the
    /// code after the `try` (a `return x` of the clause loads `x` first and moves
    /// it below the exception with `ROT_FOUR`). Set by [`Self::new`].
    pub small_exits_extended: bool,
    /// The test regions folded during one [`Self::short_circuit`] call, by first test
    /// and depth: the condition, its two ways out and the test blocks after the first
    /// (see [`Self::test_region`]). With the number of regions folded in that call.
    regions: std::cell::RefCell<(usize, std::collections::HashMap<(BlockId, usize), (Expr, BlockId, BlockId, Vec<BlockId>)>)>,
}

impl<'a> Structurer<'a> {
    /// Whether `name` is a plain local variable of a function: a fast-locals slot
    /// that is neither a cell nor a free variable (`co_localspluskinds`, CPython
    /// 3.11+ `Include/internal/pycore_code.h`; `co_varnames` less `co_cellvars` and
    /// `co_freevars` before). Only code that names it can change it; a global, a
    /// cell or any name of a module or class body may change under a call.
    pub(crate) fn is_plain_local(&self, name: &str) -> bool {
        use depyf_bytecode::code::{co_flags, local_kind};
        if self.code.co_flags & co_flags::OPTIMIZED == 0 {
            return false;
        }
        let mut local = false;
        for (n, &k) in self.code.co_localsplusnames.iter().zip(&self.code.co_localspluskinds) {
            if &**n == name {
                if k & (local_kind::CELL | local_kind::FREE) != 0 {
                    return false;
                }
                local |= k & local_kind::LOCAL != 0;
            }
        }
        local
    }

    /// A structurer for the control-flow graph `cfg` of one code object compiled by
    /// CPython `version`, with its recovered blocks `rec` and IR `ir`. The layout
    /// facts that differ by version ([`Self::dead_jumps_kept`],
    /// [`Self::else_before_handlers`], [`Self::pop_block_exits`],
    /// [`Self::small_exits_inlined`]) are decided here from `code.version`; `code`'s
    /// names and slot kinds answer [`Self::is_plain_local`].
    ///
    /// `stmts` are the statements of `rec`'s blocks, taken out of it
    /// ([`Recovered::take_stmts`]). With `moves`, each block's first emission moves
    /// them into the output; the result is then valid only while
    /// [`Self::read_moved`] stays false (code with exception handlers is
    /// structured with copies whatever `moves` says, see [`Self::moves`]).
    fn new(cfg: &'a Cfg, rec: &'a Recovered, stmts: Vec<Vec<Stmt>>, moves: bool, ir: &'a [depyf_ir::IrInstr], code: &'a depyf_bytecode::CodeObject) -> Self {
        debug_assert!(rec.blocks.iter().all(|b| b.stmts.is_empty()), "the statements are taken out of the recovered blocks");
        debug_assert_eq!(stmts.len(), cfg.blocks.len());
        let version = code.version;
        let mut latches = vec![Vec::new(); cfg.blocks.len()];
        for &(from, to) in cfg.back_edges() {
            latches[to.index()].push(from);
        }
        let n = cfg.blocks.len();
        let rpo = cfg.reverse_postorder();
        let mut rpo_index = vec![usize::MAX; n];
        for (i, b) in rpo.iter().enumerate() {
            rpo_index[b.index()] = i;
        }
        // Only loops that no normal back edge forms or enters: a jump from an
        // `except` clause to a block before a loop header (the top test of a rotated
        // `while c:`, see `pretest_of`, or a `NOP` before the header) is that loop's
        // `continue`, and a loop nested in such a loop is left to fail as before.
        // The header of that loop may be a normal loop's header already (or the
        // `NOP` of the `while` line before it, which the loop's `continue` jumps to
        // on CPython 3.10): the jump is a `continue` of that same loop from an
        // `except` clause, one more back edge of it, when the clause's handler is
        // part of the loop's body already (its `try` goes on to the loop's end in
        // normal flow too: an `except` clause that falls off its `try`, in a
        // `with` of the body): the clause's code is then the body's, never a way
        // out of the loop.
        // (Most code objects have none of those edges: the copy of the normal
        // latches is made only for one that has.)
        let handler_edges = handler_back_edges(cfg, &rpo_index);
        let normal = if handler_edges.is_empty() { Vec::new() } else { latches.clone() };
        for (from, to) in handler_edges {
            let blk = &cfg.blocks[to.index()];
            let into = match blk.term {
                Terminator::FallThrough(h) if ir[blk.start..blk.end].iter().all(|i| i.op == depyf_ir::Op::Nop) => Some(h),
                _ => None,
            };
            let head = |b: &BlockId| *b == to || Some(*b) == into;
            let body = natural_loop(cfg, to, &[from], true);
            let nested = body.iter().any(|b| !normal[b.index()].is_empty() && !head(b));
            let joins = || {
                let Some(h) = [Some(to), into].into_iter().flatten().find(|h| !normal[h.index()].is_empty()) else { return false };
                let inner = natural_loop(cfg, h, &normal[h.index()], false);
                natural_loop(cfg, to, &[from], false).iter().any(|b| !head(b) && inner.contains(b))
            };
            let own = body.iter().all(|b| normal[b.index()].is_empty());
            // Loops nested whole in the `try` body whose clause jumps back
            // (`while c: try: while True: ... except E: ...`, heapq `merge`; their
            // back edges protected by that `try`'s handler): the loop is its own,
            // theirs inside its body. (A loop whose back edge lies outside that
            // `try` is one the clause's jump continues, see `joins`.)
            let encloses = || {
                let entries = handler_entries(cfg, from);
                let inside = |h: &BlockId| {
                    let latches = &normal[h.index()];
                    latches.iter().all(|&l| protected_by_any(cfg, l, &entries)) && natural_loop(cfg, *h, latches, false).is_subset(&body)
                };
                normal[to.index()].is_empty() && body.iter().all(|b| *b == to || normal[b.index()].is_empty() || inside(b))
            };
            if own || (!nested && joins()) || encloses() {
                latches[to.index()].push(from);
            }
        }
        let idom = cfg.immediate_dominators();
        let mut pre_headers = vec![None; n];
        for p in 0..n {
            let p = BlockId(p as u32);
            let code = &rec.blocks[p.index()];
            let blank = stmts[p.index()].is_empty() && code.for_loop.is_none() && code.collapsed_to.is_none() && code.error.is_none();
            if let Some(h) = blank.then(|| pre_header_of(cfg, ir, &latches, idom, &rpo_index, p)).flatten() {
                let moved = std::mem::take(&mut latches[p.index()]);
                latches[h.index()].extend(moved);
                pre_headers[h.index()] = Some(p);
            }
        }
        // (Marked when pushed: each block is pushed once, so `work` never outgrows
        // its first allocation.)
        let mut live = vec![false; n];
        let mut work = Vec::with_capacity(n);
        if n > 0 {
            live[0] = true;
            work.push(BlockId(0));
        }
        while let Some(b) = work.pop() {
            for s in (0..).map_while(|i| cfg.blocks[b.index()].succ_at(i, true)) {
                if !std::mem::replace(&mut live[s.index()], true) {
                    work.push(s);
                }
            }
        }
        let words = n.div_ceil(64);
        // One row of `words` bits per block, in one allocation.
        let mut reach = vec![0u64; words * n];
        for &b in rpo.iter().rev() {
            for s in cfg.blocks[b.index()].succs() {
                if rpo_index[s.index()] > rpo_index[b.index()] {
                    // `s` comes after `b` in reverse postorder: a different row.
                    let (row, from) = (b.index() * words, s.index() * words);
                    reach[row + s.index() / 64] |= 1 << (s.index() % 64);
                    for w in 0..words {
                        reach[row + w] |= reach[from + w];
                    }
                }
            }
        }
        Structurer {
            cfg,
            ir,
            opened: Vec::new(),
            opened_finally: Vec::new(),
            finals: Vec::new(),
            exit_stubs: Vec::new(),
            exit_stub_loops: Vec::new(),
            exit_hits: 0,
            header_hits: 0,
            handler_loops: Vec::new(),
            body_exits: Vec::new(),
            try_exits: Vec::new(),
            rec,
            moved: vec![Moved::No; stmts.len()],
            stmts_of: stmts,
            moves: moves && cfg.blocks.iter().all(|b| b.handler.is_none()),
            read_moved: std::cell::Cell::new(false),
            code,
            emitted: 0,
            limit: 16 * n + 64,
            depth: 0,
            current: BlockId(0),
            loops: Vec::new(),
            latches,
            pre_headers,
            rpo_index,
            live,
            reach,
            words,
            idom,
            dead_jumps_kept: version <= depyf_bytecode::PythonVersion::PY39,
            implicit_returns_in_handled_code: version >= depyf_bytecode::PythonVersion::PY310 && version <= depyf_bytecode::PythonVersion::PY314,
            else_before_handlers: version == depyf_bytecode::PythonVersion::PY311,
            pop_block_exits: version <= depyf_bytecode::PythonVersion::PY310,
            small_exits_inlined: version >= depyf_bytecode::PythonVersion::PY312,
            small_exits_extended: version == depyf_bytecode::PythonVersion::PY310,
            regions: Default::default(),
        }
    }

    fn reaches(&self, from: BlockId, to: BlockId) -> bool {
        from == to || self.reach[from.index() * self.words + to.index() / 64] & (1 << (to.index() % 64)) != 0
    }

    fn dominates(&self, a: BlockId, mut b: BlockId) -> bool {
        loop {
            if a == b {
                return true;
            }
            match self.idom[b.index()] {
                Some(d) => b = d,
                None => return false,
            }
        }
    }

    /// Where the two arms of the branch at `b` meet again: the earliest block (in
    /// reverse postorder) that both reach along forward edges and that `b`
    /// dominates, inside the current loop. Arms that end in `return` or `raise`
    /// don't prevent a meeting of the others, unlike the post-dominator.
    fn follow(&self, b: BlockId, fall: BlockId, jump: BlockId) -> Option<BlockId> {
        // An arm that goes back to the loop's header is a `continue`: it meets
        // nothing (the header reaches the rest of the body only by looping).
        if self.loops.last().is_some_and(|l| l.is_header(fall) || l.is_header(jump)) {
            return None;
        }
        if self.rpo_index[b.index()] == usize::MAX {
            return self.handler_follow(b, fall, jump);
        }
        (0..self.cfg.blocks.len() as u32)
            .map(BlockId)
            .filter(|&c| c != b && self.rpo_index[c.index()] != usize::MAX)
            .filter(|&c| self.reaches(fall, c) && self.reaches(jump, c))
            .filter(|&c| self.dominates(b, c) && (self.in_current_loop(c) || self.merge_after_loop_body(c)))
            .min_by_key(|c| self.rpo_index[c.index()])
    }

    /// Whether block `c`, outside the innermost loop's body, may still be where the
    /// arms of a branch in that body meet: code that both arms go on to and that
    /// never comes back to the loop's top (`if a: A` / `else: B` / `return x` last
    /// in a loop body, where `return x` is no block of the natural loop), when it
    /// is not (nor comes after) the loop's follow (where `break` goes), is not
    /// related to a copy of it or the way out of a `try`/`with` body being written,
    /// and lies in the
    /// enclosing loop's body (if any). The arms then stop there and the code is
    /// written once after the `if`, as CPython `Python/compile.c` `compiler_if`
    /// lays it out (a `JUMP_FORWARD` over the `else` to it), instead of a copy in
    /// each arm. The branch's block dominates `c` (checked by the caller), so
    /// nothing else reaches it.
    fn merge_after_loop_body(&self, c: BlockId) -> bool {
        let Some(l) = self.loops.last() else { return false };
        let related = |x: BlockId| self.reaches(c, x) || self.reaches(x, c);
        // (Code that goes on to the follow, the statements before a `break`, is
        // fine: only code at or after the follow is not the body's.)
        if l.is_header(c) || l.follow.is_some_and(|f| self.reaches(f, c)) || l.copies.iter().any(|&x| related(x)) {
            return false;
        }
        // Nor code on the way out of a `try`/`with` body being written.
        if self.body_exits.iter().any(|&x| related(x)) || self.exit_stubs.iter().any(|&(x, _)| related(x)) || self.try_exits.iter().any(|&(x, _)| related(x)) {
            return false;
        }
        let n = self.loops.len();
        n < 2 || self.loops[n - 2].body.contains(&c)
    }

    /// [`Self::follow`] for a branch in handler code: blocks that only exception
    /// edges reach, outside the reverse postorder, reach sets and dominators that
    /// `follow` reads. The earliest block (in layout order) of handler code that
    /// both arms reach along normal edges (not past the current loop's header or
    /// follow) and that no handler entry reaches without passing `b`. Without it the
    /// code after an `if` in an `except` clause or `finally` body was copied into
    /// both arms (correct, but the `RERAISE` that ends a `finally` body then ends
    /// both arms, which no longer reads as a `finally`).
    fn handler_follow(&self, b: BlockId, fall: BlockId, jump: BlockId) -> Option<BlockId> {
        let n = self.cfg.blocks.len();
        // (`work`: a buffer that the walks share, left empty by each.)
        let mut work = Vec::new();
        let mut walk = |roots: &[BlockId], avoid: Option<BlockId>| {
            let mut seen = vec![false; n];
            for &r in roots {
                if Some(r) != avoid && !seen[r.index()] {
                    seen[r.index()] = true;
                    work.push(r);
                }
            }
            while let Some(x) = work.pop() {
                if self.loops.last().is_some_and(|l| l.is_header(x) || l.follow == Some(x)) {
                    continue;
                }
                for s in self.cfg.blocks[x.index()].succs() {
                    if Some(s) != avoid && !seen[s.index()] {
                        seen[s.index()] = true;
                        work.push(s);
                    }
                }
            }
            seen
        };
        let (rf, rj) = (walk(&[fall], None), walk(&[jump], None));
        let entries: Vec<BlockId> = (0..n as u32)
            .map(BlockId)
            .filter(|&x| self.rpo_index[x.index()] == usize::MAX && self.cfg.blocks[x.index()].preds.is_empty())
            .collect();
        let around = walk(&entries, Some(b));
        (0..n as u32)
            .map(BlockId)
            .filter(|&c| c != b && self.rpo_index[c.index()] == usize::MAX && rf[c.index()] && rj[c.index()] && !around[c.index()])
            .filter(|&c| !self.loops.last().is_some_and(|l| l.is_header(c) || l.follow == Some(c)))
            .min()
    }

    /// The blocks of the natural loop of `header`. For a loop entered again only
    /// from handler code (see [`handler_back_edges`]), the blocks that a handler
    /// entry in the loop protects are in it too (they reach it by an exception edge).
    fn loop_body(&self, header: BlockId) -> BTreeSet<BlockId> {
        let by_handler = self.latches[header.index()].iter().all(|l| self.rpo_index[l.index()] == usize::MAX);
        let mut body = natural_loop(self.cfg, header, &self.latches[header.index()], by_handler);
        // Code that nothing reaches is in no loop: CPython 3.8-3.9 leave a clause's
        // `POP_EXCEPT; JUMP_FORWARD` after a `break` in it, jumping to a latch, with
        // no protected range; counted in, it put a loop that a `try` encloses
        // around the `try` instead (the `finally` body then ran on every `continue`).
        body.retain(|b| self.live[b.index()]);
        body.extend(self.pre_headers[header.index()]);
        body
    }

    fn in_current_loop(&self, b: BlockId) -> bool {
        self.loops.last().is_none_or(|l| l.body.contains(&b))
    }

    /// `e` with a location when it has none (offset 0 and no opname: the structural
    /// errors, which are about a shape, not one instruction): the last instruction of
    /// the block being structured when it was raised (its branch or jump), so a
    /// refusal names a place in the bytecode.
    pub fn locate(&self, mut e: DecompileError) -> DecompileError {
        if e.offset == 0 && e.opname.is_empty() {
            let block = &self.cfg.blocks[self.current.index()];
            if let Some(ins) = self.ir.get(block.start..block.end).and_then(|b| b.last()) {
                e.offset = ins.at;
                e.opname = ins.opname.to_string();
            }
        }
        e
    }

    /// The recovered statements of block `b`, for a decision. Those of a block
    /// whose statements have moved into the output read as none, and set
    /// [`Self::read_moved`].
    pub(crate) fn stmts(&self, b: BlockId) -> &[Stmt] {
        if self.moved[b.index()] != Moved::No {
            self.read_moved.set(true);
        }
        &self.stmts_of[b.index()]
    }

    /// Whether block `b` has no statements, whether or not they have moved.
    pub(crate) fn no_stmts(&self, b: BlockId) -> bool {
        self.stmts_of[b.index()].is_empty() && self.moved[b.index()] == Moved::No
    }

    /// Whether the last statement of block `b` is `return None`, whether or not its
    /// statements have moved (asked of blocks already emitted, see
    /// [`Self::implicit_return`]).
    fn ends_returning_none(&self, b: BlockId) -> bool {
        match self.moved[b.index()] {
            Moved::No => returns_none(self.stmts_of[b.index()].last()),
            Moved::Yes { returned_none } => returned_none,
        }
    }

    /// Appends the statements of block `b` to `out`: moved there at its first
    /// emission with [`Self::moves`], copied otherwise. Emitting a block again
    /// after its statements moved sets [`Self::read_moved`].
    fn emit_stmts(&mut self, out: &mut Vec<Stmt>, b: BlockId) {
        let i = b.index();
        if self.moved[i] != Moved::No {
            self.read_moved.set(true);
        } else if self.moves && !self.stmts_of[i].is_empty() {
            self.moved[i] = Moved::Yes { returned_none: returns_none(self.stmts_of[i].last()) };
            if out.is_empty() {
                std::mem::swap(out, &mut self.stmts_of[i]);
            } else {
                out.append(&mut self.stmts_of[i]);
            }
        } else {
            out.extend(self.stmts_of[i].iter().cloned());
        }
    }

    /// Whether a decision read the statements of a block after they moved into
    /// the output: then the output (or error) of this structurer is void, and a
    /// structurer made with copies (`moves` off) must structure the code again.
    fn read_moved(&self) -> bool {
        self.read_moved.get()
    }

    /// Statements for the region that starts at `b` and ends before `stop` (or at a
    /// return, raise, break or continue).
    pub fn region(&mut self, b: BlockId, stop: Option<BlockId>, err: &dyn Fn(&str) -> DecompileError) -> Result<Vec<Stmt>, DecompileError> {
        let mut out = Vec::new();
        self.region_into(&mut out, b, stop, false, err)?;
        Ok(out)
    }

    fn region_into(&mut self, out: &mut Vec<Stmt>, b: BlockId, stop: Option<BlockId>, entering_loop: bool, err: &dyn Fn(&str) -> DecompileError) -> Result<(), DecompileError> {
        if self.depth >= MAX_REGION_DEPTH {
            return Err(err("control flow nested too deeply to structure"));
        }
        self.depth += 1;
        let r = self.region_into_at_depth(out, b, stop, entering_loop, err);
        self.depth -= 1;
        r
    }

    fn region_into_at_depth(&mut self, out: &mut Vec<Stmt>, mut b: BlockId, stop: Option<BlockId>, mut entering_loop: bool, err: &dyn Fn(&str) -> DecompileError) -> Result<(), DecompileError> {
        loop {
            self.current = b;
            if Some(b) == stop {
                if self.loops.last().is_some_and(|l| l.is_header(b)) {
                    self.header_hits += 1;
                }
                return Ok(());
            }
            if let Some(l) = self.loops.last() {
                if (b == l.header && !entering_loop) || Some(b) == l.entry {
                    out.push(Stmt::Continue);
                    return Ok(());
                }
                if Some(b) == l.follow || l.copies.contains(&b) {
                    out.push(Stmt::Break);
                    return Ok(());
                }
            }
            if let Some(i) = self.exit_stubs.iter().rposition(|(x, _)| *x == b) {
                let s = &self.exit_stubs[i].1;
                let (open, normal) = self.exit_stub_loops[i];
                if self.loops.len() > open {
                    // Reached from a loop opened inside the body: the normal exit (or
                    // a copy of it) is that loop's `break` when the loop's follow is
                    // that exit (a `break` in a `while`/`else` or after a test jumps
                    // straight there, CPython 3.14+; CPython 3.12+ copy a small exit
                    // such as `finally` body + `return x` into each jump to it); a
                    // `break`/`continue` of a loop around the statement would mean
                    // the inner loop here.
                    let l = self.loops.last().expect("a loop is open");
                    let is_exit = |f: BlockId, x: BlockId| self.jumps_to(x, f) || self.jumps_to(f, x);
                    if s.is_empty() && l.follow.is_some_and(|f| is_exit(f, b) || normal.is_some_and(|e| is_exit(f, e))) {
                        out.push(Stmt::Break);
                        return Ok(());
                    }
                    if s.is_empty() || loop_exits(s) {
                        return Err(err("a loop inside a try or with body that leaves it for the code after the statement"));
                    }
                }
                if s.is_empty() {
                    self.exit_hits += 1;
                }
                out.extend(s.iter().cloned());
                return Ok(());
            }
            // The normal exit of a `try` body being written is where that body
            // ends: every region inside the body stops before it. Reached here
            // (a `break` that skips a loop's `else` and goes straight to the code
            // after the `try`), writing it in place would run the code after the
            // `try` under its handlers or before its `finally` body.
            // (A block that only returns a local or a constant raises nothing the
            // handlers could catch: CPython 3.12+ copy such a block into the body's
            // exits, `Python/flowgraph.c` `inline_small_exit_blocks`.)
            // (Nor is the `break` of a loop opened inside that body whose follow is
            // the body's exit: CPython 3.14+ keeps a `while` last in a `try` body
            // unrotated, its test jumping straight to the exit.)
            // The exit may be a block without statements (the `NOP` of the `while`
            // line) before that follow.
            let breaks_to = |d: usize| self.loops.len() > d && self.loops.last().is_some_and(|l| l.follow.is_some_and(|f| self.jumps_to(b, f)));
            if self.try_exits.iter().rev().find(|&&(x, _)| x == b).is_some_and(|&(_, d)| !breaks_to(d)) && !self.returns_name_only(b) {
                return Err(err("code after a try body reached from inside the body where no statement can leave it"));
            }
            if let Some((inner, exit, to_inner)) = self.pretest_of(b) {
                if self.loops.last().is_some_and(|l| l.header == inner) {
                    // `continue` of a rotated `while c:` (CPython 3.10+): the test
                    // again, leaving the loop when it fails.
                    let mut leave = Vec::new();
                    self.region_into(&mut leave, exit, None, false, err)?;
                    out.push(Stmt::If(negate(to_inner), leave, Vec::new()));
                    out.push(Stmt::Continue);
                    return Ok(());
                }
            }
            if let Some(h) = self.try_start(b) {
                // A loop whose blocks are all in the `try` is inside it.
                let loop_first = !entering_loop && !self.latches[b.index()].is_empty() && !self.loop_body(b).iter().all(|x| self.protected_by(*x, h));
                if !loop_first {
                    return self.emit_try(out, b, h, stop, entering_loop, err);
                }
            }
            // A `for` whose body never loops back (every path returns, raises or
            // breaks) is a loop all the same: its header has no back edge.
            let for_header = self.rec.blocks[b.index()].for_loop.is_some() && matches!(self.cfg.blocks[b.index()].term, Terminator::Branch { .. });
            let pretest = self.pretest_of(b).is_some();
            if (!self.latches[b.index()].is_empty() && !pretest || for_header) && !entering_loop {
                // Stops at the header of a loop nested here are not this loop's.
                let saved_hits = self.header_hits;
                let next = self.emit_loop(out, b, err)?;
                self.header_hits = saved_hits;
                match next {
                    Some(next) => {
                        // A loop whose `break` leaves the `try` body it ends: its
                        // follow lies past the body's normal exit (a block that only
                        // jumps there, CPython 3.11+ `break` in a `try` body), so the
                        // code there is after the `try`. Going on at the exit ends
                        // the body (or fails below when the exit is not where this
                        // region stops).
                        let past_exit = self.try_exits.last().filter(|&&(e, d)| d == self.loops.len() && e != next && self.jumps_to(e, next));
                        // A loop in a `try`/`except` body left only by `break`s in
                        // `except` clauses of its own (handler code, no normal exit
                        // of the body): the code after it may lie outside the `try`
                        // (the copy of an enclosing `finally` body, the code after the
                        // statement), which the body must not run under its handlers.
                        // (An enclosing `try`/`finally` reads its body's normal-exit
                        // copy after such a loop itself, see `emit_try`.)
                        // (A `while` only: a `for` goes on after its `break`s in
                        // normal flow too, where its follow is told right.)
                        if past_exit.is_none() && Some(next) != stop && self.rec.blocks[b.index()].for_loop.is_none() {
                            if let (Some(&h), Some(&fin)) = (self.opened.last(), self.opened_finally.last()) {
                                let known = self.body_exits.iter().chain(self.try_exits.iter().map(|(e, _)| e)).any(|&e| self.jumps_to(e, next) || self.jumps_to(next, e));
                                if !fin && self.protected_by(b, h) && !self.protected_by(next, h) && !known && !self.exit_stubs.iter().any(|(x, _)| *x == next) && !self.is_return_tail(next, h) {
                                    return Err(err("a loop left by except clauses of its own for code outside the try around it"));
                                }
                            }
                        }
                        b = past_exit.map_or(next, |&(e, _)| e);
                        continue;
                    }
                    None => return Ok(()),
                }
            }
            entering_loop = false;
            self.emitted += 1;
            if self.emitted > self.limit {
                return Err(err("control flow too tangled to structure (duplication limit reached)"));
            }
            let code = &self.rec.blocks[b.index()];
            if let Some(e) = &code.error {
                return Err(e.clone());
            }
            // (Read before the statements move.)
            let implicit_return = self.implicit_return(b);
            self.emit_stmts(out, b);
            if implicit_return {
                // Marked as the compiler's own `return None` (see `implicit_return`).
                if let Some(last) = out.last_mut() {
                    *last = Stmt::Return(None);
                }
            }
            if let Some(merge) = code.collapsed_to {
                b = merge;
                continue;
            }
            match self.cfg.blocks[b.index()].term {
                Terminator::Return | Terminator::Raise => return Ok(()),
                Terminator::Jump(s) if Some(s) == stop && self.loops.last().is_some_and(|l| l.is_header(s)) && !self.implicit_back_jump(b) => {
                    // A `continue` statement in an arm of an `if` that ends the loop
                    // body (see `loop_end_merge`).
                    out.push(Stmt::Continue);
                    return Ok(());
                }
                Terminator::FallThrough(s) | Terminator::Jump(s) => b = s,
                Terminator::Branch { jump, fall } => {
                    let test_fall = fall;
                    let cond = code.fall_condition.clone().ok_or_else(|| err("a loop branch outside its loop header"))?;
                    // An `except*` test is never part of an `and`/`or` chain.
                    let (cond, fall, jump, merge) = match self.star_test_follow(&cond, jump) {
                        Some(m) => (cond, fall, jump, Some(m)),
                        None => {
                            let (cond, fall, jump) = self.short_circuit(b, cond, fall, jump);
                            let mut merge = self.follow(b, fall, jump).or_else(|| self.written_else_end(b, jump)).or_else(|| self.jumped_else_end(b, fall, jump));
                            // The test before a rotated `while c: ... else: E`: both
                            // arms run `E` (see `rotated_while_else`), then meet
                            // where the loop's `break`s go.
                            if !self.latches[fall.index()].is_empty() && self.pretest_of(b).is_none() {
                                if let Some((e, x)) = self.rotated_while_else(fall, &self.loop_body(fall)) {
                                    if merge == Some(e) && self.skip_empty(jump) == e {
                                        merge = Some(x);
                                    }
                                }
                            }
                            (cond, fall, jump, merge)
                        }
                    };
                    // Arms without a meeting of their own stop where the enclosing region
                    // goes on (inside a loop too): an `elif` whose `else` is a `continue`
                    // block (a jump back to the header, no meeting) still ends at the
                    // statement after the whole `if`, instead of copying it into each arm.
                    let at_loop_end = if merge.is_none() { self.loop_end_merge(fall, jump, stop) } else { None };
                    let merge = merge.or(at_loop_end);
                    let header_hits = self.header_hits;
                    let inner_stop = merge.or(stop);
                    let hits = self.exit_hits;
                    let mut then_body = Vec::new();
                    self.region_into(&mut then_body, fall, inner_stop, false, err)?;
                    let mut else_body = Vec::new();
                    self.region_into(&mut else_body, jump, inner_stop, false, err)?;
                    if at_loop_end.is_some() {
                        // A test that jumps straight back to the header (CPython
                        // 3.8-3.11 jump backwards conditionally) reads as `continue`.
                        let l = self.loops.last().expect("a loop is open");
                        for (arm, body) in [(fall, &mut then_body), (jump, &mut else_body)] {
                            if l.is_header(arm) && body.is_empty() {
                                body.push(Stmt::Continue);
                            }
                        }
                    }
                    // An arm that left a `try`/`with` body at its normal exit would
                    // run the code after the branch too.
                    // (Going on at a normal exit itself is the end of the body.)
                    let ends = |m: BlockId| self.exit_stubs.iter().rev().find(|(x, _)| *x == m).is_some_and(|(_, s)| s.is_empty());
                    if self.exit_hits != hits && merge.is_some_and(|m| Some(m) != stop && !ends(m)) {
                        return Err(err("a branch of a try or with body that leaves it before the code after the branch"));
                    }
                    // `if c: pass` + `else: X`: the then-branch is a block of its own
                    // that only jumps to the meeting point (the jump that CPython's
                    // `compiler_if`, `Python/compile.c`, emits after the body); `if not
                    // c: X` instead jumps on true past `X`. (Not when the tests after
                    // the pass were folded into the condition: `if a: pass elif b: X`.)
                    // (On CPython 3.8-3.9 that block, a jump on a line of its own, may
                    // go to where the enclosing region stops: an `elif c: pass` arm.)
                    if then_body.is_empty() && !else_body.is_empty() && Some(&cond) == self.rec.blocks[b.index()].fall_condition.as_ref() && merge.or(stop.filter(|_| self.dead_jumps_kept && self.own_line_jump(test_fall))).is_some_and(|m| (fall == m || fall == test_fall) && self.pass_arm(test_fall, m)) {
                        then_body.push(Stmt::Pass);
                    }
                    // `if c: A` + `continue` (or `break`), CPython 3.8-3.9: the test's
                    // jump to that statement's jump was retargeted to where it goes
                    // (`Python/peephole.c` threads a conditional jump to an
                    // unconditional one; 3.10+ only on one line), so the else-branch
                    // is that statement alone and the then-branch ends in it too.
                    // Written once after the `if`, it compiles back to the same jumps
                    // (and runs the same: the then-branch went on to it).
                    if self.dead_jumps_kept && (merge.is_none() || merge == at_loop_end) && then_body.len() > 1 && self.loops.last().is_some_and(|l| l.is_header(jump) || l.follow == Some(jump)) {
                        if let ([.., last], [only @ (Stmt::Continue | Stmt::Break)]) = (then_body.as_slice(), else_body.as_slice()) {
                            if last == only {
                                let only = only.clone();
                                then_body.pop();
                                out.push(Stmt::If(cond, then_body, Vec::new()));
                                out.push(only);
                                return Ok(());
                            }
                        }
                    }
                    let written = self.written_else(jump).map(|(w, _)| w);
                    // The unreachable jump survives after a `return` only where a jump
                    // lands on it: the one that ends the then-branch of a nested
                    // `if`/`else` that ends the branch (CPython 3.8-3.9
                    // `Python/peephole.c` removes the unreachable ops after a
                    // `RETURN_VALUE` up to the next jump target): that `else` was written.
                    if written == Some(true) && jump.0 >= 2 && matches!(self.cfg.blocks[jump.index() - 2].term, Terminator::Return) {
                        crate::final_else(&mut then_body);
                    }
                    if let Some(h) = at_loop_end {
                        // A then-branch that leaves by itself (`continue`, `return`...)
                        // before the rest of the loop body: that rest follows the `if`
                        // (an `elif` would read it as one more test). One that falls off
                        // the body's end keeps its `else`.
                        let leaves = ends_control(&then_body);
                        if self.header_hits == header_hits {
                            // Neither arm got to the end of the loop body.
                            push_if(out, cond, then_body, else_body, written);
                            return Ok(());
                        }
                        if stop != Some(h) {
                            // The arms that fall off the end go on with the next
                            // iteration: `continue` (left out where the `if` ends the
                            // loop body, `drop_trailing_continue`). Inside an arm of an
                            // `if` that ends the body (`stop` is the header), that `if`
                            // writes it.
                            for body in [&mut then_body, &mut else_body] {
                                if !ends_control(body) {
                                    body.push(Stmt::Continue);
                                }
                            }
                        }
                        push_if(out, cond, then_body, else_body, written.or(Some(!leaves)));
                        return Ok(());
                    }
                    push_if(out, cond, then_body, else_body, written);
                    match merge {
                        Some(m) if Some(m) != stop || self.loops.is_empty() => b = m,
                        _ => return Ok(()),
                    }
                    if Some(b) == stop {
                        return Ok(());
                    }
                }
            }
        }
    }

    /// The header of the innermost loop, as the meeting point of the arms of an `if`
    /// (whose tests go on at `fall` and `jump`) that have no meeting point inside the
    /// loop, when one of them gets to the end of the loop body (see
    /// [`Self::implicit_back_jump`]): then the `if` is the last statement of the body,
    /// its arms stop where they would fall off the body's end, and a `continue` (left
    /// out at the end of the body) follows it. A jump of a `continue` statement in an
    /// arm still writes `continue` (see `region_into_at_depth`). CPython compiles
    /// `if c: A` / `else: B` at the end of a loop body with a jump back after each
    /// arm that carries the line of that arm's last statement (3.12+ `Python/flowgraph.c`
    /// `propagate_line_numbers`, 3.8-3.11 the line of the last statement compiled),
    /// where `if c: A; continue` / `B` gives the `continue` a line of its own: read
    /// as `continue`, the first form would compile with jumps of its own.
    /// `None` outside loops, inside a `try`/`with` body or an exception handler
    /// opened in the loop or around a `try`/`with` in an arm (whose exits are matched
    /// on their own), and where the
    /// enclosing region `stop`s inside the loop body (the `if` is an arm of one
    /// that goes on there).
    fn loop_end_merge(&self, fall: BlockId, jump: BlockId, stop: Option<BlockId>) -> Option<BlockId> {
        let l = self.loops.last()?;
        // Where the enclosing region stops inside the body, the `if` ends there.
        if stop.is_some_and(|s| !l.is_header(s) && l.body.contains(&s)) {
            return None;
        }
        let here = self.loops.len();
        if self.exit_stub_loops.iter().any(|&(open, _)| open >= here) || self.try_exits.iter().any(|&(_, d)| d >= here) || self.handler_loops.iter().any(|&d| d >= here) {
            return None;
        }
        // A `try`/`with` in an arm: its regions stop at the header too, where the
        // code after its handlers (a `try`'s `else`) would no longer be told from the
        // code after the statement.
        let arm = |y: BlockId| self.reaches(fall, y) || self.reaches(jump, y);
        let handler = self.cfg.blocks[fall.index()].handler.or(self.cfg.blocks[jump.index()].handler);
        if l.body.iter().any(|&y| arm(y) && self.cfg.blocks[y.index()].handler != handler) {
            return None;
        }
        let ends_body = l.body.iter().any(|&y| {
            (self.reaches(fall, y) || self.reaches(jump, y)) && matches!(self.cfg.blocks[y.index()].term, Terminator::Jump(s) if l.is_header(s)) && self.implicit_back_jump(y)
        });
        ends_body.then_some(l.header)
    }

    /// The unconditional jump that ends block `b` and the op before it in the block
    /// (`NOP`s left out), for reading the jump's line against its; `None` when the
    /// block ends otherwise or its recovery failed or was folded into another block.
    fn ending_jump(&self, b: BlockId) -> Option<(&depyf_ir::IrInstr, Option<&depyf_ir::IrInstr>)> {
        let blk = &self.cfg.blocks[b.index()];
        let code = &self.rec.blocks[b.index()];
        if code.error.is_some() || code.collapsed_to.is_some() {
            return None;
        }
        let mut ops = self.ir[blk.start..blk.end].iter().rev().filter(|i| i.op != depyf_ir::Op::Nop);
        let last = ops.next()?;
        matches!(last.op, depyf_ir::Op::Jump(_)).then(|| (last, ops.next()))
    }

    /// Whether block `b`, which jumps back to the innermost loop's header, is the
    /// jump at the end of the loop body rather than a `continue` statement: its jump
    /// has no line of its own (none, or the line of the op before it in the block,
    /// or of the end of the block's only predecessor). A lone jump that a test
    /// falls into when its condition holds (`POP_JUMP_IF_FALSE` over it) is the
    /// body of `if c: continue` written on one line. CPython gives a `continue`
    /// statement its own location; the jump that ends a loop body gets the line of
    /// what precedes it (3.10+ `Python/compile.c` emits it without a location,
    /// filled in by `propagate_line_numbers`; 3.8-3.9 the line of the last statement).
    fn implicit_back_jump(&self, b: BlockId) -> bool {
        let blk = &self.cfg.blocks[b.index()];
        let Some((last, prev)) = self.ending_jump(b) else { return false };
        let Some(line) = last.line else { return true };
        if let Some(prev) = prev {
            return prev.line == Some(line);
        }
        // CPython 3.8-3.9: a jump that ends an `if` arm or the loop body, laid out
        // after the last statement compiled (an arm that falls into it, or one that
        // raises or returns), carries that statement's line, also when arms before
        // jump to it (the then-branch of an `if`/`else` nested in an `elif` arm jumps
        // to the jump that ends that arm). A test on that line over it is the body of
        // `if c: continue` written on one line.
        if self.dead_jumps_kept && blk.start > 0 {
            let before = self.ir[..blk.start].iter().rev().find(|i| i.op != depyf_ir::Op::Nop);
            if before.is_some_and(|i| i.line == Some(line) && !matches!(i.op, depyf_ir::Op::JumpIf { .. } | depyf_ir::Op::JumpIfOrPop { .. })) {
                return true;
            }
        }
        let [p] = blk.preds.as_slice() else { return false };
        let pb = &self.cfg.blocks[p.index()];
        let Some(pl) = self.ir[pb.start..pb.end].iter().rev().find(|i| i.op != depyf_ir::Op::Nop) else { return false };
        if matches!(pl.op, depyf_ir::Op::JumpIf { when: false, .. }) && matches!(pb.term, Terminator::Branch { fall, .. } if fall == b) {
            return false;
        }
        pl.line == Some(line)
    }

    /// Whether block `b` is `to`, or leads there through at most four blocks
    /// without statements of their own that only jump or fall on (no loop back
    /// edge among them).
    fn jumps_to(&self, mut b: BlockId, to: BlockId) -> bool {
        for _ in 0..4 {
            if b == to {
                return true;
            }
            let code = &self.rec.blocks[b.index()];
            if !self.no_stmts(b) || code.collapsed_to.is_some() || code.error.is_some() || !self.latches[b.index()].is_empty() {
                return false;
            }
            match self.cfg.blocks[b.index()].term {
                Terminator::Jump(s) | Terminator::FallThrough(s) => b = s,
                _ => return false,
            }
        }
        b == to
    }

    /// Whether block `b` is only `return`, `return <constant>` or `return <name>`
    /// (code that runs the same inside or after a `try` body: it raises nothing a
    /// handler would catch, short of an unbound local).
    fn returns_name_only(&self, b: BlockId) -> bool {
        let code = &self.rec.blocks[b.index()];
        matches!(self.cfg.blocks[b.index()].term, Terminator::Return) && code.collapsed_to.is_none() && code.error.is_none() && matches!(self.stmts(b), [Stmt::Return(None | Some(Expr::Const(_) | Expr::Name(_)))])
    }

    /// Whether block `fall`, where an `if`'s test goes on when true, is the body of a
    /// written `pass`: reached only from the test, no statements, and ends in a jump
    /// to `merge`, where the `else` branch meets it. (Either reading runs the same.)
    fn pass_arm(&self, fall: BlockId, merge: BlockId) -> bool {
        let block = &self.cfg.blocks[fall.index()];
        fall != merge && block.preds.len() == 1 && self.no_stmts(fall) && self.rec.blocks[fall.index()].collapsed_to.is_none() && matches!(block.term, Terminator::Jump(s) if s == merge)
    }

    /// Whether the source wrote an `else:` (or `elif`) before the block `jump` that
    /// an `if`'s test jumps to, when the compiler leaves unreachable jumps in place
    /// ([`Self::dead_jumps_kept`], CPython 3.8-3.9 `Python/compile.c` `compiler_if`
    /// emits a `JUMP_FORWARD` after the branch, and `Python/peephole.c` removes
    /// unreachable ops only after a `RETURN_VALUE` in the same basic block):
    /// `Some(true)` when the op before `jump` is such an unreachable jump, `Some(false)`
    /// when it is a `raise` or the jump of a `break`/`continue` statement (see
    /// [`Self::written_jump`]) that is reached (no jump was emitted after it, so no
    /// `else`), `None` otherwise (unknown). Either reading runs the same where the
    /// branch cannot fall through, the only case in which it is consulted.
    /// With `Some(true)`, the block the unreachable jump goes to (the end of the
    /// whole `if` statement).
    fn written_else(&self, jump: BlockId) -> Option<(bool, Option<BlockId>)> {
        if !self.dead_jumps_kept || jump.0 == 0 {
            return None;
        }
        let before = BlockId(jump.0 - 1);
        let blk = &self.cfg.blocks[before.index()];
        if self.rpo_index[before.index()] == usize::MAX {
            // The block is that lone jump. Forward only: a dead jump back is the end
            // of a loop body that returns.
            let mut ops = self.ir[blk.start..blk.end].iter().map(|i| &i.op).filter(|o| **o != depyf_ir::Op::Nop);
            return match (ops.next(), ops.next(), blk.term) {
                (Some(depyf_ir::Op::Jump(_)), None, Terminator::Jump(t)) if t.0 > before.0 => Some((true, Some(t))),
                _ => None,
            };
        }
        if matches!(blk.term, Terminator::Jump(_)) && self.written_jump(before) {
            // A `break`/`continue` statement that ends the then-branch: with an
            // `else:` written, the branch's `JUMP_FORWARD` would follow it, unreached.
            return Some((false, None));
        }
        matches!(blk.term, Terminator::Raise).then_some((false, None))
    }

    /// Whether block `b` ends in a jump op on a line of its own (a `break` or
    /// `continue` statement): not the line of the op before it in the block, or,
    /// for a block of that jump alone, of the last op of its only predecessor.
    /// CPython gives those statements' jumps their own line (`Python/compile.c`
    /// `compiler_break`/`compiler_continue`); the jump that ends an `if` arm or a
    /// loop body carries the line of the statement before it (3.8-3.9).
    fn written_jump(&self, b: BlockId) -> bool {
        let blk = &self.cfg.blocks[b.index()];
        let Some((last, prev)) = self.ending_jump(b) else { return false };
        let Some(line) = last.line else { return false };
        if let Some(prev) = prev {
            return prev.line.is_some_and(|l| l != line);
        }
        let [p] = blk.preds.as_slice() else { return false };
        let pb = &self.cfg.blocks[p.index()];
        self.ir[pb.start..pb.end].iter().rev().find(|i| i.op != depyf_ir::Op::Nop).is_some_and(|i| i.line.is_some_and(|l| l != line))
    }

    /// Where an `if` at `b` whose arms don't meet (its then-branch never falls
    /// through) ends when the source wrote an `else:` before `jump`: the target of
    /// the unreachable jump before `jump` (see [`Self::written_else`]), when the
    /// else-branch reaches it, `b` dominates it and it is in the current loop and
    /// not its header. The else-branch stops there, and the code after the `if`
    /// goes on there, as it does after the else-branch.
    fn written_else_end(&self, b: BlockId, jump: BlockId) -> Option<BlockId> {
        let (true, Some(end)) = self.written_else(jump)? else { return None };
        let ok = end != jump
            && self.rpo_index[end.index()] != usize::MAX
            && self.reaches(jump, end)
            && self.dominates(b, end)
            && self.in_current_loop(end)
            && self.loops.last().is_none_or(|l| !l.is_header(end));
        ok.then_some(end)
    }

    /// Where an `if` at `b` whose arms don't meet ends when its then-branch (from
    /// `fall`) jumps over an else-branch (the block `jump`) that returns or raises: the
    /// block `x` that the last block laid out before `jump`, reached from `fall`,
    /// jumps to forward (past `jump`), when `b` dominates `x`, the else-branch does
    /// not reach it, and it is in the current loop and not its header. CPython
    /// 3.8+ emits a jump at the end of a then-branch only over a written `else:`
    /// (`Python/compile.c`/`codegen.c` `compiler_if`); `if c: A` + `return` has no
    /// jump there. The code after the `if` goes on at `x`, so that `if c: A` /
    /// `else: return` + rest compiles back to the same layout (where `if c: A; rest`
    /// + `return` would put the rest in the then-branch).
    fn jumped_else_end(&self, b: BlockId, fall: BlockId, jump: BlockId) -> Option<BlockId> {
        if jump.0 == 0 || fall == jump {
            return None;
        }
        let before = BlockId(jump.0 - 1);
        let blk = &self.cfg.blocks[before.index()];
        let Terminator::Jump(x) = blk.term else { return None };
        let ok = x.0 > jump.0
            && self.rpo_index[before.index()] != usize::MAX
            && self.rpo_index[x.index()] != usize::MAX
            && self.ir[blk.start..blk.end].last().is_some_and(|i| matches!(i.op, depyf_ir::Op::Jump(_)))
            && (before == fall || self.reaches(fall, before))
            && matches!(self.cfg.blocks[jump.index()].term, Terminator::Return | Terminator::Raise)
            && !self.reaches(jump, x)
            && self.dominates(b, x)
            && self.in_current_loop(x)
            && self.loops.last().is_none_or(|l| !l.is_header(x) && l.follow != Some(x));
        ok.then_some(x)
    }

    /// `Some((cond, fall, jump))` when `b` is a branch that only tests a condition:
    /// no statements, not a loop header, reached only from one block or only from
    /// the blocks of `chain` (the tests already folded into the condition being
    /// built, whose edges leave it only to its two outcomes: reaching `b` from them
    /// means one outcome of that condition, as when both tests of `a and b` jump to
    /// the `c` of `a and b or c`, on lines in the order of the source), and in the
    /// same protected range as those predecessors. A test at the start of a `try` body (`if p:` /
    /// `try:` / `if stat(p):`) is not part of the test before it: folding it into
    /// `if p and stat(p):` would move it out of the `try`, so its exceptions would
    /// no longer reach the handlers (CPython 3.11+ put no op at a `try:`; 3.8-3.10's
    /// `SETUP_FINALLY` becomes a range too).
    fn bare_test(&self, b: BlockId, chain: &[BlockId]) -> Option<(Expr, BlockId, BlockId)> {
        let block = &self.cfg.blocks[b.index()];
        let code = &self.rec.blocks[b.index()];
        // (A block without statements that only goes on from a test of the chain,
        // such as the `NOT_TAKEN` of CPython 3.14+, is part of it.)
        let in_chain = |p: &BlockId| {
            let pb = &self.cfg.blocks[p.index()];
            chain.contains(p) || (self.no_stmts(*p) && self.rec.blocks[p.index()].collapsed_to.is_none() && matches!(pb.term, Terminator::FallThrough(_) | Terminator::Jump(_)) && matches!(pb.preds.as_slice(), [q] if chain.contains(q)))
        };
        // (Nor a test on a line before its predecessors': the bottom test of a
        // rotated `while` after `if a and b: break`, a statement of its own.)
        let line = |x: BlockId| {
            let xb = &self.cfg.blocks[x.index()];
            self.ir[xb.start..xb.end].iter().rev().find(|i| i.op != depyf_ir::Op::Nop).and_then(|i| i.line)
        };
        let in_order = |p: &BlockId| !matches!((line(*p), line(b)), (Some(x), Some(y)) if x > y);
        let entered = block.preds.len() == 1 || (!block.preds.is_empty() && block.preds.iter().all(|p| in_chain(p) && in_order(p)));
        if !entered || !self.no_stmts(b) || !self.latches[b.index()].is_empty() || code.for_loop.is_some() || code.collapsed_to.is_some() {
            return None;
        }
        if block.preds.iter().any(|p| block.handler != self.cfg.blocks[p.index()].handler) {
            return None;
        }
        match block.term {
            Terminator::Branch { jump, fall } => Some((code.fall_condition.clone()?, fall, jump)),
            _ => None,
        }
    }

    /// Follows blocks that only drop stack values and go on (the clean-up of a
    /// chained comparison's kept operand) to where they lead, never out of the
    /// protected range `within` of the test they follow: a block outside it (other
    /// than a bare jump) is the way out of a `try`/`with` body (CPython 3.12 `break` after a `try` that ends
    /// in an `if`: the test jumps straight to the `POP_TOP; JUMP` of the `break`),
    /// and code past it is not in the body.
    fn skip_bare(&self, mut b: BlockId, within: Option<depyf_cfg::ExcEdge>) -> BlockId {
        for _ in 0..8 {
            let block = &self.cfg.blocks[b.index()];
            let code = &self.rec.blocks[b.index()];
            // A block of jumps alone is never protected (a jump raises nothing;
            // CPython 3.13 leaves the `JUMP` of a `break` out of the range): it is
            // no way out by itself.
            let jumps_only = self.jump_only_target(b).is_some();
            if within.is_some_and(|e| !self.protected_by(b, e.target)) && !jumps_only {
                break;
            }
            // The clean-up of a chain of three or more comparisons is reached from
            // each test but the last (CPython 3.8-3.10 `compiler_jump_if`): it
            // only pops the kept operand.
            let pops_only = || {
                let ops = &self.ir[block.start..block.end];
                ops.iter().any(|i| i.op == depyf_ir::Op::PopTop) && ops.iter().all(|i| matches!(i.op, depyf_ir::Op::PopTop | depyf_ir::Op::Nop | depyf_ir::Op::Jump(_)))
            };
            // Nor past the innermost loop's follow: reaching it is `break` (a jump
            // block in handler code that leaves the loop, see [`Self::loop_exit`]).
            if (block.preds.len() != 1 && !pops_only()) || !self.no_stmts(b) || !self.latches[b.index()].is_empty() || code.collapsed_to.is_some() || self.body_exits.contains(&b) || self.loops.last().is_some_and(|l| l.follow == Some(b)) {
                break;
            }
            // CPython 3.8-3.9: a lone jump forward on a line of its own, not to
            // the innermost loop's follow, is the then-branch of `if c: pass` /
            // `else: ...` (the `pass` gives `compiler_if`'s jump over the `else`
            // its line), no part of one condition (`if not c and d:` has no jump).
            let lone_jump = self.ir[block.start..block.end].iter().filter(|i| i.op != depyf_ir::Op::Nop).count() == 1;
            if self.dead_jumps_kept && lone_jump && matches!(block.term, Terminator::Jump(s) if s.0 > b.0 && self.loops.last().is_none_or(|l| l.follow != Some(s))) && self.own_line_jump(b) {
                break;
            }
            // A chain's clean-up that goes straight back to a loop's header (`for x
            // in xs: if c or a < x < b: ...`, its test false; before CPython 3.11):
            // the `continue` that the last test's own jump to the header is too.
            if let Terminator::Jump(s) = block.term {
                if pops_only() && !self.latches[s.index()].is_empty() && self.is_chain_cleanup(b) {
                    return s;
                }
            }
            match block.term {
                Terminator::Jump(s) | Terminator::FallThrough(s) if self.latches[s.index()].is_empty() => b = s,
                _ => break,
            }
        }
        b
    }

    /// The line of block `x`'s last op that is not a `NOP`.
    fn end_line(&self, x: BlockId) -> Option<u32> {
        let blk = &self.cfg.blocks[x.index()];
        self.ir[blk.start..blk.end].iter().rev().find(|i| i.op != depyf_ir::Op::Nop).and_then(|i| i.line)
    }

    /// Whether `b` is the clean-up of a chained comparison in a test: every way in is
    /// the test of a link, whose comparison names its kept middle operand (`a < (t
    /// := m)`, see `recover::BlockState::chain_middle`), not a `break` that pops a
    /// `for` loop's iterator too.
    fn is_chain_cleanup(&self, b: BlockId) -> bool {
        fn link(e: &Expr) -> bool {
            match e {
                Expr::Compare(_, ops) => matches!(ops.last(), Some((_, Expr::NamedExpr(t, _))) if t.starts_with("__temp_")),
                Expr::UnaryOp("not", x) => link(x),
                _ => false,
            }
        }
        let preds = &self.cfg.blocks[b.index()].preds;
        !preds.is_empty() && preds.iter().all(|p| self.rec.blocks[p.index()].fall_condition.as_ref().is_some_and(link))
    }

    /// Whether `a` and `b` lead to the same code: the same block, or two terminal
    /// blocks (return/raise) with the same statements, as when CPython copies a
    /// small exit block into each jump to it. A copy keeps the line numbers of its
    /// original, so two blocks on different lines are two statements of the source
    /// (`if a: return 0` / `if b: return 0`, not `if a or b: return 0`); both
    /// readings compute the same, the lines only choose the one that compiles back
    /// to the same bytecode (CPython 3.8-3.13 `Python/compile.c`/`flowgraph.c`
    /// `duplicate_exits_without_lineno`, `inline_small_exit_blocks`).
    fn same_exit(&self, a: BlockId, b: BlockId) -> bool {
        if a == b {
            return true;
        }
        // A lone jump back to a loop header on the line of every block that leads to
        // it, and the header itself: the `continue` of one condition (`[x for x in xs
        // if c or a < x < b]`, `for x in xs: if a <= x <= b: return x`: CPython
        // 3.11+ jumps forward only, so one test goes back through such a jump, a
        // chain's clean-up straight to the header). A `continue` statement has a
        // line of its own, not its test's.
        // (Or on the header's own line: a comprehension's, whose tests may span lines.)
        let continue_of = |x: BlockId, h: BlockId| {
            let blk = &self.cfg.blocks[x.index()];
            if blk.term != Terminator::Jump(h) || self.latches[h.index()].is_empty() || !self.no_stmts(x) {
                return false;
            }
            let lone = self.ir[blk.start..blk.end].iter().all(|i| matches!(i.op, depyf_ir::Op::Nop | depyf_ir::Op::Jump(_)));
            let line = self.ir[blk.start..blk.end].last().and_then(|i| i.line);
            lone && (line.is_some() && blk.preds.iter().all(|&p| self.end_line(p) == line) || self.same_lines(x, h))
        };
        if continue_of(a, b) || continue_of(b, a) {
            return true;
        }
        let terminal = |x: BlockId| matches!(self.cfg.blocks[x.index()].term, Terminator::Return | Terminator::Raise);
        terminal(a) && terminal(b) && self.stmts(a) == self.stmts(b) && self.same_lines(a, b) && self.same_pred_lines(a, b)
    }

    /// Whether the blocks that lead to `a` and to `b` end on one line (or either
    /// has predecessors on several lines, or without lines). Copies of an exit
    /// block with a line of its own are made for the jumps of `break`/`continue`
    /// and of the ends of `if` arms (CPython 3.12+ `Python/flowgraph.c`
    /// `inline_small_exit_blocks`), never for the tests of one condition, whose
    /// jumps all go to the one block: two such copies reached from tests on two
    /// lines are two statements (`if x: break` in a `while c:` whose exit is that
    /// code too), not the outcomes of one `x or not c`. (Copies of an exit without
    /// a line take the line of their predecessor, which [`Self::same_lines`] compares.)
    fn same_pred_lines(&self, a: BlockId, b: BlockId) -> bool {
        let line = |x: BlockId| {
            let mut lines = self.cfg.blocks[x.index()].preds.iter().map(|&p| self.end_line(p));
            let first = lines.next().flatten();
            if lines.all(|l| l == first) { first } else { None }
        };
        match (line(a), line(b)) {
            (Some(x), Some(y)) => x == y,
            _ => true,
        }
    }

    /// Whether block `b` ends in a `return None` that the compiler added at the end
    /// of the function rather than a `return` statement: its ops carry the line of
    /// the op before them (in `b`, or in its only predecessor), where a statement
    /// has a line of its own. CPython 3.10+ copies that implicit return into every
    /// path that falls off the end (`Python/compile.c`/`flowgraph.c`
    /// `duplicate_exits_without_lineno`, which gives each copy the line of its
    /// predecessor), so the copies are one end of the function in the source, not
    /// `return` statements (see `crate::drop_tail_returns`). 3.15 loads that `None`
    /// with `LOAD_COMMON_CONSTANT`. False without lines and inside a protected range
    /// (3.8-3.9 and 3.15: in code with exception handling).
    fn implicit_return(&self, b: BlockId) -> bool {
        let blk = &self.cfg.blocks[b.index()];
        // CPython 3.8-3.9 copy no exits, and leaving a `try`/`with` there runs
        // clean-up ops on the line of the `return` statement itself, which would read
        // as implicit: only code without exception handling qualifies. 3.10-3.14 only
        // exclude a return inside a protected range. (3.15 keeps the stricter rule:
        // reading its returns after a `finally` copy as implicit leaves that copy
        // unmatched, a refusal seen in the semantic suite, not yet understood.)
        if blk.handler.is_some() || (!self.implicit_returns_in_handled_code && self.cfg.blocks.iter().any(|x| x.handler.is_some())) {
            return false;
        }
        if !self.ends_returning_none(b) {
            return false;
        }
        let ops = &self.ir[blk.start..blk.end];
        let Some(ret) = ops.iter().rposition(|i| matches!(i.op, depyf_ir::Op::Return)) else { return false };
        if ret + 1 != ops.len() || ret == 0 || !ops[ret - 1].op.is_literal_load() {
            return false;
        }
        let line = ops[ret].line;
        if line.is_none() || ops[ret - 1].line != line {
            return false;
        }
        // CPython 3.8-3.9 emit the implicit return once, last in the code
        // (`Python/compile.c` `compiler_function`/`compiler_body`): a `return None`
        // laid out before other code is a statement (`return None if c else x`,
        // whose jump to the shared `RETURN_VALUE` `Python/peephole.c` replaced by a
        // `RETURN_VALUE`, puts the `None` arm's on the line of the test).
        if self.dead_jumps_kept && self.ir[blk.end..].iter().any(|i| i.op != depyf_ir::Op::Nop) {
            return false;
        }
        let before = ops[..ret - 1].iter().rev().find(|i| i.op != depyf_ir::Op::Nop && i.offset != ops[ret - 1].offset);
        let prev_line = match before {
            Some(i) => i.line,
            None => match blk.preds.as_slice() {
                [p] => {
                    let pb = &self.cfg.blocks[p.index()];
                    self.ir[pb.start..pb.end].iter().rev().find(|i| i.op != depyf_ir::Op::Nop).and_then(|i| i.line)
                }
                _ => None,
            },
        };
        prev_line == line
    }

    /// Whether the last ops (the `return`/`raise`) of `a` and `b` carry the same line
    /// number (or either has none). Only the last op: ops before it may belong to
    /// another statement (the clean-up of a chained comparison).
    fn same_lines(&self, a: BlockId, b: BlockId) -> bool {
        let line = |x: BlockId| {
            let blk = &self.cfg.blocks[x.index()];
            self.ir[blk.start..blk.end].last().and_then(|i| i.line)
        };
        match (line(a), line(b)) {
            (Some(x), Some(y)) => x == y,
            _ => true,
        }
    }

    /// Merges chains of tests into one condition with `and`/`or` (how CPython
    /// compiles `if a and b:` / `if a or b:`): `cond` leads to `fall`, else `jump`.
    /// `b` is the block of the test `cond`.
    fn short_circuit(&self, b: BlockId, cond: Expr, fall: BlockId, jump: BlockId) -> (Expr, BlockId, BlockId) {
        // (The regions depend on structuring state, such as the loops opened, that
        // may differ at the next call.)
        let mut regions = self.regions.borrow_mut();
        regions.0 = 0;
        regions.1.clear();
        drop(regions);
        self.short_circuit_in(cond, fall, jump, self.cfg.blocks[b.index()].handler, 0, &mut vec![b], 0)
    }

    /// A test block's condition with the tests that follow it folded in first
    /// (`a or (b and c)`: the `b and c` region is one operand), to a bounded depth.
    /// `chain[base..]`: the tests of the enclosing condition folded so far, the only
    /// blocks besides one single predecessor that may lead to `b`; the blocks of the
    /// region are appended to `chain` (also when `Some` is not taken: the caller cuts
    /// `chain` back). Inside the region only its own tests may lead to a test.
    fn test_region(&self, b: BlockId, within: Option<depyf_cfg::ExcEdge>, depth: usize, chain: &mut Vec<BlockId>, base: usize) -> Option<(Expr, BlockId, BlockId)> {
        let (c, f, j) = self.bare_test(b, &chain[base..])?;
        // The region's own chain starts at `b`, right after the enclosing one's.
        let own = chain.len();
        chain.push(b);
        if depth >= 32 {
            return Some((c, f, j));
        }
        // Past the region's first test, folding reads only its own chain, so the
        // region is the same wherever it is tried from (at the same depth, which
        // bounds the nesting). A chain of `elif` tests made of `or`s tries the rest
        // of the chain from every test again: 85,687 regions for 99 blocks in
        // CPython 3.15's `LiveStatsCollector._handle_input` before the regions were
        // kept. (Kept only past the first 64 of one call: fewer is the common case,
        // where keeping copies costs more than it saves.)
        let mut regions = self.regions.borrow_mut();
        regions.0 += 1;
        let keep = regions.0 > 64;
        if let Some((e, f2, j2, blocks)) = regions.1.get(&(b, depth)) {
            chain.extend_from_slice(blocks);
            return Some((e.clone(), *f2, *j2));
        }
        drop(regions);
        let r = self.short_circuit_in(c, f, j, within, depth + 1, chain, own);
        if keep {
            self.regions.borrow_mut().1.insert((b, depth), (r.0.clone(), r.1, r.2, chain[own + 1..].to_vec()));
        }
        Some(r)
    }

    /// `within`: the protected range of the first test (every test folded in shares it).
    /// `chain[base..]`: the test blocks folded so far (see [`Self::bare_test`]); each
    /// test folded in is appended. (One vector for the chains of all the nested
    /// regions, each tried at its end and cut back when not taken: no copy per trial.)
    #[allow(clippy::too_many_arguments)]
    fn short_circuit_in(&self, mut cond: Expr, mut fall: BlockId, mut jump: BlockId, within: Option<depyf_cfg::ExcEdge>, depth: usize, chain: &mut Vec<BlockId>, base: usize) -> (Expr, BlockId, BlockId) {
        loop {
            fall = self.skip_bare(fall, within);
            jump = self.skip_bare(jump, within);
            let len = chain.len();
            if let Some((c2, f2, j2)) = self.test_region(fall, within, depth, chain, base) {
                let (f2, j2) = (self.skip_bare(f2, within), self.skip_bare(j2, within));
                if self.same_exit(j2, jump) {
                    cond = and_or(true, cond, c2);
                    fall = f2;
                    continue;
                }
                if self.same_exit(f2, jump) {
                    cond = and_or(false, negate(cond), c2);
                    fall = jump;
                    jump = j2;
                    continue;
                }
            }
            chain.truncate(len);
            if let Some((c2, f2, j2)) = self.test_region(jump, within, depth, chain, base) {
                let (f2, j2) = (self.skip_bare(f2, within), self.skip_bare(j2, within));
                if self.same_exit(f2, fall) {
                    cond = and_or(false, cond, c2);
                    jump = j2;
                    continue;
                }
                if self.same_exit(j2, fall) {
                    cond = and_or(false, cond, negate(c2));
                    jump = f2;
                    continue;
                }
            }
            chain.truncate(len);
            return (cond, fall, jump);
        }
    }

    /// The block that `break` leads to in a `for` loop with an `else` clause, whose
    /// body is `body` and whose exhausted iterator goes to `exhausted` (CPython
    /// compiles `for x in it: ... else: E` as `FOR_ITER` jumping to `E`, which falls
    /// into the block after the statement, the target of every `break`). `None` when
    /// no such block is certain. The paths that leave the body elsewhere than at
    /// `exhausted` are followed (through the blocks that `if` arms inside the body
    /// reach before their `break`) up to the first blocks that are either reached
    /// from `exhausted` (the `else` clause falls into them) or the header or follow
    /// of an enclosing loop (a `break` that leads to the enclosing loop's `continue`
    /// or `break`, which the body cannot write itself); paths that end in
    /// `return`/`raise` don't count. The answer is the one such block, if there is
    /// exactly one and it is not `exhausted`. Any such block gives correct code:
    /// edges to it become `break`, the `else` region stops at it and the statement
    /// goes on there.
    fn for_else_follow(&self, exhausted: BlockId, body: &BTreeSet<BlockId>) -> Option<BlockId> {
        let mut seen: BTreeSet<BlockId> = BTreeSet::new();
        let mut work: Vec<BlockId> = body.iter().flat_map(|b| self.cfg.blocks[b.index()].succs()).filter(|s| !body.contains(s) && *s != exhausted).collect();
        let header = body.iter().copied().filter(|b| self.rpo_index[b.index()] != usize::MAX).min_by_key(|b| self.rpo_index[b.index()]);
        let mut found: BTreeSet<BlockId> = BTreeSet::new();
        while let Some(x) = work.pop() {
            if self.rpo_index[x.index()] == usize::MAX || !seen.insert(x) {
                continue;
            }
            // CPython 3.12+ `break` first pops the iterator (`POP_TOP`) in a block of its own.
            let y = self.skip_empty(x);
            // The first code after a `break` that flow which never entered the loop
            // reaches too: the code after an `if` whose arm ends with the loop (`if
            // c: for ...: break` + `else: raise` then `X`: `break` jumps straight to
            // `X`, CPython `compiler_if` joins both arms there). (Code before it on
            // the way, reached only from the loop, is read inside the loop before
            // its `break`: the same flow, as the `else` never gets there. Such code
            // is the rest of the body after a `try` whose `except` clause alone
            // goes back to the loop, no back edge of the loop's in normal flow.)
            // (A `for` only: the test before a rotated `while c:` skips the loop
            // to the code after it, which the loop's header never dominates.)
            if header.is_some_and(|h| self.rec.blocks[h.index()].for_loop.is_some() && !self.dominates(h, y)) {
                found.insert(y);
                continue;
            }
            // The normal exit of the `try` body that the loop ends (the loop is
            // the body's last statement, opened in no loop of the body): `break`
            // goes on after the `try`, an `else` that returns never gets there.
            // (Through blocks without statements that only jump on: the `POP_BLOCK`
            // of 3.8-3.10, the `JUMP` that 3.13+ leave outside the protected range.)
            // (The exit may itself be the block that only jumps on, 3.11's jump
            // after the protected range.)
            let try_end = self.try_exits.last().is_some_and(|&(e, d)| d == self.loops.len() && (self.jumps_to(y, e) || self.jumps_to(x, e)));
            let outer = self.loops.iter().any(|l| l.is_header(y) || l.follow == Some(y)) || try_end;
            if outer || self.reaches(exhausted, y) {
                found.insert(y);
                continue;
            }
            if !self.latches[x.index()].is_empty() {
                return None;
            }
            work.extend(self.cfg.blocks[x.index()].succs().into_iter().filter(|s| !body.contains(s)));
        }
        match found.into_iter().collect::<Vec<_>>().as_slice() {
            [a] if *a != exhausted => Some(*a),
            _ => None,
        }
    }

    /// Where block `b` goes when it is a block of jumps alone (`NOP`s and an
    /// unconditional jump, or a fall into the next block): no code, nothing that
    /// could raise.
    fn jump_only_target(&self, b: BlockId) -> Option<BlockId> {
        let blk = &self.cfg.blocks[b.index()];
        match blk.term {
            Terminator::Jump(t) | Terminator::FallThrough(t) if self.ir[blk.start..blk.end].iter().all(|i| matches!(i.op, depyf_ir::Op::Nop | depyf_ir::Op::Jump(_))) => Some(t),
            _ => None,
        }
    }

    /// Where flow that leaves loop `h` for block `s` goes: a `break` compiled as a
    /// jump block of its own (CPython 3.12+ `JUMP_FORWARD` after a failed test)
    /// leaves for where that block leads; so does the `break` of a loop in handler
    /// code (an `except` clause, the copy of a `finally` body that runs on an
    /// exception), as in its copy in normal code. A jump block in handler code that
    /// leaves a loop in normal code is the loop's own exit (the bottom test after an
    /// `except` clause whose loop only the clause goes back to).
    fn loop_exit(&self, h: BlockId, s: BlockId) -> BlockId {
        if self.rpo_index[s.index()] == usize::MAX && self.rpo_index[h.index()] != usize::MAX {
            s
        } else {
            self.skip_empty(s)
        }
    }

    /// `Some((e, x))` for a rotated `while c: ... else: E` (CPython 3.10+,
    /// `Python/compile.c` `compiler_while`): the bottom test of loop `h` (body
    /// `body`) fails to `e`, the first block of `E`, which falls into `x`, where
    /// every `break` jumps (found by [`Self::for_else_follow`]: the code after the
    /// statement, or the normal exit of the `try` body the loop ends, which the
    /// body cannot write). Then `x` is the loop's follow: `E` is written where the
    /// test fails (`if not c: E; break`) and in the `else` of the test before the
    /// loop, which `idioms::rotated_while` folds into the loop's `else`. Read
    /// otherwise, the code at `x` was copied into each `break` (wrong inside a
    /// `try` body, whose handlers would cover it). `None` for any other loop (a
    /// bottom test copied into `break`s, several bottom exits).
    fn rotated_while_else(&self, h: BlockId, body: &BTreeSet<BlockId>) -> Option<(BlockId, BlockId)> {
        let bottom: Vec<BlockId> = self.latches[h.index()]
            .iter()
            .filter_map(|l| match self.cfg.blocks[l.index()].term {
                Terminator::Branch { jump, fall } if jump == h => Some(self.loop_exit(h, fall)),
                Terminator::Branch { jump, fall } if fall == h => Some(self.loop_exit(h, jump)),
                _ => None,
            })
            .filter(|x| !body.contains(x))
            .collect();
        let [first, rest @ ..] = bottom.as_slice() else { return None };
        if rest.iter().any(|x| x != first) || !self.bottom_test_copies(h, *first, body).is_empty() {
            return None;
        }
        let a = self.for_else_follow(*first, body)?;
        (a != *first && self.reaches(*first, a)).then_some((*first, a))
    }

    /// Blocks that leave the body `body` of a `for` loop as copies of `exhausted`,
    /// the block after the loop (a `return` of its own): CPython 3.11+ copies a small
    /// exit block into each jump to it (`Python/flowgraph.c`
    /// `inline_small_exit_blocks`), so `break` followed by `return x` after the loop
    /// becomes a block that pops the iterator (its first op) and returns `x`, on the
    /// line of the original. A `return x` written in the loop evaluates `x` before
    /// the pop (or, for a constant, keeps its own line). Reading the copy as `break`
    /// or as the `return` it holds runs the same.
    fn break_copies(&self, exhausted: BlockId, body: &BTreeSet<BlockId>) -> Vec<BlockId> {
        let mut out: Vec<BlockId> = body
            .iter()
            .flat_map(|b| self.cfg.blocks[b.index()].succs())
            .filter(|s| !body.contains(s) && *s != exhausted && self.rpo_index[s.index()] != usize::MAX)
            .filter(|s| {
                let blk = &self.cfg.blocks[s.index()];
                blk.preds.len() == 1
                    && self.ir[blk.start..blk.end].iter().find(|i| i.op != depyf_ir::Op::Nop).is_some_and(|i| i.op == depyf_ir::Op::PopTop)
                    && matches!(blk.term, Terminator::Return)
                    && matches!(self.cfg.blocks[exhausted.index()].term, Terminator::Return)
                    && self.same_exit(*s, exhausted)
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Exits of the rotated `while` loop with header `h` and body `body` that are
    /// copies of `follow` (the block after the loop, where the last part of its
    /// bottom test leaves) made for the earlier parts of a bottom test of several
    /// operands (`while a and b:`): CPython 3.12+ copies a small exit block (a
    /// `return`) into each jump to it (`Python/flowgraph.c`
    /// `inline_small_exit_blocks`, `duplicate_exits_without_lineno`), so each
    /// operand of the bottom test that fails leaves for a copy of its own. The
    /// bottom test is followed backwards from the back edge's branch through blocks
    /// that branch either to the next part of the test or to such a copy (reached
    /// from that block only). Reaching a copy is `break`: it runs the same
    /// statements as `follow` (see [`Structurer::same_exit`]).
    fn bottom_test_copies(&self, h: BlockId, follow: BlockId, body: &BTreeSet<BlockId>) -> Vec<BlockId> {
        if !matches!(self.cfg.blocks[follow.index()].term, Terminator::Return) {
            return Vec::new();
        }
        let mut chain: Vec<BlockId> = self.latches[h.index()]
            .iter()
            .copied()
            .filter(|l| matches!(self.cfg.blocks[l.index()].term, Terminator::Branch { jump, fall } if jump == h || fall == h))
            .collect();
        let mut copies = Vec::new();
        let mut i = 0;
        while i < chain.len() {
            let c = chain[i];
            i += 1;
            // The part of the test before `c`: its only predecessor, when that
            // branches to `c` or to a copy.
            let [p] = self.cfg.blocks[c.index()].preds.as_slice() else { continue };
            let p = *p;
            if chain.contains(&p) || !body.contains(&p) || self.rec.blocks[p.index()].fall_condition.is_none() {
                continue;
            }
            let Terminator::Branch { jump, fall } = self.cfg.blocks[p.index()].term else { continue };
            let other = if jump == c { fall } else if fall == c { jump } else { continue };
            let blk = &self.cfg.blocks[other.index()];
            if other == follow || body.contains(&other) || blk.preds.len() != 1 || self.rpo_index[other.index()] == usize::MAX || !self.same_exit(other, follow) {
                continue;
            }
            copies.push(other);
            // Earlier parts only when `p` holds nothing but the test.
            if p != h && self.no_stmts(p) {
                chain.push(p);
            }
        }
        copies
    }

    /// Follows blocks without statements (that only drop stack values) that have one
    /// predecessor and jump on, to where they lead, possibly a loop header.
    fn skip_empty(&self, mut b: BlockId) -> BlockId {
        for _ in 0..8 {
            let block = &self.cfg.blocks[b.index()];
            let code = &self.rec.blocks[b.index()];
            // Nor past the `POP_BLOCK` that ends a `try`/`with` body being written
            // (`pop_block_exits`): the code after it is after the statement (CPython
            // 3.8-3.9 `while c:` last in a `try` body leaves there).
            if block.preds.len() != 1 || !self.no_stmts(b) || !self.latches[b.index()].is_empty() || code.collapsed_to.is_some() || code.error.is_some() || (self.pop_block_exits && self.body_exits.contains(&b)) {
                break;
            }
            match block.term {
                Terminator::Jump(s) | Terminator::FallThrough(s) => b = s,
                _ => break,
            }
        }
        b
    }

    /// `Some((inner, exit, cond))` when `t` is the test before a rotated `while c:`
    /// loop that `continue` jumps back to (CPython 3.10+ `compiler_while` tests `c`
    /// at the top, where `continue` goes, and again at the bottom, whose back edge
    /// goes to the body): a block of no statements that branches to `inner` (a loop
    /// header it dominates, when `cond` holds) or to `exit`, and whose back edges all
    /// come from code that `inner` dominates. Such a test is no loop of its own:
    /// edges to it from `inner`'s loop read `if not cond: <exit>` then `continue`.
    fn pretest_of(&self, t: BlockId) -> Option<(BlockId, BlockId, Expr)> {
        if self.latches[t.index()].is_empty() {
            return None;
        }
        let code = &self.rec.blocks[t.index()];
        if !self.no_stmts(t) || code.for_loop.is_some() || code.collapsed_to.is_some() || code.error.is_some() {
            return None;
        }
        let cond = code.fall_condition.clone()?;
        let Terminator::Branch { jump, fall } = self.cfg.blocks[t.index()].term else { return None };
        let (inner, exit, cond) = if !self.latches[fall.index()].is_empty() && fall != t {
            (fall, jump, cond)
        } else if !self.latches[jump.index()].is_empty() && jump != t {
            (jump, fall, negate(cond))
        } else {
            return None;
        };
        if self.rec.blocks[inner.index()].for_loop.is_some() || !self.dominates(t, inner) || exit == inner || exit == t {
            return None;
        }
        self.latches[t.index()].iter().all(|&l| l != t && self.dominates(inner, l)).then_some((inner, exit, cond))
    }

    /// Whether the exit `x` of the loop with header `h` and body `body` is a
    /// `return`/`raise` written in that body, not the code after the loop: on
    /// CPython 3.8-3.9 (`dead_jumps_kept`) the code after a loop always follows the
    /// loop's closing `JUMP_ABSOLUTE` back to `h`, kept even where unreachable
    /// (`Python/compile.c` `compiler_while`/`compiler_for` end the body with that
    /// jump; `Python/peephole.c` threads jumps to it but leaves it in place, and
    /// lays blocks out in source order), so a block laid out before a block of the
    /// body, or right after a block of the body that is no such jump, is in the
    /// body. `x` is reached from one place and ends in `return`/`raise`.
    fn ends_loop_body(&self, x: BlockId, h: BlockId, body: &BTreeSet<BlockId>) -> bool {
        let blk = &self.cfg.blocks[x.index()];
        if !self.dead_jumps_kept || x.index() == 0 || blk.preds.len() != 1 || !matches!(blk.term, Terminator::Return | Terminator::Raise) {
            return false;
        }
        if body.iter().any(|&b| b > x) {
            return true;
        }
        let before = BlockId(x.index() as u32 - 1);
        let back = matches!(self.cfg.blocks[before.index()].term, Terminator::Jump(t) if t == h || self.pre_headers[h.index()] == Some(t));
        body.contains(&before) && !back
    }

    /// Whether the `except` clauses that jump back to the loop header `h` all end
    /// there by falling off their `try`, the last statement of the loop body (or
    /// of its `else`), never by a `continue` written in the clause (CPython
    /// 3.8-3.9, `dead_jumps_kept`). A clause's exit is `POP_EXCEPT` (and the
    /// unbinding of `except E as name`) then a jump; where it falls off, that
    /// jump, to the code after the `try`, is threaded to `h` (`Python/peephole.c`);
    /// a written `continue` keeps the clause's own exit after it, unreachable
    /// (`Python/compile.c` `compiler_try_except` ends each clause with `POP_EXCEPT`
    /// and `JUMP_FORWARD` even after a `continue`). `false` when no clause exit
    /// jumps to `h` or when any is followed by such a dead exit.
    fn implicit_clause_continues(&self, h: BlockId) -> bool {
        if !self.dead_jumps_kept {
            return false;
        }
        let pops = |b: &depyf_cfg::Block| self.ir[b.start..b.end].iter().any(|i| i.op == depyf_ir::Op::PopExcept);
        let mut any = false;
        for (i, blk) in self.cfg.blocks.iter().enumerate() {
            if !matches!(blk.term, Terminator::Jump(t) if t == h) || !pops(blk) {
                continue;
            }
            if let Some(next) = self.cfg.blocks.get(i + 1) {
                let entry = self.ir[next.start..next.end].iter().any(|x| x.op == depyf_ir::Op::PushExcInfo);
                if next.preds.is_empty() && !entry && pops(next) && matches!(next.term, Terminator::Jump(_)) {
                    return false;
                }
            }
            any = true;
        }
        any
    }

    /// Whether block `x` only re-raises the exception being handled (`NOP`s, then
    /// `RERAISE`), in handler code.
    fn is_lone_reraise(&self, x: BlockId) -> bool {
        let blk = &self.cfg.blocks[x.index()];
        self.rpo_index[x.index()] == usize::MAX
            && matches!(blk.term, Terminator::Raise)
            && self.ir[blk.start..blk.end].iter().filter(|i| i.op != depyf_ir::Op::Nop).map(|i| &i.op).eq([depyf_ir::Op::Reraise].iter())
    }

    /// The follow and its copies for a `while True:` loop with header `h` and body
    /// `body` in handler code that only re-raises when it ends: the loop of a
    /// `finally` body that ends with it, run on an exception (CPython 3.11+
    /// `compiler_try_finally` ends that copy with `RERAISE 0`; 3.12+ copy that
    /// block, which has no line number, into each jump to it, `Python/flowgraph.c`
    /// `duplicate_exits_without_lineno`, so each `break` and the failing test have
    /// a `RERAISE` of their own). Every exit of the body must raise; those that
    /// only re-raise and are protected by the header's handler (the end of the
    /// handler region the loop is in, not the re-raise of an `except` clause
    /// chain inside the body) all do the same (re-raise to that handler, which
    /// drops what the stack holds above its depth): one of them is the block
    /// after the loop, jumps to the others `break`. The follow is
    /// where the bottom test leaves (a rotated `while c:`), else where the header's
    /// test leaves, else the last in layout order. `None` for any other loop, and
    /// on CPython 3.8-3.9 (`dead_jumps_kept`), whose handler copies are matched with
    /// their `RERAISE` written in place.
    fn reraise_exits(&self, h: BlockId, body: &BTreeSet<BlockId>) -> Option<(BlockId, Vec<BlockId>)> {
        if self.dead_jumps_kept || self.rpo_index[h.index()] != usize::MAX {
            return None;
        }
        let mut exits: Vec<BlockId> = body.iter().flat_map(|b| self.cfg.blocks[b.index()].succs()).filter(|s| !body.contains(s)).map(|s| self.skip_empty(s)).collect();
        if !exits.iter().all(|x| matches!(self.cfg.blocks[x.index()].term, Terminator::Raise)) {
            return None;
        }
        let handler = self.cfg.blocks[h.index()].handler;
        exits.retain(|&x| self.is_lone_reraise(x) && self.cfg.blocks[x.index()].handler == handler);
        exits.sort();
        exits.dedup();
        let leaves = |b: BlockId| match self.cfg.blocks[b.index()].term {
            Terminator::Branch { jump, fall } => [jump, fall].into_iter().map(|x| self.skip_empty(x)).find(|x| exits.contains(x)),
            _ => None,
        };
        let follow = self.latches[h.index()].iter().find_map(|&l| leaves(l)).or_else(|| leaves(h)).unwrap_or(*exits.last()?);
        Some((follow, exits.into_iter().filter(|&x| x != follow).collect()))
    }

    /// Emits the loop whose header is `h`; returns the block after it.
    fn emit_loop(&mut self, out: &mut Vec<Stmt>, h: BlockId, err: &dyn Fn(&str) -> DecompileError) -> Result<Option<BlockId>, DecompileError> {
        let body_set = self.loop_body(h);
        let code = &self.rec.blocks[h.index()];
        if let (Some((iter, item)), Terminator::Branch { jump, fall }) = (&code.for_loop, self.cfg.blocks[h.index()].term) {
            let (iter, item) = (iter.clone(), item.clone());
            self.emit_stmts(out, h);
            let mut after = self.for_else_follow(jump, &body_set);
            // A `break` in an `except` clause, which `for_else_follow` does not see
            // (handler code): the block that the clause's exit (popping the exception
            // and the iterator) jumps to, when it is where the exhausted loop goes on
            // (after an `else`) or the top or follow of an enclosing loop. CPython
            // 3.12+ thread that jump past the statement-free code after the loop
            // straight to the enclosing loop's top (`Python/flowgraph.c`,
            // `jump_thread`), where the `break`s of normal code keep a block that
            // pops the iterator.
            if after.is_none() {
                let outer = |t: BlockId| self.loops.iter().any(|l| l.is_header(t) || l.follow == Some(t));
                after = self.handler_break_target(h, &body_set).filter(|&t| t != jump && (outer(t) || self.reaches(jump, t)));
            }
            let copies = if after.is_none() { self.break_copies(jump, &body_set) } else { Vec::new() };
            self.loops.push(LoopCtx { header: h, follow: Some(after.unwrap_or(jump)), body: body_set, copies, entry: self.pre_headers[h.index()] });
            let mut body = Vec::new();
            let r = self.region_into(&mut body, fall, None, false, err);
            self.loops.pop();
            r?;
            drop_trailing_continue(&mut body);
            if self.implicit_clause_continues(h) {
                fold_clause_continues(&mut body);
            }
            // `for ...: ... else: ...`: the exhausted iterator runs the `else` region
            // up to the block that `break` leads to.
            let mut orelse = Vec::new();
            if let Some(a) = after {
                self.region_into(&mut orelse, jump, Some(a), false, err)?;
            }
            // `for x in it:` when the body starts by storing the item.
            let target = match body.first() {
                Some(Stmt::Assign(t, Expr::Name(n))) if *n == item && t.len() == 1 && !mentions(&body[1..], &item) => {
                    let t = t[0].clone();
                    body.remove(0);
                    t
                }
                _ => Expr::name(&item),
            };
            out.push(Stmt::For(target, iter, body, orelse));
            return Ok(Some(after.unwrap_or(jump)));
        }
        // `while True:`; its follow is the first block outside the loop that the body
        // branches to. The loop of a test before it that `continue` goes to (see
        // `pretest_of`) is part of it.
        let mut body_set = body_set;
        for &p in &self.cfg.blocks[h.index()].preds {
            if self.pretest_of(p).is_some_and(|(inner, ..)| inner == h) {
                body_set.extend(self.loop_body(p));
            }
        }
        // Handler code in the body (an `except` clause that goes back into the loop
        // at the end of its `try` body, the loop's latch: CPython 3.13 jumps from
        // the clause's `POP_EXCEPT` to that block) goes on to the next clause's test
        // under the same protection: that is the rest of the handler, no way out
        // of the loop (a `break` in that clause leaves from its own exit). (Not
        // for a loop in handler code, whose own exit is such a block.)
        let same_handler = |b: BlockId, s: BlockId| {
            !self.pop_block_exits && self.rpo_index[h.index()] != usize::MAX && self.rpo_index[b.index()] == usize::MAX && self.rpo_index[s.index()] == usize::MAX && self.cfg.blocks[b.index()].handler.is_some_and(|x| self.cfg.blocks[s.index()].handler.is_some_and(|y| x.target == y.target))
        };
        let exit_block = |s: BlockId| self.loop_exit(h, s);
        let mut exits: Vec<BlockId> = body_set
            .iter()
            .flat_map(|&b| self.cfg.blocks[b.index()].succs().into_iter().filter(move |&s| !same_handler(b, s)))
            .filter(|s| !body_set.contains(s))
            // Handler code that re-raises is no way out of the loop.
            .filter(|s| self.rpo_index[s.index()] != usize::MAX || !matches!(self.cfg.blocks[s.index()].term, Terminator::Raise))
            .map(exit_block)
            .filter(|s| !body_set.contains(s))
            .collect();
        exits.sort();
        exits.dedup();
        // A block that only raises and is reached from one place (an `assert`'s
        // raise, which CPython 3.12+ moves after the loop, `Python/flowgraph.c`
        // `push_cold_blocks_to_end`) is written where it is reached, not as the
        // target of `break`.
        let lone_raise = |x: &BlockId| matches!(self.cfg.blocks[x.index()].term, Terminator::Raise) && self.cfg.blocks[x.index()].preds.len() == 1;
        // A `return`/`raise` written last in the body (CPython 3.8-3.9): never the
        // block after the loop, which no body block falls into.
        let written_in = |x: &BlockId| self.ends_loop_body(*x, h, &body_set);
        // (Where only such raises leave in normal flow, the `break` of an `except`
        // clause goes to the code after the loop: an `assert` in a `try` body whose
        // clauses hold the loop's only `break`.)
        let mut follow = exits.iter().filter(|x| !written_in(x)).find(|x| !lone_raise(x)).copied();
        if follow.is_none() {
            follow = self.handler_break_target(h, &body_set).or(exits.iter().find(|x| !written_in(x)).copied());
        }
        // Likewise a block that only returns and is reached from one place (a
        // `return` in the body) gives way to an exit that is more than that: the code
        // after the loop, which every `break` reaches.
        let lone_return = |x: &BlockId| matches!(self.cfg.blocks[x.index()].term, Terminator::Return) && self.cfg.blocks[x.index()].preds.len() == 1;
        if follow.is_some_and(|f| lone_return(&f)) {
            if let Some(x) = exits.iter().find(|x| !lone_raise(x) && !lone_return(x)) {
                follow = Some(*x);
            }
        }
        // A block that only returns a constant (CPython's copy of the implicit
        // `return None`, or a `return` written in the body, reached from the arms of
        // one `or`) gives way to the exit laid out right after the body's last block:
        // the code after the loop, which the compiler places there.
        let bare_return = |x: &BlockId| {
            matches!(self.cfg.blocks[x.index()].term, Terminator::Return)
                && matches!(self.stmts(*x), [Stmt::Return(None | Some(Expr::Const(_)))])
        };
        if follow.is_some_and(|f| bare_return(&f)) {
            let after_body = body_set.iter().map(|b| self.cfg.blocks[b.index()].end).max();
            if let Some(x) = exits.iter().find(|x| Some(self.cfg.blocks[x.index()].start) == after_body && !bare_return(x) && !lone_raise(x)) {
                follow = Some(*x);
            }
        }
        if follow.is_none() {
            follow = self.handler_break_target(h, &body_set);
        }
        // An unrotated `while c:` (CPython 3.8-3.9) leaves at its header's test: that
        // exit is the block after the loop; other exits (a `return` in the body) are
        // written in place.
        if let Terminator::Branch { jump, fall } = self.cfg.blocks[h.index()].term {
            if self.no_stmts(h) && self.rec.blocks[h.index()].for_loop.is_none() && body_set.contains(&fall) && !body_set.contains(&jump) {
                let j = self.skip_empty(jump);
                if exits.contains(&j) {
                    follow = Some(j);
                }
            }
        }
        // Of two exits, one that only goes on to the other (`x = 1; break` jumps to
        // the block after the loop that a bare `break` goes to) is code run before
        // its `break`; the other is the block after the loop. (Exits that only raise
        // or return from one place are written in place and don't count.)
        let main: Vec<BlockId> = exits.iter().copied().filter(|x| !lone_raise(x) && !lone_return(x)).collect();
        if let [a, b] = main.as_slice() {
            let goes_to = |x: BlockId, y: BlockId| self.rpo_index[x.index()] != usize::MAX && matches!(self.cfg.blocks[x.index()].term, Terminator::Jump(t) | Terminator::FallThrough(t) if t == y);
            if goes_to(*a, *b) && self.latches[b.index()].is_empty() {
                follow = Some(*b);
            } else if goes_to(*b, *a) && self.latches[a.index()].is_empty() {
                follow = Some(*a);
            }
        }
        // A way out of a `while True:` that is code ending in a `break`
        // statement (`x = 1; break`, the jump on a line of its own: CPython
        // `Python/compile.c` `compiler_break` jumps to the loop's end with the
        // `break`'s line, where code after the loop falls into what follows it) is
        // part of the body: the loop leaves for where that jump goes.
        if let Some(y) = follow.and_then(|f| self.break_code_target(f, &body_set)) {
            follow = Some(y);
        }
        // A rotated `while c:` (CPython 3.10+) leaves where its bottom test, the
        // branch of a back edge, fails: that is the block after the loop; other exits
        // (CPython's copies of a small exit block at a `break`) are written in place.
        let bottom: Vec<BlockId> = self.latches[h.index()]
            .iter()
            .filter_map(|l| match self.cfg.blocks[l.index()].term {
                Terminator::Branch { jump, fall } if jump == h => Some(exit_block(fall)),
                Terminator::Branch { jump, fall } if fall == h => Some(exit_block(jump)),
                _ => None,
            })
            .filter(|x| exits.contains(x) && !written_in(x))
            .collect();
        let mut copies = Vec::new();
        if let [first, rest @ ..] = bottom.as_slice() {
            if rest.iter().all(|x| x == first) {
                follow = Some(*first);
                copies = self.bottom_test_copies(h, *first, &body_set);
                if let Some((_, a)) = self.rotated_while_else(h, &body_set) {
                    follow = Some(a);
                }
            }
        }
        // `while c: ... else: E` (CPython 3.8-3.9, unrotated): the header's test leaves
        // for `E`, which falls into the target of `break`; that target is the follow,
        // so the body reads `if c: ...; continue` then `E; break`, which
        // `idioms::rotated_while` folds into `while c: ... else: E`.
        if let (Terminator::Branch { jump, .. }, [_, _, ..]) = (self.cfg.blocks[h.index()].term, exits.as_slice()) {
            if !body_set.contains(&jump) && self.no_stmts(h) {
                if let Some(a) = self.for_else_follow(jump, &body_set) {
                    follow = Some(a);
                }
            }
        }
        // A `break` leaves every `try`/`with` opened in the loop's body (through its
        // finally copy or `__exit__` call), so the block after the loop cannot be
        // protected by a handler that protects part of the body but not the header.
        // Such a follow is the try's own code (a `continue` in the try makes the code
        // after it look like a way out): reading it as `break` would run that code
        // after the loop and the finally body twice. (A `with` entered on the way out,
        // none of whose code is in the body, is fine: it is written after the loop.)
        let in_body_try = |x: BlockId| self.cfg.blocks[x.index()].handler.is_some_and(|e| !self.protected_by(h, e.target) && body_set.iter().any(|&b| self.protected_by(b, e.target)));
        if follow.is_some_and(in_body_try) {
            // Such an exit is code of the body (`return v` in a `try` of a CPython
            // 3.8-3.9 `while c:`, whose value is loaded under the handler, reached
            // from the two arms of `if a or b:`): when exactly one other exit can
            // be the code after the loop, that one is.
            // When none can, the loop has no code after it of its own (a `break`
            // in the `try` body after code of the body, `if c: f(); break`, leaves
            // through that code): every way out is written where it is reached,
            // the way out of the `try` (its normal exit, the code after the
            // statement) told by the `try`'s own structuring.
            let others: Vec<BlockId> = exits.iter().copied().filter(|&x| !in_body_try(x) && !written_in(&x) && !lone_raise(&x) && !lone_return(&x)).collect();
            match others.as_slice() {
                [x] => follow = Some(*x),
                [] => follow = None,
                _ => return Err(err("the way out of a while loop lies inside a try or with of its body")),
            }
        }
        // A `while True:` left only by the `break` of a clause nested in a plain
        // `try`/`except` of its body (CPython 3.8-3.10 `code.interact`: the clause
        // pops both blocks and jumps out in one block of its own code, no block
        // that only pops as `handler_break_target` needs) leaves where that
        // `break` goes.
        if follow.is_none() && self.pop_block_exits {
            if let [(s, true), rest @ ..] = self.nested_clause_exits(h, &body_set).as_slice() {
                if rest.iter().all(|(x, p)| x == s && *p) {
                    follow = Some(*s);
                }
            }
        }
        if self.clause_leaves_enclosing(h, &body_set, follow) {
            return Err(err("a break out of an except clause nested in another try or with body of a while loop"));
        }
        if follow.is_none_or(|f| self.is_lone_reraise(f)) {
            if let Some((f, c)) = self.reraise_exits(h, &body_set) {
                follow = Some(f);
                copies = c;
            }
        }
        self.loops.push(LoopCtx { header: h, follow, body: body_set, copies, entry: self.pre_headers[h.index()] });
        let mut body = Vec::new();
        let r = self.region_into(&mut body, h, None, true, err);
        self.loops.pop();
        r?;
        drop_trailing_continue(&mut body);
        if self.implicit_clause_continues(h) {
            fold_clause_continues(&mut body);
        }
        out.push(Stmt::While(Expr::Const(depyf_bytecode::Constant::Bool(true)), body, Vec::new()));
        Ok(follow)
    }
}

impl Structurer<'_> {
    /// `Some(y)` when block `x`, reached only from the loop body `body`, is
    /// statements followed by the jump of a `break` to `y`: `x` ends in an explicit
    /// jump forward to `y` (a block outside the body) whose line is not the line of
    /// the statement before it (CPython gives a `break` statement's jump the
    /// `break`'s own line, `Python/compile.c` `compiler_break`; the jump that ends
    /// an `if` arm carries the line of the arm's last statement).
    fn break_code_target(&self, x: BlockId, body: &BTreeSet<BlockId>) -> Option<BlockId> {
        let blk = &self.cfg.blocks[x.index()];
        let code = &self.rec.blocks[x.index()];
        let Terminator::Jump(y) = blk.term else { return self.break_region_target(x, body) };
        if self.no_stmts(x) || code.error.is_some() || code.collapsed_to.is_some() || code.for_loop.is_some() || body.contains(&y) || !self.latches[x.index()].is_empty() {
            return None;
        }
        if self.rpo_index[x.index()] == usize::MAX || self.rpo_index[y.index()] == usize::MAX || self.rpo_index[y.index()] <= self.rpo_index[x.index()] || y.0 <= x.0 {
            return None;
        }
        if blk.preds.is_empty() || !blk.preds.iter().all(|p| body.contains(p)) {
            return None;
        }
        let ops: Vec<&depyf_ir::IrInstr> = self.ir[blk.start..blk.end].iter().filter(|i| i.op != depyf_ir::Op::Nop).collect();
        let (last, rest) = ops.split_last()?;
        if !matches!(last.op, depyf_ir::Op::Jump(_)) {
            return None;
        }
        let prev = rest.last()?;
        (last.line.is_some() && prev.line.is_some() && last.line != prev.line).then_some(y)
    }

    /// [`Self::break_code_target`] for code of several blocks (`A; if c: B; break`):
    /// `Some(y)` when every block reached from `x` before code laid out after the
    /// loop body `body` is `x` or dominated by it, outside any protected range and
    /// not back in the body, all of them leave for that one block `y`, and one of
    /// those ways is a jump on a line of its own (the `break`; a test's jump to it
    /// was retargeted past it by 3.8-3.9 `Python/peephole.c`).
    fn break_region_target(&self, x: BlockId, body: &BTreeSet<BlockId>) -> Option<BlockId> {
        let body_end = body.iter().map(|b| self.cfg.blocks[b.index()].end).max()?;
        let mut seen = BTreeSet::new();
        let mut work = vec![x];
        let mut target = None;
        let mut written = false;
        while let Some(b) = work.pop() {
            if !seen.insert(b) {
                continue;
            }
            let blk = &self.cfg.blocks[b.index()];
            let code = &self.rec.blocks[b.index()];
            if seen.len() > 64 || self.rpo_index[b.index()] == usize::MAX || !self.latches[b.index()].is_empty() || !self.dominates(x, b) || blk.handler.is_some() {
                return None;
            }
            if code.error.is_some() || code.collapsed_to.is_some() || code.for_loop.is_some() || self.rpo_index[b.index()] < self.rpo_index[x.index()] {
                return None;
            }
            for s in blk.succs() {
                if body.contains(&s) {
                    return None;
                }
                if self.cfg.blocks[s.index()].start >= body_end {
                    if target.is_some_and(|t| t != s) {
                        return None;
                    }
                    target = Some(s);
                    if matches!(blk.term, Terminator::Jump(t) if t == s) && self.own_line_jump(b) {
                        written = true;
                    }
                } else {
                    work.push(s);
                }
            }
        }
        target.filter(|_| written && seen.len() > 1)
    }

    /// Whether block `b` ends in a jump op whose line is not the line of the op
    /// before it (in the block, or laid out before it).
    fn own_line_jump(&self, b: BlockId) -> bool {
        let blk = &self.cfg.blocks[b.index()];
        let Some(last) = self.ir[blk.start..blk.end].iter().rev().find(|i| i.op != depyf_ir::Op::Nop) else { return false };
        if !matches!(last.op, depyf_ir::Op::Jump(_)) || last.line.is_none() {
            return false;
        }
        let prev = self.ir[..blk.end].iter().rev().filter(|i| i.op != depyf_ir::Op::Nop).nth(1);
        prev.is_some_and(|p| p.line.is_some() && p.line != last.line)
    }
}

/// Recovers the code (`recover`, which gives the same blocks each time it is called)
/// and structures it (`structure`, given a [`Structurer`] of those blocks), first
/// moving each block's statements into the output (with `moves`), then, when that
/// run read a moved block ([`Structurer::read_moved`]), once more with copies.
/// Returns the recovered blocks (without their statements) and what `structure`
/// gave, its error located ([`Structurer::locate`]). Errors: those of `recover`.
pub(crate) fn recover_and_structure<T>(
    cfg: &Cfg,
    ir: &[depyf_ir::IrInstr],
    code: &depyf_bytecode::CodeObject,
    mut moves: bool,
    mut recover: impl FnMut() -> Result<Recovered, DecompileError>,
    mut structure: impl FnMut(&mut Structurer<'_>) -> Result<T, DecompileError>,
) -> Result<(Recovered, Result<T, DecompileError>), DecompileError> {
    loop {
        let mut rec = recover()?;
        let stmts = rec.take_stmts();
        let mut st = Structurer::new(cfg, &rec, stmts, moves, ir, code);
        let out = structure(&mut st);
        if st.read_moved() {
            #[cfg(test)]
            crate::tests::RESTARTS.with(|n| n.set(n.get() + 1));
            moves = false;
            continue;
        }
        let out = out.map_err(|e| st.locate(e));
        drop(st);
        return Ok((rec, out));
    }
}

/// Whether a block's statements have moved into the output (see
/// [`Structurer::moves`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Moved {
    /// Not moved: [`Structurer::stmts`] reads them.
    No,
    /// Moved by the block's first emission; whether the last one was `return None`
    /// (the one fact asked of emitted blocks often enough to keep).
    Yes { returned_none: bool },
}

/// Whether `last` is `return None`.
fn returns_none(last: Option<&Stmt>) -> bool {
    matches!(last, Some(Stmt::Return(Some(Expr::Const(depyf_bytecode::Constant::None)))))
}

/// `Some(h)` when block `p` is a block of no code (only `NOP`s) before the loop
/// header `h` that `continue` jumps to, apart from the end of the body: CPython
/// 3.10-3.13 compile `while True:` to a `NOP` on the `while` line that `continue`
/// goes back to, while the jump at the end of the body, on that same line, skips it
/// (`Python/flowgraph.c` removes a `NOP` whose line the next instruction repeats,
/// `remove_redundant_nops`), so the loop has two heads. Only when `p` falls into
/// `h`, both have back edges from normal code, `h` dominates every back edge to
/// `p` (they are in `h`'s loop), every back edge to `h` jumps from the line of `p`
/// and nothing but `p` and `h`'s back edges enters `h`: then going to `p` runs
/// exactly what going to `h` runs.
/// (The caller checks that recovery made nothing of `p`: no statements, loop,
/// collapsed branch or error.)
fn pre_header_of(cfg: &Cfg, ir: &[depyf_ir::IrInstr], latches: &[Vec<BlockId>], idom: &[Option<BlockId>], rpo_index: &[usize], p: BlockId) -> Option<BlockId> {
    let blk = &cfg.blocks[p.index()];
    let Terminator::FallThrough(h) = blk.term else { return None };
    if h == p || latches[p.index()].is_empty() || latches[h.index()].is_empty() {
        return None;
    }
    if !ir[blk.start..blk.end].iter().all(|i| i.op == depyf_ir::Op::Nop) || rpo_index[p.index()] == usize::MAX || rpo_index[h.index()] == usize::MAX {
        return None;
    }
    let dominated = |mut x: BlockId| loop {
        if x == h {
            return true;
        }
        match idom[x.index()] {
            Some(d) if d != x => x = d,
            _ => return false,
        }
    };
    let normal = |x: &BlockId| rpo_index[x.index()] != usize::MAX;
    // The jumps that skip the `NOP` are on its line (the `while` line, where the end
    // of the body goes back); a loop nested first in the body (3.14+ keeps `while c:`
    // unrotated) goes back to its own test from its own lines.
    let line = ir[blk.start..blk.end].first().and_then(|i| i.line);
    let on_line = |l: &BlockId| {
        let b = &cfg.blocks[l.index()];
        line.is_some() && ir[b.start..b.end].last().is_some_and(|i| i.line == line)
    };
    // A latch in handler code (a `continue` in an `except` clause, see
    // `Structurer::new`), which the normal-edge dominators leave out, must reach
    // `p` through `h`.
    let in_loop = |l: &BlockId| if normal(l) { dominated(*l) } else { natural_loop(cfg, p, &[*l], true).contains(&h) };
    let ok = latches[p.index()].iter().all(in_loop)
        && latches[h.index()].iter().all(on_line)
        && latches[h.index()].iter().all(normal)
        && cfg.blocks[h.index()].preds.iter().all(|x| *x == p || latches[h.index()].contains(x));
    ok.then_some(h)
}

/// The blocks of the natural loop of `header` with back edges from `latches`: the
/// header and every block that reaches a latch without passing the header, walking
/// normal edges backwards and, with `exception_edges`, exception edges too (from a
/// handler entry to the blocks it protects).
fn natural_loop(cfg: &Cfg, header: BlockId, latches: &[BlockId], exception_edges: bool) -> BTreeSet<BlockId> {
    // The blocks each handler entry protects: its exception-edge predecessors.
    let mut protected: Vec<Vec<BlockId>> = Vec::new();
    if exception_edges {
        protected = vec![Vec::new(); cfg.blocks.len()];
        for (i, x) in cfg.blocks.iter().enumerate() {
            if let Some(e) = x.handler {
                protected[e.target.index()].push(BlockId(i as u32));
            }
        }
    }
    let mut body = BTreeSet::from([header]);
    let mut work: Vec<BlockId> = latches.to_vec();
    while let Some(b) = work.pop() {
        if body.insert(b) {
            work.extend(cfg.blocks[b.index()].preds.iter().copied());
            if let Some(p) = protected.get(b.index()) {
                work.extend(p.iter().copied());
            }
        }
    }
    body
}

/// Back edges that only handler code takes: a jump from a block that only exception
/// edges reach (outside `rpo_index`, the normal reverse postorder) to a block that
/// dominates it once exception edges count, i.e. a loop header whose body goes
/// back to it only from an `except` clause (`while True: try: x = f() except E:
/// pass else: break`, any CPython 3.8+: the normal exit of the body is the `break`),
/// or any loop whose header is handler code itself (a loop in an `except` clause or
/// in the copy of a `finally` body that runs when the `try` body raises).
/// [`Cfg::back_edges`] sees normal flow only. A retreating edge of a depth-first
/// order with exception edges is a back edge when it goes to a block that reaches
/// its source without leaving through the entry (checked: the natural loop walked
/// backwards from the source must not reach the function entry unless the target
/// is the entry).
fn handler_back_edges(cfg: &Cfg, rpo_index: &[usize]) -> Vec<(BlockId, BlockId)> {
    // Most code objects have no handler-only block: nothing to look for.
    if rpo_index.iter().all(|&i| i != usize::MAX) {
        return Vec::new();
    }
    let order_list = cfg.reverse_postorder_with_handlers();
    let mut order = vec![usize::MAX; cfg.blocks.len()];
    for (i, b) in order_list.iter().enumerate() {
        order[b.index()] = i;
    }
    let mut out = Vec::new();
    for &x in order_list {
        if rpo_index[x.index()] != usize::MAX {
            continue;
        }
        // Only a jump back in the code (`continue`, the end of the loop body) is
        // taken: CPython 3.8's `END_FINALLY` and the like go on to code shared with
        // normal flow without looping.
        // The target may be handler code too: a loop written in an `except` clause
        // or a `finally` body (whose copy for the exceptional exit is handler code).
        for s in cfg.blocks[x.index()].succs() {
            if order[s.index()] > order[x.index()] || cfg.blocks[s.index()].start >= cfg.blocks[x.index()].start {
                continue;
            }
            let body = natural_loop(cfg, s, &[x], true);
            if s.index() == 0 || !body.contains(&BlockId(0)) {
                out.push((x, s));
            }
        }
    }
    out
}

/// The handler entries (blocks of handler code that no normal edge enters) from
/// which normal edges lead to block `b`.
fn handler_entries(cfg: &Cfg, b: BlockId) -> Vec<BlockId> {
    let mut seen = vec![false; cfg.blocks.len()];
    let mut work = vec![b];
    let mut out = Vec::new();
    seen[b.index()] = true;
    while let Some(x) = work.pop() {
        let preds = &cfg.blocks[x.index()].preds;
        if preds.is_empty() {
            out.push(x);
        }
        for &p in preds {
            if !seen[p.index()] {
                seen[p.index()] = true;
                work.push(p);
            }
        }
    }
    out
}

/// Whether one of the handlers `entries` protects block `b`, directly or through
/// the handlers of the `try` statements nested in its body.
fn protected_by_any(cfg: &Cfg, b: BlockId, entries: &[BlockId]) -> bool {
    let mut cur = cfg.blocks[b.index()].handler;
    for _ in 0..64 {
        let Some(h) = cur else { return false };
        if entries.contains(&h.target) {
            return true;
        }
        cur = cfg.blocks[h.target.index()].handler;
    }
    false
}

/// Whether `name` appears in the printed `body` not followed by an identifier
/// character. Text, not names: a match inside a longer name, a keyword, a string or
/// a number counts too, so it may say yes for a name `body` does not use, never no
/// for one it uses (its callers only go on when it says no).
pub(super) fn mentions(body: &[Stmt], name: &str) -> bool {
    let text = depyf_source::print_body(body, 0);
    text.match_indices(name).any(|(i, _)| {
        let after = text[i + name.len()..].chars().next();
        !matches!(after, Some(c) if c.is_ascii_alphanumeric() || c == '_')
    })
}

/// A `continue` that ends a loop body (or every branch at its end) is implied.
pub(crate) fn drop_trailing_continue(body: &mut Vec<Stmt>) {
    match body.last_mut() {
        Some(Stmt::Continue) => {
            body.pop();
            // What now ends the body falls to the loop's end as well.
            if matches!(body.last(), Some(Stmt::If(..))) {
                drop_trailing_continue(body);
            }
        }
        Some(Stmt::If(_, a, b)) => {
            drop_trailing_continue(a);
            drop_trailing_continue(b);
        }
        _ => {}
    }
}

/// The `continue` that ends `except` clauses of a `try` that ends a loop body
/// `body`, when the clauses fall off the `try` instead (see
/// `Structurer::implicit_clause_continues`): the same flow, the code after the
/// `try` being the loop's end. A `try` with a `finally` is left as it is.
pub(crate) fn fold_clause_continues(body: &mut [Stmt]) {
    let Some(Stmt::Try(_, hs, _, f)) = body.last_mut() else { return };
    if !f.is_empty() {
        return;
    }
    for x in hs.iter_mut() {
        if matches!(x.body.last(), Some(Stmt::Continue)) {
            x.body.pop();
            if x.body.is_empty() {
                x.body.push(Stmt::Pass);
            }
        }
    }
}

/// Whether `body` has a `break` or `continue` outside the loops nested in it.
fn loop_exits(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::Break | Stmt::Continue => true,
        Stmt::If(_, a, b) => loop_exits(a) || loop_exits(b),
        Stmt::Try(..) | Stmt::With(..) | Stmt::Match(..) => {
            let mut s = s.clone();
            s.bodies_mut().into_iter().any(|b| loop_exits(b))
        }
        _ => false,
    })
}

pub(crate) fn ends_control(body: &[Stmt]) -> bool {
    match body.last() {
        Some(Stmt::Return(_) | Stmt::Raise(..) | Stmt::Break | Stmt::Continue) => true,
        Some(Stmt::If(_, a, b)) => !b.is_empty() && ends_control(a) && ends_control(b),
        _ => false,
    }
}

/// Appends `if cond: then_body else: else_body`, writing an `else` only when the
/// then-branch can fall through (early returns read as they were written), or as
/// `written` says (see [`Structurer::written_else`]) when the then-branch cannot
/// fall through: then both readings run the same.
fn push_if(out: &mut Vec<Stmt>, cond: Expr, then_body: Vec<Stmt>, else_body: Vec<Stmt>, written: Option<bool>) {
    if then_body.is_empty() && !else_body.is_empty() {
        // `if c: pass else: X` reads better as `if not c: X`.
        push_if(out, negate(cond), else_body, Vec::new(), None);
        return;
    }
    let flatten = match written {
        Some(w) => !w,
        None => !matches!(else_body.as_slice(), [Stmt::If(..)]),
    };
    if ends_control(&then_body) && !else_body.is_empty() && flatten {
        out.push(Stmt::If(cond, then_body, Vec::new()));
        out.extend(else_body);
    } else {
        out.push(Stmt::If(cond, then_body, else_body));
    }
}

/// `a and b` / `a or b`, flattening operands of the same operator and folding
/// `a < b and b < c` into `a < b < c`.
fn and_or(is_and: bool, a: Expr, b: Expr) -> Expr {
    if let Expr::BoolOp(k, mut items) = a {
        if k == is_and {
            let last = items.pop().expect("a bool op has operands");
            let merged = crate::recover::bool_op(is_and, last, b);
            match merged {
                Expr::BoolOp(k2, inner) if k2 == is_and => items.extend(inner),
                other => items.push(other),
            }
            return Expr::BoolOp(is_and, items);
        }
        return crate::recover::bool_op(is_and, Expr::BoolOp(k, items), b);
    }
    crate::recover::bool_op(is_and, a, b)
}
