//! Posted loads' register writes (docs/cosim.md, "Loads in flight"). The core retires a load
//! once its requests have gone out and writes its registers later, as the answers come
//! (hw/sgpu_mem_return.sv). The model's values wait here from the load's retirement for the
//! RTL's writes; a write that comes before its load retires (a short memory latency) waits
//! for the model's value instead.

use std::collections::BTreeMap;

/// A lane of a warp's register: (warp, register, lane).
type Key = (u8, u8, usize);

/// The first difference: the pc of the load it belongs to, and what differs.
#[derive(Debug)]
pub struct Difference {
    pub warp: u8,
    pub pc: Option<u32>,
    pub what: String,
}

#[derive(Default)]
pub struct LateWrites {
    /// The model's value and its load's pc, waiting for the RTL's write.
    expected: BTreeMap<Key, (u32, u32)>,
    /// The RTL's writes whose load has not retired yet.
    early: BTreeMap<Key, u32>,
}

fn show((_, reg, lane): Key, value: u32) -> String {
    format!("R{reg} lane {lane} = {value:#010x}")
}

impl LateWrites {
    /// The RTL wrote `value` into a register lane.
    pub fn written(&mut self, key: Key, value: u32) -> Result<(), Difference> {
        if let Some((model, pc)) = self.expected.remove(&key) {
            return match model == value {
                true => Ok(()),
                false => Err(Difference {
                    warp: key.0,
                    pc: Some(pc),
                    what: format!(
                        "a load's register write: model {}, RTL {}",
                        show(key, model),
                        show(key, value)
                    ),
                }),
            };
        }
        match self.early.insert(key, value) {
            None => Ok(()),
            Some(_) => Err(Difference {
                warp: key.0,
                pc: None,
                what: format!("the RTL wrote {} twice for one load", show(key, value)),
            }),
        }
    }

    /// A load of `warp` at `pc` retired, and the model wrote `writes` (register, lane,
    /// value). The RTL's writes that came early must be exactly some of them: a warp has
    /// one load at most that is sending and not yet retired.
    pub fn retired(
        &mut self,
        warp: u8,
        pc: u32,
        writes: &[(u8, usize, u32)],
    ) -> Result<(), Difference> {
        let differ = |what: String| Difference {
            warp,
            pc: Some(pc),
            what,
        };
        for &(reg, lane, model) in writes {
            let key = (warp, reg, lane);
            match self.early.remove(&key) {
                Some(rtl) if rtl != model => {
                    return Err(differ(format!(
                        "a load's register write: model {}, RTL {}",
                        show(key, model),
                        show(key, rtl)
                    )))
                }
                Some(_) => {}
                None => {
                    self.expected.insert(key, (model, pc));
                }
            }
        }
        match self.early.iter().find(|(k, _)| k.0 == warp) {
            Some((&key, &rtl)) => Err(differ(format!(
                "the RTL wrote {} for a load that writes no such register",
                show(key, rtl)
            ))),
            None => Ok(()),
        }
    }

    /// The run ended: every write the model made, the RTL made too.
    pub fn settled(&self) -> Result<(), Difference> {
        if let Some((&key, &(model, pc))) = self.expected.iter().next() {
            return Err(Difference {
                warp: key.0,
                pc: Some(pc),
                what: format!("the RTL never wrote the load's {}", show(key, model)),
            });
        }
        match self.early.iter().next() {
            Some((&key, &rtl)) => Err(Difference {
                warp: key.0,
                pc: None,
                what: format!("the RTL wrote {} for no load", show(key, rtl)),
            }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_match_in_either_order() {
        let mut l = LateWrites::default();
        l.written((1, 4, 0), 7).unwrap();
        l.retired(1, 0x10, &[(4, 0, 7), (4, 1, 8)]).unwrap();
        assert!(l.settled().is_err(), "lane 1 is still owed");
        l.written((1, 4, 1), 8).unwrap();
        l.settled().unwrap();
    }

    #[test]
    fn a_wrong_value_names_the_load() {
        let mut l = LateWrites::default();
        l.retired(2, 0x20, &[(5, 3, 1)]).unwrap();
        let d = l.written((2, 5, 3), 2).unwrap_err();
        assert_eq!((d.warp, d.pc), (2, Some(0x20)));
        assert!(
            d.what.contains("model R5 lane 3 = 0x00000001"),
            "{}",
            d.what
        );

        let mut l = LateWrites::default();
        l.written((0, 9, 0), 1).unwrap();
        let d = l.retired(0, 0x30, &[(9, 0, 2)]).unwrap_err();
        assert!(d.what.contains("RTL R9 lane 0 = 0x00000001"), "{}", d.what);
    }

    #[test]
    fn an_early_write_the_load_does_not_make_is_reported() {
        let mut l = LateWrites::default();
        l.written((3, 6, 0), 1).unwrap();
        assert!(l.retired(3, 0x40, &[(7, 0, 1)]).is_err());
        let mut l = LateWrites::default();
        l.written((3, 6, 0), 1).unwrap();
        assert!(l.written((3, 6, 0), 1).is_err());
        assert!(l.settled().is_err());
    }
}
