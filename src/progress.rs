//! What a long run says while it runs: a progress line on standard error once it has taken
//! a few seconds, and Ctrl-C, which stops the model between slices of a warp's instructions
//! so that the trap shows where every warp is (a hung kernel's spin loop, its barrier).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long a run goes before its first progress line.
const FIRST: Duration = Duration::from_secs(3);
/// Between lines: a terminal's line is rewritten in place, a log gains a line each time.
const ON_TERMINAL: Duration = Duration::from_secs(1);
const IN_LOG: Duration = Duration::from_secs(10);
/// Instructions between reads of the clock, which would cost more than the model's step.
const CHECK_EVERY: u64 = 1 << 16;

/// The progress of one run.
pub struct Progress {
    started: Instant,
    kernel: String,
    ctas: u64,
    terminal: bool,
    retired: u64,
    /// When the next line is due, from `started`.
    due: Duration,
    shown: bool,
}

impl Progress {
    pub fn new(launch: &sgpu_sim::Launch, terminal: bool) -> Progress {
        Progress {
            started: Instant::now(),
            kernel: launch.kernel.clone(),
            ctas: launch.grid.iter().map(|&n| u64::from(n)).product(),
            terminal,
            retired: 0,
            due: FIRST,
            shown: false,
        }
    }

    /// One more warp instruction retired, by CTA number `cta` (counted from 0).
    pub fn retired(&mut self, err: &mut impl Write, cta: u32) {
        self.retired += 1;
        if !self.retired.is_multiple_of(CHECK_EVERY) {
            return;
        }
        if let Some(line) = self.line(self.started.elapsed(), cta) {
            // A progress line that cannot be written is no reason to stop the run.
            let _ = if self.terminal {
                write!(err, "\r{line}\x1b[K")
            } else {
                writeln!(err, "{line}")
            };
            let _ = err.flush();
        }
    }

    /// The line due at `elapsed`, if one is.
    fn line(&mut self, elapsed: Duration, cta: u32) -> Option<String> {
        if elapsed < self.due {
            return None;
        }
        self.due = elapsed + if self.terminal { ON_TERMINAL } else { IN_LOG };
        self.shown = true;
        let rate = self.retired as f64 / elapsed.as_secs_f64() / 1e6;
        Some(format!(
            "ptxas-rs: running {}: {} warp instructions in {} s ({rate:.1} M/s), CTA {} of {}; \
             Ctrl-C stops it and shows each warp",
            self.kernel,
            self.retired,
            elapsed.as_secs(),
            u64::from(cta) + 1,
            self.ctas
        ))
    }

    /// The run ended: a terminal's progress line is cleared, so that what follows reads as
    /// if it had never been there.
    pub fn finish(&self, err: &mut impl Write) {
        if self.terminal && self.shown {
            let _ = write!(err, "\r\x1b[K");
        }
    }
}

/// Set by Ctrl-C; the model stops at its next slice with [`sgpu_sim::Cause::Interrupted`].
static INTERRUPT: AtomicBool = AtomicBool::new(false);

/// Installs the Ctrl-C handler (once per process) and returns the flag it sets; `None` if
/// no handler could be installed, when Ctrl-C ends the process as it would anyway. A second
/// Ctrl-C ends the process at once, in case the run cannot get to its next slice.
pub fn interrupt_on_ctrl_c() -> Option<&'static AtomicBool> {
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    let installed = *INSTALLED.get_or_init(|| {
        ctrlc::set_handler(|| {
            if INTERRUPT.swap(true, Ordering::Relaxed) {
                std::process::exit(i32::from(crate::cli::INTERRUPTED));
            }
        })
        .is_ok()
    });
    installed.then_some(&INTERRUPT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(terminal: bool) -> Progress {
        let launch = sgpu_sim::Launch {
            kernel: "spin".into(),
            grid: [4, 2, 1],
            block: [32, 1, 1],
            shared: 0,
            params: Vec::new(),
            max_instructions: 1,
            interrupt: None,
        };
        Progress::new(&launch, terminal)
    }

    #[test]
    fn a_line_comes_after_a_few_seconds_then_at_the_interval() {
        let mut p = progress(false);
        p.retired = 50_000_000;
        assert_eq!(p.line(Duration::from_millis(2_900), 0), None);
        assert_eq!(
            p.line(Duration::from_secs(5), 6).as_deref(),
            Some(
                "ptxas-rs: running spin: 50000000 warp instructions in 5 s (10.0 M/s), \
                 CTA 7 of 8; Ctrl-C stops it and shows each warp"
            )
        );
        assert_eq!(p.line(Duration::from_secs(14), 6), None);
        assert!(p.line(Duration::from_secs(15), 7).is_some());
    }

    #[test]
    fn a_terminal_gets_a_line_each_second_cleared_at_the_end() {
        let mut p = progress(true);
        let mut err = Vec::new();
        p.finish(&mut err);
        assert!(err.is_empty(), "nothing shown, nothing to clear");
        assert!(p.line(Duration::from_secs(3), 0).is_some());
        assert_eq!(p.line(Duration::from_millis(3_900), 0), None);
        assert!(p.line(Duration::from_secs(4), 0).is_some());
        p.finish(&mut err);
        assert_eq!(err, b"\r\x1b[K");
    }
}
