//! The edge operand sets of tests/kernels/shfl_lanes.operands, which tests/golden_model.rs
//! runs on the model (against PTX's definition) and rtl-tests' cosim_warp.rs on the RTL:
//! each includes this file by its path, so both read the data one way.

/// Every line that is not a `#` comment: eight words, decimal or `0x` hex.
pub fn parse(text: &str) -> Vec<[u32; 8]> {
    let word = |w: &str| {
        w.strip_prefix("0x")
            .map_or(w.parse(), |h| u32::from_str_radix(h, 16))
            .unwrap_or_else(|e| panic!("shfl_lanes.operands: {w:?}: {e}"))
    };
    let set = |l: &str| l.split_whitespace().map(word).collect::<Vec<u32>>();
    let sets = text.lines().filter(|l| !l.starts_with('#')).map(set);
    sets.map(|v| v.try_into().expect("eight words a line"))
        .collect()
}
