//! The seeds of a co-simulation's randomness (memory timing, initial register values): read
//! from a variable when set, else fresh for each run, and printed with every failure with
//! the variable that repeats it (docs/cosim.md).

/// The seed in `variable`, else a fresh one from the clock and a counter (so that runs in
/// one process differ too). Never 0, which means "no randomness" where a seed is optional.
pub fn from_env(variable: &str) -> u64 {
    std::env::var(variable)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(fresh)
}

fn fresh() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    1 + (nanos ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15)) % 999_999_999_999
}
