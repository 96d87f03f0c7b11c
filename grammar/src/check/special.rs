//! PTX's predefined special registers (PTX ISA chapter 10).

use super::types::Type;

/// The type of a special register as written (`%tid.x`, `%laneid`, `%envreg3`), or `None`
/// when the name is not one.
pub fn lookup(name: &str) -> Option<Type> {
    // The one predefined constant: the warp size, an immediate.
    if name == "WARP_SZ" {
        return Type::from_name("u32");
    }
    let (base, component) = match name.find('.') {
        Some(i) => (&name[..i], Some(&name[i..])),
        None => (name, None),
    };
    let u32_ = Type::from_name("u32");
    let u64_ = Type::from_name("u64");
    let vector = matches!(
        base,
        "%tid"
            | "%ntid"
            | "%ctaid"
            | "%nctaid"
            | "%clusterid"
            | "%nclusterid"
            | "%cluster_ctaid"
            | "%cluster_nctaid"
    );
    if vector {
        return match component {
            // ptxas also takes `.w` (the fourth lane of the v4 register these are).
            Some(".x" | ".y" | ".z" | ".w") => u32_,
            // `mov.v4.u32 {...}, %tid;` reads all of them.
            None => u32_,
            _ => None,
        };
    }
    if component.is_some() {
        return None;
    }
    match base {
        "%laneid"
        | "%warpid"
        | "%nwarpid"
        | "%smid"
        | "%nsmid"
        | "%clock"
        | "%lanemask_eq"
        | "%lanemask_le"
        | "%lanemask_lt"
        | "%lanemask_ge"
        | "%lanemask_gt"
        | "%dynamic_smem_size"
        | "%total_smem_size"
        | "%aggr_smem_size"
        | "%reserved_smem_offset_begin"
        | "%reserved_smem_offset_end"
        | "%reserved_smem_offset_cap"
        | "%is_explicit_cluster"
        | "%cluster_ctarank"
        | "%cluster_nctarank"
        | "%current_graph_exec" => u32_,
        "%globaltimer_lo" | "%globaltimer_hi" => u32_,
        "%clock64" | "%gridid" | "%globaltimer" => u64_,
        _ => {
            let indexed = |name: &str, prefix: &str, max: u64| {
                name.strip_prefix(prefix)
                    .and_then(|n| n.parse::<u64>().ok())
                    .is_some_and(|n| n <= max)
            };
            if indexed(base, "%pm", 7) || indexed(base, "%envreg", 31) {
                u32_
            } else if base
                .strip_suffix("_64")
                .is_some_and(|b| indexed(b, "%pm", 7))
            {
                u64_
            } else {
                None
            }
        }
    }
}
