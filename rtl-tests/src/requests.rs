//! Every memory request the core puts on its port, compared with the golden model's accesses
//! (docs/cosim.md, "What is compared"). The model's memory is wrapped ([`Logged`]) so that
//! each access a warp instruction makes is listed as it runs; the core's requests taken
//! since the last retirement are the retiring instruction's (the core runs one instruction
//! at a time, and a load retires once its requests have gone out). Both lists must be the
//! same, in order: space, address, the thread for local memory, the bytes, and a write's
//! data.

use crate::model::Outputs;
use crate::port::{block_bytes, port_space};
use sgpu_sim::memory::{Access, Memory};
use sgpu_sim::record::Space;
use sgpu_sim::trap::Cause;
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

/// One access as both sides can list it.
#[derive(Clone, PartialEq, Eq)]
pub struct Request {
    pub space: Option<Space>,
    pub address: u64,
    /// The thread, for local memory (elsewhere the port's thread field means nothing).
    pub thread: Option<u32>,
    pub bytes: usize,
    /// What a write writes.
    pub data: Option<Vec<u8>>,
}

impl fmt::Debug for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let space = self
            .space
            .map_or("no space".to_string(), |s| format!("{s:?}"));
        write!(f, "{space} {:#x} ({} bytes", self.address, self.bytes)?;
        if let Some(t) = self.thread {
            write!(f, ", thread {t}")?;
        }
        match &self.data {
            Some(d) => write!(f, ", write {d:02x?})"),
            None => write!(f, ", read)"),
        }
    }
}

impl Request {
    fn of(at: Access, bytes: usize, data: Option<&[u8]>) -> Request {
        Request {
            space: Some(at.space),
            address: at.address,
            thread: (at.space == Space::Local).then_some(at.thread),
            bytes,
            data: data.map(<[u8]>::to_vec),
        }
    }

    /// The request the core drives on its port this cycle.
    pub fn from_port(out: &Outputs) -> Request {
        let space = port_space(out.mem_req_space);
        let first = out.mem_req_be.trailing_zeros() as usize;
        let bytes = out.mem_req_be.count_ones() as usize;
        let data = (out.mem_req_write != 0)
            .then(|| block_bytes(out.mem_req_wdata)[first..first + bytes].to_vec());
        Request {
            space,
            address: out.mem_req_addr,
            thread: (space == Some(Space::Local)).then_some(u32::from(out.mem_req_thread)),
            bytes,
            data,
        }
    }
}

/// The model's accesses since the log was last taken.
pub type Log = Rc<RefCell<Vec<Request>>>;

/// The model's memory, listing each access in `log`.
pub struct Logged<'a> {
    pub memory: &'a mut dyn Memory,
    pub log: Log,
}

impl Memory for Logged<'_> {
    fn read(&mut self, at: Access, out: &mut [u8]) -> Result<(), Cause> {
        self.log.borrow_mut().push(Request::of(at, out.len(), None));
        self.memory.read(at, out)
    }

    fn write(&mut self, at: Access, data: &[u8]) -> Result<(), Cause> {
        self.log
            .borrow_mut()
            .push(Request::of(at, data.len(), Some(data)));
        self.memory.write(at, data)
    }

    fn start_cta(&mut self, shared: usize, threads: usize, local: usize) {
        self.memory.start_cta(shared, threads, local);
    }
}

/// Where two lists of requests differ first, if they do.
pub fn differ(model: &[Request], rtl: &[Request]) -> Option<String> {
    let at = (0..model.len().max(rtl.len())).find(|&k| model.get(k) != rtl.get(k))?;
    let show = |r: Option<&Request>| r.map_or("nothing".to_string(), |r| format!("{r:?}"));
    Some(format!(
        "memory request {at}: model {}, RTL {} ({} requests against {})",
        show(model.get(at)),
        show(rtl.get(at)),
        model.len(),
        rtl.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(address: u64) -> Request {
        Request {
            space: Some(Space::Global),
            address,
            thread: None,
            bytes: 4,
            data: None,
        }
    }

    #[test]
    fn the_first_difference_is_named_with_both_sides() {
        assert_eq!(differ(&[read(0)], &[read(0)]), None);
        let what = differ(&[read(0), read(4)], &[read(0), read(8)]).unwrap();
        assert!(what.starts_with("memory request 1:"), "{what}");
        assert!(what.contains("0x4") && what.contains("0x8"), "{what}");
        let what = differ(&[read(0)], &[]).unwrap();
        assert!(what.contains("RTL nothing") && what.contains("1 requests against 0"));
    }
}
