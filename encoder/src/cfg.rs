//! The control-flow graph of a lowered function, its immediate post-dominators, and the
//! `SSY` instructions they place before every branch that may diverge.

use crate::mir::{MInst, Target};
use sgpu_isa::{opcodes, Instruction, Op};

/// Basic blocks: instruction ranges and successors. Block `blocks.len()` stands for the
/// function's exit.
pub struct Cfg {
    pub starts: Vec<usize>,
    pub succs: Vec<Vec<usize>>,
    /// The block of each instruction.
    pub block_of: Vec<usize>,
}

impl Cfg {
    pub fn build(code: &[MInst], label_pos: &[usize]) -> Cfg {
        let n = code.len();
        let mut leader = vec![false; n + 1];
        leader[0] = true;
        for &p in label_pos {
            if p <= n {
                leader[p] = true;
            }
        }
        for (i, m) in code.iter().enumerate() {
            if is_transfer(m) {
                leader[i + 1] = true;
            }
        }
        let starts: Vec<usize> = (0..n).filter(|&i| leader[i]).collect();
        let mut block_of = vec![0; n];
        for (b, &s) in starts.iter().enumerate() {
            let end = starts.get(b + 1).copied().unwrap_or(n);
            block_of[s..end].iter_mut().for_each(|x| *x = b);
        }
        let exit = starts.len();
        let block_at = |pos: usize| if pos >= n { exit } else { block_of[pos] };
        let mut succs = Vec::with_capacity(starts.len());
        for (b, _) in starts.iter().enumerate() {
            let end = starts.get(b + 1).copied().unwrap_or(n);
            let last = &code[end - 1];
            let mut s = Vec::new();
            let op = last.opcode();
            let conditional = !last.always_runs();
            if op == opcodes::BRA {
                let target = match last.target {
                    Some(Target::Label(l)) => block_at(label_pos[l as usize]),
                    _ => exit,
                };
                s.push(target);
                if conditional {
                    s.push(block_at(end));
                }
            } else if matches!(op, opcodes::EXIT | opcodes::RET | opcodes::TRAP) {
                if conditional {
                    s.push(block_at(end));
                } else {
                    s.push(exit);
                }
            } else {
                s.push(block_at(end));
            }
            s.dedup();
            succs.push(s);
        }
        Cfg {
            starts,
            succs,
            block_of,
        }
    }

    /// The immediate post-dominator of every block (the exit node for those whose paths
    /// meet only at the exit).
    pub fn post_dominators(&self) -> Vec<usize> {
        let exit = self.starts.len();
        let nodes = exit + 1;
        // Predecessors in the reversed graph are successors in the CFG.
        let mut preds_rev: Vec<Vec<usize>> = vec![Vec::new(); nodes];
        for (b, s) in self.succs.iter().enumerate() {
            for &t in s {
                preds_rev[t].push(b);
            }
        }
        // Blocks that cannot reach the exit (endless loops) are tied to it, so that every
        // block has a post-dominator.
        let reaches = self.reaching_exit(&preds_rev);
        let mut succ_rev_extra: Vec<Vec<usize>> = vec![Vec::new(); nodes];
        for (b, _) in reaches.iter().enumerate().take(exit).filter(|(_, r)| !**r) {
            succ_rev_extra[exit].push(b);
        }
        // Reverse postorder of the reversed graph from the exit.
        let mut order = Vec::with_capacity(nodes);
        let mut seen = vec![false; nodes];
        let mut stack = vec![(exit, 0usize)];
        seen[exit] = true;
        while let Some((node, i)) = stack.pop() {
            let next: Vec<usize> = preds_rev[node]
                .iter()
                .chain(&succ_rev_extra[node])
                .copied()
                .collect();
            if i < next.len() {
                stack.push((node, i + 1));
                let n = next[i];
                if !seen[n] {
                    seen[n] = true;
                    stack.push((n, 0));
                }
            } else {
                order.push(node);
            }
        }
        order.reverse();
        let mut rpo = vec![usize::MAX; nodes];
        for (i, &n) in order.iter().enumerate() {
            rpo[n] = i;
        }
        // Cooper, Harvey and Kennedy's iteration; in the reversed graph a node's
        // predecessors are its CFG successors (plus the exit for the tied blocks).
        let mut idom = vec![usize::MAX; nodes];
        idom[exit] = exit;
        let mut changed = true;
        while changed {
            changed = false;
            for &n in order.iter().skip(1) {
                let mut preds: Vec<usize> = if n < exit {
                    self.succs[n].clone()
                } else {
                    Vec::new()
                };
                if n < exit && !reaches[n] {
                    preds.push(exit);
                }
                let mut new = usize::MAX;
                for p in preds {
                    if idom[p] == usize::MAX {
                        continue;
                    }
                    new = if new == usize::MAX {
                        p
                    } else {
                        intersect(&idom, &rpo, p, new)
                    };
                }
                if new != usize::MAX && idom[n] != new {
                    idom[n] = new;
                    changed = true;
                }
            }
        }
        idom.truncate(exit);
        idom
    }

