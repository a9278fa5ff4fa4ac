//! Control-flow graphs over the normalized IR: basic blocks, successor edges, reverse
//! postorder, back edges and immediate post-dominators. Knows no Python syntax.
//!
//! Invariants established by [`Cfg::build`] (checked in debug builds by `verify`):
//! every block is non-empty; only the last op of a block jumps or ends control
//! flow; every jump target starts a block; block 0 is the entry.
//!
//! ```
//! use depyf_ir::{IrInstr, Op};
//! use depyf_cfg::Cfg;
//! let ir = vec![
//!     IrInstr { offset: 0, at: 0, op: Op::LoadFast(0), line: None, opname: "" },
//!     IrInstr { offset: 2, at: 2, op: Op::JumpIf { when: false, target: 8 }, line: None, opname: "" },
//!     IrInstr { offset: 4, at: 4, op: Op::LoadConst(0), line: None, opname: "" },
//!     IrInstr { offset: 6, at: 6, op: Op::Return, line: None, opname: "" },
//!     IrInstr { offset: 8, at: 8, op: Op::LoadConst(1), line: None, opname: "" },
//!     IrInstr { offset: 10, at: 10, op: Op::Return, line: None, opname: "" },
//! ];
//! let cfg = Cfg::build(&ir).unwrap();
//! assert_eq!(cfg.blocks.len(), 3);
//! assert_eq!(cfg.to_string(), "bb0 [0..2] -> bb2 (jump) bb1\nbb1 [2..4] -> return\nbb2 [4..6] -> return\n");
//! ```

use std::fmt;

use depyf_ir::{IrInstr, Op};
use smallvec::{smallvec, SmallVec};

/// A basic block id; prints as `bb3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockId(pub u32);

impl fmt::Display for BlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bb{}", self.0)
    }
}

impl BlockId {
    /// The block's index in [`Cfg::blocks`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// How a block ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Terminator {
    /// Falls into the next block.
    FallThrough(BlockId),
    /// Unconditional jump.
    Jump(BlockId),
    /// Conditional jump (the block's last op) to `jump`, else falls to `fall`.
    Branch {
        /// Taken when the condition holds.
        jump: BlockId,
        /// Taken otherwise.
        fall: BlockId,
    },
    /// `return`.
    Return,
    /// `raise`.
    Raise,
}

/// A basic block: IR indexes `start..end`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// First IR index.
    pub start: usize,
    /// One past the last IR index.
    pub end: usize,
    /// How it ends.
    pub term: Terminator,
    /// Predecessor blocks, in order of their ids.
    pub preds: Vec<BlockId>,
    /// The innermost protected range covering the block (all its ops share it).
    pub handler: Option<ExcEdge>,
}

/// An exception edge: where an exception raised in a block goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExcEdge {
    /// The handler's first block.
    pub target: BlockId,
    /// Value-stack depth kept below what the handler is entered with.
    pub depth: u32,
    /// Whether the offset of the raising instruction is pushed before the exception.
    pub lasti: bool,
}

/// A protected range in bytes, half-open: `(start, end, handler, depth, lasti)`
/// (the shape of the 3.11+ exception table, which the IR gives every version).
pub type Range = (u32, u32, u32, u32, bool);

impl Block {
    /// Successors, jump target first for branches. At most two, kept inline (no
    /// allocation: this is asked for every block by every walk of the graph).
    pub fn succs(&self) -> SmallVec<[BlockId; 2]> {
        match self.term {
            Terminator::FallThrough(b) | Terminator::Jump(b) => smallvec![b],
            Terminator::Branch { jump, fall } => smallvec![jump, fall],
            Terminator::Return | Terminator::Raise => SmallVec::new(),
        }
    }

    /// The `i`-th successor in the order of [`Block::succs`], then (with `handlers`)
    /// the exception handler; `None` past the last. Allocates nothing.
    pub fn succ_at(&self, i: usize, handlers: bool) -> Option<BlockId> {
        let normal = match self.term {
            Terminator::FallThrough(b) | Terminator::Jump(b) => [Some(b), None],
            Terminator::Branch { jump, fall } => [Some(jump), Some(fall)],
            Terminator::Return | Terminator::Raise => [None, None],
        };
        let n = normal.iter().flatten().count();
        if i < n {
            normal[i]
        } else if handlers && i == n {
            self.handler.map(|h| h.target)
        } else {
            None
        }
    }
}

/// Why a CFG could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CfgError {
    /// A jump to an offset where no instruction starts.
    BadTarget(u32),
    /// The last instruction falls off the end of the code.
    FallsOffEnd(u32),
}

