//! The memory system behind the core's port in co-simulation (docs/cosim.md, "Memory
//! timing"): it serves requests from the harness's copy of memory and answers them in order,
//! as docs/hw.md's port contract says, at a [`Timing`]. A fixed timing accepts every request
//! at once and answers it a set number of cycles later; a random one, drawn from a seed,
//! refuses requests, spreads latencies and holds answers back, so that the core's stall paths
//! run. The core's side of the contract (a refused request stays, unchanged, until taken) is
//! the RTL's own assertion `a_req_held`, which every co-simulation runs.

use crate::model::{Inputs, Outputs};
use crate::random::Rng;
use sgpu_isa::abi;
use sgpu_sim::memory::{Access, Memories, Memory};
use sgpu_sim::record::Space;
use std::collections::VecDeque;
use std::fmt;

/// How the memory answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    /// Every request accepted at once and answered this many cycles later.
    Fixed(u64),
    /// Acceptance, latency and answer stalls drawn from this seed ([`Profile`]).
    Random(u64),
}

/// The variable the tests' seed is read from; without it each run draws a seed of its own.
pub const SEED_VARIABLE: &str = "SGPU_MEMORY_SEED";

impl Timing {
    /// The tests' timing: random, from `SGPU_MEMORY_SEED` when set, else a fresh seed (which
    /// every failure prints, with the variable that repeats it).
    pub fn from_env() -> Timing {
        Timing::Random(crate::seed::from_env(SEED_VARIABLE))
    }
}

impl Timing {
    /// The regime this timing runs in.
    pub fn profile(self) -> Profile {
        match self {
            Timing::Fixed(latency) => Profile {
                accept: 100,
                min_latency: latency,
                max_latency: latency,
                hold: 0,
            },
            Timing::Random(seed) => Profile::of(seed).0,
        }
    }
}

impl fmt::Display for Timing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Timing::Fixed(latency) => write!(f, "fixed latency {latency}"),
            Timing::Random(seed) => write!(
                f,
                "random, seed {seed} ({}; {SEED_VARIABLE}={seed} repeats it)",
                self.profile()
            ),
        }
    }
}

/// A random timing's regime, drawn once per run: how often a request is accepted, the
/// range of latencies, and how often an answer that is due is held back a cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    /// Percent of cycles in which a request is accepted.
    pub accept: u32,
    pub min_latency: u64,
    pub max_latency: u64,
    /// Percent of cycles in which an answer that is due is not yet offered.
    pub hold: u32,
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}% accepted, latency {}..={}, {}% of answers held",
            self.accept, self.min_latency, self.max_latency, self.hold
        )
    }
}

impl Profile {
    /// The profile of `seed`, and the generator the run then draws its cycles from.
    fn of(seed: u64) -> (Profile, Rng) {
        let mut rng = Rng::new(seed);
        let mut pick = |choices: &[u64]| choices[rng.below(choices.len() as u32) as usize];
        let accept = pick(&[100, 90, 50, 10]) as u32;
        let min_latency = pick(&[1, 2, 8, 30]);
        let max_latency = min_latency + pick(&[0, 3, 20, 150]);
        let hold = pick(&[0, 20, 60]) as u32;
        let profile = Profile {
            accept,
            min_latency,
            max_latency,
            hold,
        };
        (profile, rng)
    }
}

/// An answer in flight.
struct Answer {
    due: u64,
    data: [u32; 4],
    err: bool,
    tag: u16,
}

/// The memory system's state between cycles.
pub struct Port {
    profile: Profile,
    rng: Rng,
    pending: VecDeque<Answer>,
    /// The answer offered last cycle and not taken: it stays offered.
    offered: bool,
}

impl Port {
    pub fn new(timing: Timing) -> Port {
        let (profile, rng) = match timing {
            Timing::Fixed(_) => (timing.profile(), Rng::new(0)),
            Timing::Random(seed) => Profile::of(seed),
        };
        Port {
            profile,
            rng,
            pending: VecDeque::new(),
            offered: false,
        }
    }

    /// Sets the port's inputs for `cycle`: whether a request is accepted, and the oldest
    /// answer if it is due and not held back.
    pub fn drive(&mut self, inputs: &mut Inputs, cycle: u64) {
        inputs.mem_req_ready = u8::from(self.chance(self.profile.accept));
        let offer = match self.pending.front() {
            Some(a) if a.due <= cycle => self.offered || !self.chance(self.profile.hold),
            _ => false,
        };
        inputs.mem_rsp_valid = u8::from(offer);
        if let Some(a) = self.pending.front().filter(|_| offer) {
            inputs.mem_rsp_rdata = a.data;
            inputs.mem_rsp_err = u8::from(a.err);
            inputs.mem_rsp_tag = a.tag;
        }
    }