    /// Where block `b` ends: the start of the next block, or the end of the code.
    pub fn end(&self, b: usize) -> usize {
        self.starts
            .get(b + 1)
            .copied()
            .unwrap_or(self.block_of.len())
    }

    /// The predecessors of every block.
    pub fn predecessors(&self) -> Vec<Vec<usize>> {
        let blocks = self.starts.len();
        let mut preds = vec![Vec::new(); blocks];
        for (b, s) in self.succs.iter().enumerate() {
            for &t in s.iter().filter(|&&t| t < blocks) {
                preds[t].push(b);
            }
        }
        preds
    }

    /// The blocks reachable from the entry, in reverse postorder.
    pub fn reverse_postorder(&self) -> Vec<usize> {
        let blocks = self.starts.len();
        let mut order = Vec::with_capacity(blocks);
        if blocks == 0 {
            return order;
        }
        let mut seen = vec![false; blocks];
        let mut stack = vec![(0usize, 0usize)];
        seen[0] = true;
        while let Some((b, i)) = stack.pop() {
            match self.succs[b].get(i) {
                Some(&s) => {
                    stack.push((b, i + 1));
                    if s < blocks && !seen[s] {
                        seen[s] = true;
                        stack.push((s, 0));
                    }
                }
                None => order.push(b),
            }
        }
        order.reverse();
        order
    }