impl std::error::Error for CfgError {}

impl fmt::Display for CfgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CfgError::BadTarget(t) => write!(f, "jump to offset {t}, where no instruction starts"),
            CfgError::FallsOffEnd(o) => write!(f, "control falls off the end of the code after offset {o}"),
        }
    }
}

/// A control-flow graph.
#[derive(Clone, Debug)]
pub struct Cfg {
    /// Blocks in code order; `blocks[0]` is the entry. Not to be changed after
    /// [`Cfg::build`]: the orders and dominators below are computed once.
    pub blocks: Vec<Block>,
    /// [`Cfg::reverse_postorder`], [`Cfg::reverse_postorder_with_handlers`],
    /// [`Cfg::back_edges`] and [`Cfg::immediate_dominators`], computed on first use
    /// (recovery and structuring both ask for them).
    cached: Cached,
}

/// What [`Cfg`] computes once.
#[derive(Clone, Debug, Default)]
struct Cached {
    rpo: std::sync::OnceLock<Vec<BlockId>>,
    rpo_with_handlers: std::sync::OnceLock<Vec<BlockId>>,
    back_edges: std::sync::OnceLock<Vec<(BlockId, BlockId)>>,
    idom: std::sync::OnceLock<Vec<Option<BlockId>>>,
}

impl Cfg {
    /// Splits `ir` into basic blocks.
    ///
    /// Errors: [`CfgError::BadTarget`] for a jump into the middle of nowhere,
    /// [`CfgError::FallsOffEnd`] when the last op can fall through.
    pub fn build(ir: &[IrInstr]) -> Result<Cfg, CfgError> {
        Self::build_with_ranges(ir, &[])
    }

    /// Like [`Cfg::build`], and splits blocks at the bounds of the protected
    /// `ranges` so that each block lies in one range, whose handler becomes the
    /// block's [`ExcEdge`]. Exception edges are not successors: handlers are reached
    /// only through them.
    pub fn build_with_ranges(ir: &[IrInstr], ranges: &[Range]) -> Result<Cfg, CfgError> {
        let n = ir.len();
        let index_of = |offset: u32| -> Result<usize, CfgError> {
            let i = ir.partition_point(|x| x.offset < offset);
            if i < n && ir[i].offset == offset {
                Ok(i)
            } else {
                Err(CfgError::BadTarget(offset))
            }
        };
        let mut leader = vec![false; n + 1];
        if n > 0 {
            leader[0] = true;
        }
        for (i, ins) in ir.iter().enumerate() {
            if let Some(t) = ins.op.jump_target() {
                leader[index_of(t)?] = true;
                leader[i + 1] = true;
            }
            if ins.op.is_terminator() {
                leader[i + 1] = true;
            }
        }
        for &(start, end, target, _, _) in ranges {
            leader[index_of(target)?] = true;
            leader[ir.partition_point(|x| x.offset < start)] = true;
            leader[ir.partition_point(|x| x.offset < end)] = true;
        }
        let starts: Vec<usize> = (0..n).filter(|&i| leader[i]).collect();
        let block_of_index = |i: usize| BlockId(starts.partition_point(|&s| s <= i) as u32 - 1);
        let mut blocks = Vec::with_capacity(starts.len());
        for (b, &start) in starts.iter().enumerate() {
            let end = starts.get(b + 1).copied().unwrap_or(n);
            let last = &ir[end - 1];
            let next = || {
                if end < n {
                    Ok(BlockId(b as u32 + 1))
                } else {
                    Err(CfgError::FallsOffEnd(last.offset))
                }
            };
            let term = match last.op {
                Op::Return => Terminator::Return,
                Op::Raise(_) | Op::Reraise => Terminator::Raise,
                Op::Jump(t) => Terminator::Jump(block_of_index(index_of(t)?)),
                Op::JumpIf { target, .. } | Op::JumpIfNone { target, .. } | Op::JumpIfOrPop { target, .. } | Op::ForIter(target) => {
                    Terminator::Branch { jump: block_of_index(index_of(target)?), fall: next()? }
                }
                _ => Terminator::FallThrough(next()?),
            };
            let at = ir[start].offset;
            let handler = match ranges.iter().find(|r| r.0 <= at && at < r.1) {
                Some(&(_, _, target, depth, lasti)) => Some(ExcEdge { target: block_of_index(index_of(target)?), depth, lasti }),
                None => None,
            };
            blocks.push(Block { start, end, term, preds: Vec::new(), handler });
        }
        // Each list at its final size at once (counted first).
        let mut npreds = vec![0u32; blocks.len()];
        for blk in &blocks {
            for s in blk.succs() {
                npreds[s.index()] += 1;
            }
        }
        for (blk, &k) in blocks.iter_mut().zip(&npreds) {
            blk.preds = Vec::with_capacity(k as usize);
        }
        for b in 0..blocks.len() {
            for s in blocks[b].succs() {
                blocks[s.index()].preds.push(BlockId(b as u32));
            }
        }
        Ok(Cfg { blocks, cached: Cached::default() })
    }

