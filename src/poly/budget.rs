//! A budget of work for the enumerations whose size the input does not
//! bound: the double description (vertices of a region in many
//! dimensions), Fourier–Motzkin steps and the cylindrical form built from
//! them. A degree-7 polynomial's 8-dimensional region took minutes to list
//! while its bands are two LPs per point.
//!
//! The budget counts work in units of about one machine word of exact
//! arithmetic (an adjacency test over a few words, a product of two long
//! integers), not time: whether a region is listed is the same on every
//! machine and at every load, so outputs stay byte-identical. The caller
//! ([`crate::qe::solve`]) fixes the budget before it enumerates, from
//! `--max-vertices`, and installs it for the work it starts; work done with
//! no budget installed is not counted.
//!
//! When the budget runs out, the counted steps stop changing anything (a
//! double-description step keeps the cone it had, a Fourier–Motzkin step
//! drops the rows it would have combined): what is built from then on is
//! wrong but cheap, and the caller, seeing [`spent`], discards all of it.
//! Whether it runs out depends only on the total work, which does not
//! depend on the order parallel parts run in.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A shared amount of work left.
#[derive(Debug)]
pub struct Budget {
    left: AtomicU64,
}

impl Budget {
    /// A budget of `units`.
    pub fn new(units: u64) -> Arc<Budget> {
        Arc::new(Budget { left: AtomicU64::new(units) })
    }

    /// Whether all of it is used.
    pub fn is_spent(&self) -> bool {
        self.left.load(Ordering::Relaxed) == 0
    }

    fn charge(&self, units: u64) {
        // Saturating: once at zero it stays there.
        let _ =
            self.left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |l| Some(l.saturating_sub(units)));
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Budget>>> = const { RefCell::new(None) };
}

/// The budget installed on this thread, to install it again on the
/// threads a parallel part runs on ([`within`]).
pub fn current() -> Option<Arc<Budget>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Runs `f` with `budget` installed on this thread (none: uncounted), and
/// restores what was installed before. A parallel part runs its items each
/// `within` the caller's budget and waits for them `within(None, ..)`: a
/// thread that waits on rayon may run any job it steals, and another
/// analysis' job must neither count against this budget nor, once it is
/// spent, see its steps skipped.
pub fn within<R>(budget: Option<Arc<Budget>>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Arc<Budget>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = before);
        }
    }
    let before = CURRENT.with(|c| std::mem::replace(&mut *c.borrow_mut(), budget));
    let _restore = Restore(before);
    f()
}

/// Counts `units` of work against the installed budget; false when it is
/// spent (then the caller skips the step). Always true with no budget.
pub fn charge(units: u64) -> bool {
    CURRENT.with(|c| match &*c.borrow() {
        Some(b) => {
            if b.is_spent() {
                return false;
            }
            b.charge(units);
            true
        }
        None => true,
    })
}

/// Whether the installed budget is spent (false with none).
pub fn spent() -> bool {
    CURRENT.with(|c| c.borrow().as_ref().is_some_and(|b| b.is_spent()))
}

/// Machine words of an integer of `bits` bits, at least one: the unit of
/// the counts.
pub fn words(bits: u64) -> u64 {
    bits / 64 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_is_counted_where_installed_and_restored_after() {
        assert!(charge(u64::MAX) && !spent(), "no budget: nothing counted");
        let b = Budget::new(10);
        within(Some(b.clone()), || {
            assert!(charge(4) && !spent());
            // Nested: another budget, then back.
            within(Some(Budget::new(1)), || {
                assert!(charge(5));
                assert!(spent() && !charge(1));
            });
            assert!(!spent());
            assert!(charge(7), "the step that crosses the budget still runs");
            assert!(spent() && !charge(1));
        });
        assert!(b.is_spent());
        assert!(current().is_none() && !spent());
    }
}
