//! Golden-model speed: thread-instructions per second on one core, on an integer kernel and
//! a video-heavy one (1,024 threads, loops of a few thousand instructions each).
//! `cargo bench -p sgpu-sim --bench run` prints the rows kept in docs/PERFORMANCE.md.

use sgpu_sim::launch;
use sgpu_sim::memory::GLOBAL_BASE;
use sgpu_sim::program::Program;
use std::path::Path;
use std::time::Instant;

const INTEGER: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry integer (.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mad.lo.s32 %r3, %r2, 256, %r1;
	mov.u32 %r4, 0;
	mov.u32 %r5, %r3;
$loop:
	mad.lo.s32 %r5, %r5, 1664525, 1013904223;
	xor.b32 %r6, %r5, %r4;
	shr.u32 %r7, %r6, 7;
	add.s32 %r4, %r4, %r7;
	and.b32 %r8, %r4, 255;
	shl.b32 %r9, %r8, 3;
	or.b32 %r4, %r4, %r9;
	add.s32 %r10, %r10, 1;
	setp.lt.u32 %p1, %r10, 500;
	@%p1 bra $loop;
	mul.wide.u32 %rd2, %r3, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r4;
	ret;
}
"#;

const VIDEO: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry video (.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mad.lo.s32 %r3, %r2, 256, %r1;
	mov.u32 %r4, %r3;
	mov.u32 %r5, 0x01020304;
$loop:
	vadd.u32.u32.u32.sat %r4.b0, %r4.b1, %r5.b2, %r4;
	vabsdiff.s32.s32.s32.sat.add %r6, %r4.h0, %r5.h1, %r4;
	vmad.u32.u32.u32.shr7 %r7, %r6.b0, %r5.b3, %r4;
	vset.u32.u32.lt.max %r8, %r7, %r6, %r5;
	vshl.u32.u32.u32.clamp %r9, %r7, %r8.b0, %r4;
	vmax.s32.s32.s32 %r4.h1, %r9.h0, %r6.h1, %r4;
	vsub.u32.s32.u32.sat %r5, %r4.b3, %r7.b1;
	add.s32 %r10, %r10, 1;
	setp.lt.u32 %p1, %r10, 500;
	@%p1 bra $loop;
	mul.wide.u32 %rd2, %r3, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r4;
	ret;
}
"#;

fn measure(source: &str) -> (u64, f64) {
    let (m, d) = ptx_grammar::parse(source);
    assert!(d.is_empty(), "{d:?}");
    // The literal translation: the model's speed on a fixed instruction stream, which the
    // optimiser (its levels, its passes) leaves alone.
    let literal = ptx_encoder::Options {
        opt_level: 0,
        ..Default::default()
    };
    let elf = ptx_encoder::assemble(source, "bench.ptx", &m, &literal)
        .unwrap()
        .elf;
    let program = Program::load(&elf, GLOBAL_BASE).unwrap();
    let manifest =
        "grid = [4]\nblock = [256]\nparams = [{ buffer = \"out\" }]\n[buffers.out]\nsize = 4096\n";
    let mut best = f64::MAX;
    let mut count = 0;
    for _ in 0..3 {
        let mut p = launch::prepare(manifest, Path::new("."), &program).unwrap();
        let t = Instant::now();
        let stats = sgpu_sim::run(
            &program,
            &mut p.global,
            &p.surfaces,
            &p.launch,
            |_, _, _| {},
        )
        .unwrap();
        best = best.min(t.elapsed().as_secs_f64());
        count = stats.thread_instructions;
    }
    (count, best)
}

fn main() {
    println!("| kernel | thread instructions | seconds | M thread instructions/s |");
    println!("|---|---:|---:|---:|");
    for (name, src) in [("integer", INTEGER), ("video", VIDEO)] {
        let (n, t) = measure(src);
        println!("| {name} | {n} | {t:.3} | {:.0} |", n as f64 / t / 1e6);
    }
}
