//! Nested scopes of a function's names, where `.reg .b32 %r<N>;` declares `%r0` .. `%r{N-1}`
//! at once.
//!
//! The checker and the encoder resolve every operand through this, so a lookup should cost
//! one hash probe: each name's innermost declaration sits in one map (rather than one map
//! per scope, searched innermost first), and a name like `%r12` is looked up by its prefix,
//! `%r`, whose record says whether any exact name with that prefix (a declared `%r5`) is
//! visible, so that only then is `%r12` also looked up exactly (LLVM declares none).
//!
//! Scoping follows ptxas: an inner range hides only the names it declares (`%r<2>` in a
//! block hides `%r0` and `%r1`, not an outer `%r7`), and a name declared twice in one scope,
//! exactly or as a range's member, is an error.

use crate::check::split_index;
use rustc_hash::FxHashMap;

/// No entry.
const NONE: u32 = u32::MAX;

struct Entry<'a, D> {
    name: &'a str,
    decl: D,
    /// `Some(n)` for a range `name<n>`.
    range: Option<u32>,
    /// How many scopes were open when it was declared.
    depth: u32,
    /// The first of its registers' numbers (see [`Found::number`]).
    first: u64,
    /// The visible entry of the same name and kind that this one hides, or [`NONE`].
    hidden: u32,
}

/// What a name resolved to.
pub struct Found<'s, D> {
    pub decl: &'s D,
    /// A number for the register (or variable) the name denotes, unique among everything
    /// declared since the last [`Scopes::clear`]: `%r12` of a range and `%r12` of another
    /// differ, while every use of one gets the same number.
    pub number: u64,
}

/// Why a declaration was refused: `name` is declared in this scope already, by `first`.
pub struct Redeclared<'s, 'a, D> {
    pub name: &'a str,
    pub first: &'s D,
}

/// What is visible under one prefix: `%r` of `%r<N>` and of exact names like `%r5`.
#[derive(Clone, Copy)]
struct Prefix {
    /// The innermost range, or [`NONE`].
    range: u32,
    /// How many visible exact names have this prefix and an index.
    exact: u32,
}

pub struct Scopes<'a, D> {
    entries: Vec<Entry<'a, D>>,
    /// The innermost visible declaration of each exact name.
    exact: FxHashMap<&'a str, u32>,
    prefixes: FxHashMap<&'a str, Prefix>,
    /// `entries.len()` when each open scope began.
    marks: Vec<usize>,
    next_number: u64,
}

impl<D> Default for Scopes<'_, D> {
    fn default() -> Self {
        Scopes {
            entries: Vec::new(),
            exact: FxHashMap::default(),
            prefixes: FxHashMap::default(),
            marks: Vec::new(),
            next_number: 0,
        }
    }
}