    /// Blocks reachable from the entry, in reverse postorder.
    pub fn reverse_postorder(&self) -> &[BlockId] {
        self.cached.rpo.get_or_init(|| self.rpo(false))
    }

    /// Blocks reachable from the entry through normal and exception edges, in
    /// reverse postorder (a handler comes after the blocks it protects).
    pub fn reverse_postorder_with_handlers(&self) -> &[BlockId] {
        self.cached.rpo_with_handlers.get_or_init(|| self.rpo(true))
    }

    /// The successors of block `b` in the order of [`Block::succ_at`] (the handler
    /// last, with `handlers`), and how many there are: worked out once per block
    /// visited instead of once per successor asked for.
    fn succs_array(&self, b: usize, handlers: bool) -> ([u32; 3], usize) {
        let blk = &self.blocks[b];
        let (mut out, mut n) = match blk.term {
            Terminator::FallThrough(s) | Terminator::Jump(s) => ([s.0, 0, 0], 1),
            Terminator::Branch { jump, fall } => ([jump.0, fall.0, 0], 2),
            Terminator::Return | Terminator::Raise => ([0; 3], 0),
        };
        if handlers {
            if let Some(h) = blk.handler {
                out[n] = h.target.0;
                n += 1;
            }
        }
        (out, n)
    }

    fn rpo(&self, handlers: bool) -> Vec<BlockId> {
        let n = self.blocks.len();
        let mut post = Vec::with_capacity(n);
        if n == 0 {
            return post;
        }
        let mut seen = vec![false; n];
        // Each entry: a block, its successors and how many of them are left to visit.
        let mut stack: Vec<(u32, [u32; 3], u8, u8)> = Vec::with_capacity(n.min(64));
        seen[0] = true;
        let (s, k) = self.succs_array(0, handlers);
        stack.push((0, s, 0, k as u8));
        while let Some(top) = stack.last_mut() {
            if top.2 < top.3 {
                let s = top.1[usize::from(top.2)];
                top.2 += 1;
                if !seen[s as usize] {
                    seen[s as usize] = true;
                    let (ss, k) = self.succs_array(s as usize, handlers);
                    stack.push((s, ss, 0, k as u8));
                }
            } else {
                post.push(BlockId(top.0));
                stack.pop();
            }
        }
        post.reverse();
        post
    }

    /// Edges `(from, to)` whose target comes at or before the source in reverse
    /// postorder: the back edges of loops.
    pub fn back_edges(&self) -> &[(BlockId, BlockId)] {
        self.cached.back_edges.get_or_init(|| self.compute_back_edges())
    }

    fn compute_back_edges(&self) -> Vec<(BlockId, BlockId)> {
        let rpo = self.reverse_postorder();
        let mut order = vec![usize::MAX; self.blocks.len()];
        for (i, b) in rpo.iter().enumerate() {
            order[b.index()] = i;
        }
        let mut out = Vec::new();
        for &b in rpo {
            let (succs, k) = self.succs_array(b.index(), false);
            for &s in &succs[..k] {
                if order[s as usize] <= order[b.index()] {
                    out.push((b, BlockId(s)));
                }
            }
        }
        out
    }

    /// The immediate dominator of every block reachable from the entry (`None` for
    /// the entry and unreachable blocks). Cooper, Harvey and Kennedy's iterative
    /// algorithm.
    pub fn immediate_dominators(&self) -> &[Option<BlockId>] {
        self.cached.idom.get_or_init(|| self.compute_idom())
    }

    /// The immediate dominator of every block reachable from the entry through
    /// normal and exception edges (a handler's entry is entered from every block its
    /// range protects), `None` for the entry and unreachable blocks: for blocks that
    /// only a handler reaches, which [`Cfg::immediate_dominators`] leaves out. Not
    /// cached.
    pub fn immediate_dominators_with_handlers(&self) -> Vec<Option<BlockId>> {
        self.compute_idom_with(true)
    }

    fn compute_idom(&self) -> Vec<Option<BlockId>> {
        self.compute_idom_with(false)
    }