    /// After the cycle: an answer taken leaves, a request accepted is served from `memory`.
    /// Whether a request was accepted.
    pub fn after(
        &mut self,
        inputs: &Inputs,
        out: &Outputs,
        memory: &mut Memories<'_>,
        cycle: u64,
    ) -> bool {
        let taken = inputs.mem_rsp_valid != 0 && out.mem_rsp_ready != 0;
        if taken {
            self.pending.pop_front();
        }
        self.offered = inputs.mem_rsp_valid != 0 && !taken;
        let accepted = out.mem_req_valid != 0 && inputs.mem_req_ready != 0;
        if accepted {
            self.serve(out, memory, cycle);
        }
        accepted
    }

    fn chance(&mut self, percent: u32) -> bool {
        percent >= 100 || self.rng.below(100) < percent
    }

    /// A request served from the harness's copy of memory; its answer is due after a latency
    /// drawn from the profile, never before the one ahead of it (answers come in order).
    fn serve(&mut self, out: &Outputs, memory: &mut Memories<'_>, cycle: u64) {
        let len = out.mem_req_be.count_ones() as usize;
        let first = out.mem_req_be.trailing_zeros() as usize;
        let at = port_space(out.mem_req_space).map(|space| Access {
            space,
            address: out.mem_req_addr,
            thread: u32::from(out.mem_req_thread),
        });
        let mut block = [0u8; 16];
        let ok = match at {
            None => false,
            Some(at) if out.mem_req_write != 0 => {
                let data = block_bytes(out.mem_req_wdata);
                memory.write(at, &data[first..first + len]).is_ok()
            }
            Some(at) => memory.read(at, &mut block[first..first + len]).is_ok(),
        };
        let data = std::array::from_fn(|k| {
            u32::from_le_bytes(block[4 * k..4 * k + 4].try_into().expect("four bytes"))
        });
        let spread = self.profile.max_latency - self.profile.min_latency;
        let latency = self.profile.min_latency + self.rng.word() % (spread + 1);
        let after_last = self.pending.back().map_or(0, |a| a.due);
        self.pending.push_back(Answer {
            due: (cycle + latency).max(after_last),
            data,
            err: !ok,
            tag: out.mem_req_tag,
        });
    }
}

/// A 16-byte block as the port carries it, four words, lowest first.
pub fn block_bytes(words: [u32; 4]) -> [u8; 16] {
    let mut bytes = [0u8; 16];
    for (k, w) in words.iter().enumerate() {
        bytes[4 * k..4 * k + 4].copy_from_slice(&w.to_le_bytes());
    }
    bytes
}

/// The space of a port code (`PORT_*`).
pub fn port_space(code: u8) -> Option<Space> {
    Some(match u64::from(code) {
        abi::PORT_GLOBAL => Space::Global,
        abi::PORT_SHARED => Space::Shared,
        abi::PORT_LOCAL => Space::Local,
        abi::PORT_CONSTANT => Space::Constant,
        abi::PORT_PARAM => Space::Param,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_profiles_cover_every_regime_and_repeat_from_their_seed() {
        let profiles: Vec<Profile> = (0..400).map(|s| Profile::of(s).0).collect();
        assert_eq!(Profile::of(7).0, Profile::of(7).0);
        assert!(profiles.iter().any(|p| p.accept == 10));
        assert!(profiles.iter().any(|p| p.accept == 100 && p.hold == 0));
        assert!(profiles.iter().any(|p| p.max_latency >= 150));
        assert!(profiles.iter().any(|p| p.min_latency == p.max_latency));
        assert!(profiles.iter().all(|p| p.min_latency >= 1));
    }

    #[test]
    fn a_fixed_timing_accepts_every_cycle_and_answers_at_its_latency() {
        let mut port = Port::new(Timing::Fixed(3));
        for cycle in 0..50 {
            let mut inputs = Inputs::default();
            port.drive(&mut inputs, cycle);
            assert_eq!(inputs.mem_req_ready, 1);
        }
        assert_eq!(port.profile.min_latency, 3);
        assert_eq!(port.profile.max_latency, 3);
    }
}