impl<'a, D> Scopes<'a, D> {
    /// Forgets every declaration and scope, for the next function.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.exact.clear();
        self.prefixes.clear();
        self.marks.clear();
        self.next_number = 0;
    }

    /// Opens a scope.
    pub fn push(&mut self) {
        self.marks.push(self.entries.len());
    }

    /// Closes the innermost scope; returns whether it declared anything.
    pub fn pop(&mut self) -> bool {
        let mark = self.marks.pop().unwrap_or(0);
        let declared = self.entries.len() > mark;
        while self.entries.len() > mark {
            let e = self.entries.pop().expect("entries past the mark");
            if e.range.is_some() {
                self.update_prefix(e.name, |p| p.range = e.hidden);
            } else if e.hidden != NONE {
                self.exact.insert(e.name, e.hidden);
            } else {
                self.exact.remove(e.name);
                if let Some((prefix, _)) = split_index(e.name) {
                    self.update_prefix(prefix, |p| p.exact -= 1);
                }
            }
        }
        declared
    }

    /// Changes the record of `prefix` (a new one if none), dropping it once empty.
    fn update_prefix(&mut self, prefix: &'a str, change: impl FnOnce(&mut Prefix)) {
        let p = self.prefixes.entry(prefix).or_insert(Prefix {
            range: NONE,
            exact: 0,
        });
        change(p);
        if p.range == NONE && p.exact == 0 {
            self.prefixes.remove(prefix);
        }
    }

    /// Declares `name` (with `range`, `name<range>`) in the innermost scope, unless that
    /// scope declares it, or one of the range's names, already.
    pub fn declare(
        &mut self,
        name: &'a str,
        range: Option<u32>,
        decl: D,
    ) -> Result<(), Redeclared<'_, 'a, D>> {
        let depth = self.marks.len() as u32;
        if let Some(at) = self.clash(name, range, depth) {
            let e = &self.entries[at as usize];
            let name = match (range, e.range) {
                // The exact name the new range would declare again.
                (Some(_), None) => e.name,
                _ => name,
            };
            return Err(Redeclared {
                name,
                first: &e.decl,
            });
        }
        let at = self.entries.len() as u32;
        let mut hidden = NONE;
        if range.is_some() {
            self.update_prefix(name, |p| hidden = std::mem::replace(&mut p.range, at));
        } else {
            hidden = self.exact.insert(name, at).unwrap_or(NONE);
            match split_index(name) {
                Some((prefix, _)) if hidden == NONE => self.update_prefix(prefix, |p| p.exact += 1),
                _ => {}
            }
        }
        self.entries.push(Entry {
            name,
            decl,
            range,
            depth,
            first: self.next_number,
            hidden,
        });
        self.next_number += u64::from(range.unwrap_or(1));
        Ok(())
    }

    /// The entry in the scope at `depth` that declares a name `name<range>` also declares.
    fn clash(&self, name: &str, range: Option<u32>, depth: u32) -> Option<u32> {
        let here = |at: u32| {
            let e = self.entries.get(at as usize)?;
            (e.depth == depth).then_some(at)
        };
        match range {
            None => {
                let exact = self.exact.get(name).and_then(|&at| here(at));
                exact.or_else(|| {
                    let (prefix, index) = split_index(name)?;
                    let range = self.prefixes.get(prefix)?.range;
                    let (at, _) = self.range_member(range, index)?;
                    here(at)
                })
            }
            Some(n) => {
                let same = self.prefixes.get(name).and_then(|p| here(p.range));
                // An exact `%r3` of this scope, for a new `%r<5>`.
                let mark = self.marks.last().copied().unwrap_or(0);
                same.or_else(|| {
                    let member = self.entries[mark..].iter().position(|e| {
                        e.range.is_none()
                            && split_index(e.name)
                                .is_some_and(|(p, i)| p == name && i < u64::from(n))
                    })?;
                    Some((mark + member) as u32)
                })
            }
        }
    }

    /// The innermost range from entry `at` out that has a member `index`: its entry and
    /// index.
    fn range_member(&self, mut at: u32, index: u64) -> Option<(u32, u32)> {
        while at != NONE {
            let e = &self.entries[at as usize];
            if index < u64::from(e.range.unwrap_or(0)) {
                return Some((at, index as u32));
            }
            at = e.hidden;
        }
        None
    }

    /// The declaration `name` (without a dotted suffix) refers to, innermost first.
    pub fn get(&self, name: &str) -> Option<Found<'_, D>> {
        let exact = || self.exact.get(name).map(|&at| (at, None));
        let prefix = split_index(name).and_then(|(p, i)| Some((self.prefixes.get(p)?, i)));
        let found = match prefix {
            Some((p, index)) => {
                let member = self
                    .range_member(p.range, index)
                    .map(|(at, i)| (at, Some(i)));
                match (member, p.exact) {
                    (member, 0) => member,
                    (None, _) => exact(),
                    // Both an exact `%r12` and a range's: the inner one.
                    (Some(m), _) => match exact() {
                        Some(e) if self.depth(e.0) > self.depth(m.0) => Some(e),
                        _ => Some(m),
                    },
                }
            }
            None => exact(),
        };
        found.map(|(at, index)| {
            let e = &self.entries[at as usize];
            Found {
                decl: &e.decl,
                number: e.first + u64::from(index.unwrap_or(0)),
            }
        })
    }

    fn depth(&self, at: u32) -> u32 {
        self.entries[at as usize].depth
    }

    /// The size of the innermost range named `prefix`, for messages about its members.
    pub fn range_of(&self, prefix: &str) -> Option<u32> {
        let at = self.prefixes.get(prefix)?.range;
        self.entries.get(at as usize)?.range
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &Scopes<'_, &'static str>, name: &str) -> Option<(&'static str, u64)> {
        s.get(name).map(|f| (*f.decl, f.number))
    }

    #[test]
    fn exact_names_and_ranges_resolve_innermost_first() {
        let mut s = Scopes::default();
        s.push();
        assert!(s.declare("%r", Some(10), "outer range").is_ok());
        assert!(s.declare("%x", None, "outer x").is_ok());
        // `%r` itself is a different name from the range's `%r0` .. `%r9`.
        assert!(s.declare("%r", None, "exact r").is_ok());
        assert_eq!(at(&s, "%r7"), Some(("outer range", 7)));
        assert_eq!(at(&s, "%x"), Some(("outer x", 10)));
        assert_eq!(at(&s, "%r"), Some(("exact r", 11)));
        assert_eq!(at(&s, "%r10"), None);
        assert_eq!(at(&s, "%r07"), None, "names are strings: %r07 is not %r7");
        s.push();
        assert!(s.declare("%r", Some(2), "inner range").is_ok());
        assert!(s.declare("%x", None, "inner x").is_ok());
        assert_eq!(at(&s, "%r1"), Some(("inner range", 12 + 1)));
        // The inner range hides only its own members.
        assert_eq!(at(&s, "%r7"), Some(("outer range", 7)));
        assert_eq!(at(&s, "%x"), Some(("inner x", 14)));
        assert!(s.pop());
        assert_eq!(at(&s, "%r1"), Some(("outer range", 1)));
        assert_eq!(at(&s, "%x"), Some(("outer x", 10)));
        // Numbers are not reused after a scope closes.
        s.push();
        assert!(s.declare("%y", None, "y").is_ok());
        assert_eq!(at(&s, "%y"), Some(("y", 15)));
        assert!(s.pop());
        s.push();
        assert!(!s.pop());
        assert!(s.pop());
        assert_eq!(at(&s, "%r1"), None);
    }

    #[test]
    fn an_exact_indexed_name_and_a_range_member_resolve_by_depth() {
        let mut s = Scopes::default();
        s.push();
        assert!(s.declare("%r3", None, "outer r3").is_ok());
        s.push();
        assert!(s.declare("%r", Some(5), "inner range").is_ok());
        assert_eq!(at(&s, "%r3").unwrap().0, "inner range");
        s.push();
        assert!(s.declare("%r3", None, "innermost r3").is_ok());
        assert_eq!(at(&s, "%r3").unwrap().0, "innermost r3");
        s.pop();
        s.pop();
        assert_eq!(at(&s, "%r3").unwrap().0, "outer r3");
        s.pop();
        assert_eq!(at(&s, "%r3"), None);
    }

    #[test]
    fn a_name_declared_twice_in_one_scope_is_refused() {
        let mut s = Scopes::default();
        s.push();
        assert!(s.declare("%r", Some(5), "range").is_ok());
        let e = s.declare("%r3", None, "r3").err().unwrap();
        assert_eq!((e.name, *e.first), ("%r3", "range"));
        assert!(s.declare("%r5", None, "r5").is_ok(), "past the range's end");
        assert!(s.declare("%q", None, "q").is_ok());
        let e = s.declare("%q", None, "q again").err().unwrap();
        assert_eq!((e.name, *e.first), ("%q", "q"));
        assert!(s.declare("%p7", None, "p7").is_ok());
        let e = s.declare("%p", Some(8), "p range").err().unwrap();
        assert_eq!((e.name, *e.first), ("%p7", "p7"));
        let e = s.declare("%r", Some(2), "range again").err().unwrap();
        assert_eq!((e.name, *e.first), ("%r", "range"));
        // An inner scope may declare them all again.
        s.push();
        assert!(s.declare("%r3", None, "inner r3").is_ok());
        assert!(s.declare("%p", Some(8), "inner p").is_ok());
        assert!(s.declare("%q", None, "inner q").is_ok());
        assert_eq!(s.range_of("%p"), Some(8));
    }

    /// The rules as the module comment states them, over a list of scopes searched in
    /// order: what `Scopes` must agree with.
    /// A declaration: (name, range, id, first number).
    type Declared = (String, Option<u32>, u32, u64);

    #[derive(Default)]
    struct Reference {
        scopes: Vec<Vec<Declared>>,
        next_number: u64,
    }

    impl Reference {
        fn declare(&mut self, name: &str, range: Option<u32>, id: u32) -> bool {
            let member = |exact: &str, prefix: &str, n: u32| {
                split_index(exact).is_some_and(|(p, i)| p == prefix && i < u64::from(n))
            };
            let scope = self.scopes.last_mut().unwrap();
            let clash = scope.iter().any(|(other, r, ..)| match (range, *r) {
                (None, None) | (Some(_), Some(_)) => other == name,
                (None, Some(n)) => member(name, other, n),
                (Some(n), None) => member(other, name, n),
            });
            if !clash {
                scope.push((name.to_string(), range, id, self.next_number));
                self.next_number += u64::from(range.unwrap_or(1));
            }
            !clash
        }

        /// (id, number) of what `name` refers to.
        fn get(&self, name: &str) -> Option<(u32, u64)> {
            let mut exact = None;
            let mut member = None;
            for (depth, scope) in self.scopes.iter().enumerate().rev() {
                for (other, range, id, first) in scope {
                    match *range {
                        None if other == name && exact.is_none() => {
                            exact = Some((depth, (*id, *first)))
                        }
                        Some(n) if member.is_none() => {
                            if let Some((p, i)) = split_index(name) {
                                if p == other && i < u64::from(n) {
                                    member = Some((depth, (*id, first + i)));
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            match (exact, member) {
                (Some(e), Some(m)) if e.0 > m.0 => Some(e.1),
                (_, Some(m)) => Some(m.1),
                (e, None) => e.map(|e| e.1),
            }
        }
    }

    #[derive(Debug, Clone)]
    enum Step {
        Push,
        Pop,
        Declare(usize, Option<u32>),
        Get(usize),
    }

    const NAMES: &[&str] = &["%r", "%r1", "%r3", "%r12", "%q", "%q0", "x", "x2", "%r01"];

    fn step() -> impl proptest::strategy::Strategy<Value = Step> {
        use proptest::prelude::*;
        let name = 0..NAMES.len();
        prop_oneof![
            1 => Just(Step::Push),
            1 => Just(Step::Pop),
            3 => (name.clone(), proptest::option::of(0u32..15)).prop_map(|(n, r)| Step::Declare(n, r)),
            5 => name.prop_map(Step::Get),
        ]
    }

    proptest::proptest! {
        /// Random declarations, scopes and lookups agree with the reference.
        #[test]
        fn agrees_with_a_list_of_scopes(steps in proptest::collection::vec(step(), 1..80)) {
            let mut s = Scopes::default();
            let mut r = Reference::default();
            s.push();
            r.scopes.push(Vec::new());
            for (id, step) in steps.into_iter().enumerate() {
                match step {
                    Step::Push => {
                        s.push();
                        r.scopes.push(Vec::new());
                    }
                    Step::Pop if r.scopes.len() > 1 => {
                        let declared = !r.scopes.pop().unwrap().is_empty();
                        proptest::prop_assert_eq!(s.pop(), declared);
                    }
                    Step::Pop => {}
                    Step::Declare(n, range) => {
                        let ok = s.declare(NAMES[n], range, id as u32).is_ok();
                        proptest::prop_assert_eq!(ok, r.declare(NAMES[n], range, id as u32));
                    }
                    Step::Get(n) => {
                        let got = s.get(NAMES[n]).map(|f| (*f.decl, f.number));
                        proptest::prop_assert_eq!(got, r.get(NAMES[n]), "{}", NAMES[n]);
                    }
                }
            }
        }
    }
}