    fn compute_idom_with(&self, handlers: bool) -> Vec<Option<BlockId>> {
        let rpo: &[BlockId] = if handlers { self.reverse_postorder_with_handlers() } else { self.reverse_postorder() };
        let n = self.blocks.len();
        if rpo.is_empty() {
            return vec![None; n];
        }
        // Block numbers, `NONE` for "no dominator yet" (instead of `Option<usize>`:
        // half the size, no tag to test).
        const NONE: u32 = u32::MAX;
        // The blocks whose exceptions go to each block (handlers only), in block
        // order: those of block `b` are `raisers[raise_start[b]..raise_start[b + 1]]`
        // (two vectors instead of one per block).
        let (mut raise_start, mut raisers) = (Vec::new(), Vec::new());
        if handlers {
            raise_start = vec![0u32; n + 1];
            for blk in &self.blocks {
                if let Some(h) = blk.handler {
                    raise_start[h.target.index() + 1] += 1;
                }
            }
            for b in 0..n {
                raise_start[b + 1] += raise_start[b];
            }
            let mut next = raise_start.clone();
            raisers = vec![0u32; raise_start[n] as usize];
            for (p, blk) in self.blocks.iter().enumerate() {
                if let Some(h) = blk.handler {
                    let t = h.target.index();
                    raisers[next[t] as usize] = p as u32;
                    next[t] += 1;
                }
            }
        }
        let mut order = vec![u32::MAX; n];
        for (i, b) in rpo.iter().enumerate() {
            order[b.index()] = i as u32;
        }
        let mut idom = vec![NONE; n];
        idom[0] = 0;
        // Both arguments have a dominator, so every block on the way up has one too.
        let intersect = |idom: &[u32], mut a: u32, mut b: u32| {
            while a != b {
                while order[a as usize] > order[b as usize] {
                    a = idom[a as usize];
                }
                while order[b as usize] > order[a as usize] {
                    b = idom[b as usize];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &rpo[1..] {
                let b = b.index();
                let mut new = NONE;
                let exc: &[u32] = if handlers { &raisers[raise_start[b] as usize..raise_start[b + 1] as usize] } else { &[] };
                for p in self.blocks[b].preds.iter().map(|p| p.0).chain(exc.iter().copied()) {
                    if idom[p as usize] != NONE {
                        new = if new == NONE { p } else { intersect(&idom, p, new) };
                    }
                }
                if new != NONE && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        idom.iter().enumerate().map(|(b, &d)| if b == 0 || d == NONE { None } else { Some(BlockId(d)) }).collect()
    }

    /// The immediate post-dominator of every block (`None`: only the virtual exit
    /// post-dominates it, e.g. both branches return). Cooper, Harvey and Kennedy's
    /// iterative algorithm on the reversed graph.
    pub fn immediate_postdominators(&self) -> Vec<Option<BlockId>> {
        let n = self.blocks.len();
        let exit = n; // virtual exit node
        // Postorder of the reversed graph, from the exit.
        let preds_rev = |v: usize| -> Vec<usize> {
            // predecessors in the reversed graph = successors in the CFG
            if v == exit {
                vec![]
            } else {
                let s: Vec<usize> = self.blocks[v].succs().iter().map(|b| b.index()).collect();
                if s.is_empty() {
                    vec![exit]
                } else {
                    s
                }
            }
        };
        let succs_rev = |v: usize| -> Vec<usize> {
            if v == exit {
                (0..n).filter(|&b| self.blocks[b].succs().is_empty()).collect()
            } else {
                self.blocks[v].preds.iter().map(|b| b.index()).collect()
            }
        };
        let mut order = vec![usize::MAX; n + 1];
        let mut post = Vec::new();
        let mut seen = vec![false; n + 1];
        let mut stack = vec![(exit, 0usize)];
        seen[exit] = true;
        while let Some((v, i)) = stack.pop() {
            let s = succs_rev(v);
            if i < s.len() {
                stack.push((v, i + 1));
                if !seen[s[i]] {
                    seen[s[i]] = true;
                    stack.push((s[i], 0));
                }
            } else {
                order[v] = post.len();
                post.push(v);
            }
        }
        let mut idom: Vec<Option<usize>> = vec![None; n + 1];
        idom[exit] = Some(exit);
        let intersect = |idom: &Vec<Option<usize>>, mut a: usize, mut b: usize| {
            while a != b {
                while order[a] < order[b] {
                    a = idom[a].expect("processed");
                }
                while order[b] < order[a] {
                    b = idom[b].expect("processed");
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &v in post.iter().rev() {
                if v == exit {
                    continue;
                }
                let mut new: Option<usize> = None;
                for p in preds_rev(v) {
                    if idom[p].is_some() {
                        new = Some(match new {
                            None => p,
                            Some(cur) => intersect(&idom, p, cur),
                        });
                    }
                }
                if new.is_some() && idom[v] != new {
                    idom[v] = new;
                    changed = true;
                }
            }
        }
        (0..n)
            .map(|v| match idom[v] {
                Some(d) if d != exit => Some(BlockId(d as u32)),
                _ => None,
            })
            .collect()
    }
}

impl fmt::Display for Cfg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.blocks.iter().enumerate() {
            write!(f, "{} [{}..{}] -> ", BlockId(i as u32), b.start, b.end)?;
            match b.term {
                Terminator::FallThrough(s) => writeln!(f, "{s}")?,
                Terminator::Jump(s) => writeln!(f, "{s} (jump)")?,
                Terminator::Branch { jump, fall } => writeln!(f, "{jump} (jump) {fall}")?,
                Terminator::Return => writeln!(f, "return")?,
                Terminator::Raise => writeln!(f, "raise")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ins(offset: u32, op: Op) -> IrInstr {
        IrInstr { offset, at: offset, op, line: None, opname: "" }
    }

    #[test]
    fn diamond_postdominator_is_the_merge() {
        let ir = vec![
            ins(0, Op::LoadFast(0)),
            ins(2, Op::JumpIf { when: false, target: 8 }),
            ins(4, Op::LoadConst(0)),
            ins(6, Op::Jump(10)),
            ins(8, Op::LoadConst(1)),
            ins(10, Op::Return),
        ];
        let cfg = Cfg::build(&ir).unwrap();
        let ipdom = cfg.immediate_postdominators();
        assert_eq!(ipdom, vec![Some(BlockId(3)), Some(BlockId(3)), Some(BlockId(3)), None]);
        let idom = cfg.immediate_dominators();
        assert_eq!(idom, vec![None, Some(BlockId(0)), Some(BlockId(0)), Some(BlockId(0))]);
        assert!(cfg.back_edges().is_empty());
    }

    #[test]
    fn early_return_has_no_merge() {
        let ir = vec![
            ins(0, Op::LoadFast(0)),
            ins(2, Op::JumpIf { when: false, target: 8 }),
            ins(4, Op::LoadConst(0)),
            ins(6, Op::Return),
            ins(8, Op::LoadConst(1)),
            ins(10, Op::Return),
        ];
        let cfg = Cfg::build(&ir).unwrap();
        assert_eq!(cfg.immediate_postdominators()[0], None);
    }

    #[test]
    fn succ_at_lists_succs_then_the_handler() {
        let ir = vec![
            ins(0, Op::LoadFast(0)),
            ins(2, Op::JumpIf { when: false, target: 8 }),
            ins(4, Op::LoadConst(0)),
            ins(6, Op::Return),
            ins(8, Op::LoadConst(1)),
            ins(10, Op::Return),
            ins(12, Op::Raise(0)),
        ];
        let cfg = Cfg::build_with_ranges(&ir, &[(0, 4, 12, 0, false)]).unwrap();
        for b in &cfg.blocks {
            let plain: Vec<BlockId> = (0..).map_while(|i| b.succ_at(i, false)).collect();
            assert_eq!(plain, b.succs().to_vec());
            let with: Vec<BlockId> = (0..).map_while(|i| b.succ_at(i, true)).collect();
            assert_eq!(with, b.succs().into_iter().chain(b.handler.map(|h| h.target)).collect::<Vec<_>>());
        }
        assert_eq!(cfg.blocks[0].succ_at(2, true), Some(BlockId(3)));
        assert_eq!(cfg.reverse_postorder_with_handlers().len(), 4);
        assert_eq!(cfg.reverse_postorder().len(), 3);
    }

    #[test]
    fn loops_have_back_edges_and_bad_targets_fail() {
        let ir = vec![ins(0, Op::Nop), ins(2, Op::Jump(0))];
        let cfg = Cfg::build(&ir).unwrap();
        assert_eq!(cfg.back_edges(), [(BlockId(0), BlockId(0))]);
        assert_eq!(Cfg::build(&[ins(0, Op::Jump(3))]).unwrap_err(), CfgError::BadTarget(3));
        assert_eq!(Cfg::build(&[ins(0, Op::Nop)]).unwrap_err(), CfgError::FallsOffEnd(0));
    }
}
