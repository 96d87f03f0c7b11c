//! Whatever the words, the model ends cleanly: random instruction words (valid opcodes with
//! random fields) run as a kernel trap or finish, and never panic.

use sgpu_isa::elf::Info;
use sgpu_isa::INSTRUCTIONS;
use sgpu_sim::memory::Global;
use sgpu_sim::program::{Function, Program};
use sgpu_sim::surface::Surfaces;
use sgpu_sim::Launch;

mod common;

use common::Rng;

#[test]
fn random_programs_trap_or_finish_without_panicking() {
    let count: usize = std::env::var("SGPU_SIM_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut finished = 0;
    for i in 0..count {
        let len = 1 + (rng.next() % 24) as usize;
        let code: Vec<u64> = (0..len)
            .map(|_| {
                let (_, op, used) = INSTRUCTIONS[(rng.next() % INSTRUCTIONS.len() as u64) as usize];
                // Every bit of the fields is fuzzed (immediates, the bi/ci flags, bits
                // 63:60); three words in four keep register and predicate numbers small and
                // branch targets whole instructions, so that values and control flow on.
                let small = if !rng.next().is_multiple_of(4) {
                    0x0fff_fff8_f0f3_ffff
                } else {
                    u64::MAX
                };
                let bits = rng.next() & used & !0xff & small;
                bits | u64::from(op)
            })
            .collect();
        let mut program = Program {
            decoded: sgpu_sim::program::decode_all(&code),
            lines: vec![[0, 0, 0]; code.len()],
            code,
            ..Program::default()
        };
        program.functions.push(Function {
            name: "k".into(),
            start: 0,
            len: len as u32,
            info: Info {
                entry: true,
                local_bytes: 64,
                shared_bytes: 64,
                param_bytes: 16,
                ..Info::default()
            },
        });
        let launch = Launch {
            kernel: "k".into(),
            grid: [2, 1, 1],
            block: [40, 1, 1],
            shared: 0,
            params: vec![0; 16],
            max_instructions: 2_000,
            interrupt: None,
        };
        let mut global = Global::default();
        global.alloc("buf", vec![0; 256], 256);
        let surfaces = Surfaces::default();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            sgpu_sim::run(&program, &mut global, &surfaces, &launch, |_, _, _| {})
        }));
        match result {
            Ok(r) => finished += usize::from(r.is_ok()),
            Err(_) => panic!(
                "program {i} panicked: {:?}",
                program
                    .code
                    .iter()
                    .map(|w| sgpu_isa::decode(*w)
                        .map(|x| x.to_string())
                        .unwrap_or_default())
                    .collect::<Vec<_>>()
            ),
        }
    }
    // Some programs must get through, or this test exercises only the first instruction.
    eprintln!("FINISHED {finished}");
    assert!(finished > count / 50, "only {finished} of {count} finished");
}