    /// The dominator tree (Cooper, Harvey and Kennedy's iteration over reverse postorder).
    pub fn dominators(&self) -> Dominators {
        let blocks = self.starts.len();
        let order = self.reverse_postorder();
        let preds = self.predecessors();
        let mut rpo = vec![usize::MAX; blocks];
        for (i, &b) in order.iter().enumerate() {
            rpo[b] = i;
        }
        let mut idom = vec![usize::MAX; blocks];
        if blocks > 0 {
            idom[0] = 0;
        }
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().skip(1) {
                let mut new = usize::MAX;
                for &p in preds[b].iter().filter(|&&p| idom[p] != usize::MAX) {
                    new = if new == usize::MAX {
                        p
                    } else {
                        intersect(&idom, &rpo, p, new)
                    };
                }
                if new != idom[b] {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        Dominators::from_idom(&idom)
    }

    fn reaching_exit(&self, preds_rev: &[Vec<usize>]) -> Vec<bool> {
        let exit = self.starts.len();
        let mut reach = vec![false; exit + 1];
        let mut stack = vec![exit];
        reach[exit] = true;
        while let Some(n) = stack.pop() {
            for &p in &preds_rev[n] {
                if !reach[p] {
                    reach[p] = true;
                    stack.push(p);
                }
            }
        }
        reach
    }
}

/// The dominator tree as intervals of a depth-first numbering, so that whether one block
/// dominates another is two comparisons.
pub struct Dominators {
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl Dominators {
    fn from_idom(idom: &[usize]) -> Dominators {
        let blocks = idom.len();
        let mut children = vec![Vec::new(); blocks];
        for (b, &d) in idom.iter().enumerate().skip(1) {
            if d != usize::MAX {
                children[d].push(b);
            }
        }
        let (mut pre, mut post) = (vec![u32::MAX; blocks], vec![0; blocks]);
        let mut clock = 0;
        let mut stack = vec![(0usize, 0usize)];
        while let Some((b, i)) = stack.pop().filter(|_| blocks > 0) {
            if i == 0 {
                pre[b] = clock;
                clock += 1;
            }
            match children[b].get(i) {
                Some(&c) => {
                    stack.push((b, i + 1));
                    stack.push((c, 0));
                }
                None => {
                    post[b] = clock;
                    clock += 1;
                }
            }
        }
        Dominators { pre, post }
    }

    /// Whether block `b` is reachable from the entry.
    pub fn reachable(&self, b: usize) -> bool {
        self.pre[b] != u32::MAX
    }

    /// Whether block `a` dominates block `b` (every block dominates itself); false when
    /// either is unreachable.
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        self.reachable(a)
            && self.reachable(b)
            && self.pre[a] <= self.pre[b]
            && self.post[b] <= self.post[a]
    }
}

fn intersect(idom: &[usize], rpo: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while rpo[a] > rpo[b] {
            a = idom[a];
        }
        while rpo[b] > rpo[a] {
            b = idom[b];
        }
    }
    a
}

/// Whether control may leave the straight line after this instruction.
fn is_transfer(m: &MInst) -> bool {
    matches!(
        m.opcode(),
        opcodes::BRA | opcodes::EXIT | opcodes::RET | opcodes::TRAP
    )
}

/// Puts `SSY` before every branch that may diverge (guarded, not `.uni`), naming its
/// immediate post-dominator as the reconvergence point. Returns the new code; `label_pos`
/// is updated, and labels are added for reconvergence points that had none.
pub fn insert_reconvergence(code: Vec<MInst>, label_pos: &mut Vec<usize>) -> Vec<MInst> {
    let cfg = Cfg::build(&code, label_pos);
    let ipdom = cfg.post_dominators();
    let exit = cfg.starts.len();
    // Label of each block start, created where missing.
    let mut block_label: Vec<Option<u32>> = vec![None; exit];
    for (l, &p) in label_pos.iter().enumerate() {
        if p < code.len() && cfg.starts[cfg.block_of[p]] == p {
            block_label[cfg.block_of[p]].get_or_insert(l as u32);
        }
    }
    let mut ssy_before: Vec<Option<Target>> = vec![None; code.len()];
    for (b, &r) in ipdom.iter().enumerate() {
        let end = cfg.end(b);
        let last = &code[end - 1];
        let uni = sgpu_isa::field(last.word, sgpu_isa::fields::UNI) != 0;
        if last.opcode() != opcodes::BRA || last.always_runs() || uni {
            continue;
        }
        let target = if r >= exit {
            Target::End
        } else {
            let l = *block_label[r].get_or_insert_with(|| {
                label_pos.push(cfg.starts[r]);
                label_pos.len() as u32 - 1
            });
            Target::Label(l)
        };
        ssy_before[end - 1] = Some(target);
    }
    if ssy_before.iter().all(Option::is_none) {
        return code;
    }
    // Rebuild, moving labels to the new positions.
    let mut new_index = Vec::with_capacity(code.len() + 1);
    let ssys = ssy_before.iter().flatten().count();
    let mut out = Vec::with_capacity(code.len() + ssys);
    for (i, m) in code.into_iter().enumerate() {
        new_index.push(out.len());
        if let Some(target) = ssy_before[i] {
            let mut ssy = MInst::new(Instruction::new(Op::Ssy { target: 0 }), m.line)
                .expect("a target of 0 fits");
            ssy.target = Some(target);
            out.push(ssy);
        }
        out.push(m);
    }
    new_index.push(out.len());
    for p in label_pos.iter_mut() {
        *p = new_index[(*p).min(new_index.len() - 1)];
    }
    out
}
