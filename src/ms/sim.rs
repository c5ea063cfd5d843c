//! The master loop of Mizutani, Ino and Hagihara (section 3.3.2) in integer ticks, with a binary heap
//! as the event queue Q_E (the paper shifts events into a sorted list and
//! spends most of its time there, its Fig. 7).
//!
//! ```text
//! O1 = 2o + k_in·G                      the master's work to dispatch a task
//! O2 = 2L + T·r_s + 2o + k_out·G        dispatch to the result's arrival
//! t = 0; the first P − 1 tasks go to slaves 1..P−1: push(t + O1 + O2, s); t += O1
//! while Q_E is not empty:
//!   (P1) (e, s) = earliest result (ties: lowest slave); t = max(t, e) + o_recv
//!   (P2) if a task T is left:
//!   (P3)   push(t + O1 + O2(T, s), s); t += O1
//! run time = t
//! ```
//!
//! `o_recv` is `o` (the paper's "receive overhead" in P1) or 0 for the
//! variant whose O1 already counts both overheads of a task's messages.

use num_traits::{AsPrimitive, PrimInt};
use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;

/// Most bits of an event key that hold the slave (P ≤ 2^24).
pub const SLAVE_BITS: u32 = 24;

/// The bits an event key needs for the slave numbers of `max_procs`
/// processors; the arrival time sits above them, so one integer comparison
/// orders events by time, then by slave.
pub fn slave_bits(max_procs: u64) -> u32 {
    (64 - max_procs.saturating_sub(1).leading_zeros()).clamp(1, SLAVE_BITS)
}

/// A per-task cost in ticks: one value for every task, or a borrowed
/// 128-bit column times a factor. The columns stay 128-bit and are
/// narrowed as they are read, so a 2^25-task grid is never copied (each
/// copy of a column would cost 16 bytes a task).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PerTask<'a, T> {
    /// The same for every task.
    Uniform(T),
    /// `column[i] · factor`, indexed by row-major task number.
    Each(&'a [u128], T),
}

impl<T: PrimInt + 'static> PerTask<'_, T>
where
    u128: AsPrimitive<T>,
{
    #[inline]
    fn get(&self, i: usize) -> T {
        match self {
            PerTask::Uniform(v) => *v,
            PerTask::Each(col, f) => col[i].as_() * *f,
        }
    }

    /// The sum over `n` tasks, if it and every term fit `T`.
    pub fn sum(&self, n: usize) -> Option<T> {
        match self {
            PerTask::Uniform(v) => v.checked_mul(&T::from(n)?),
            PerTask::Each(col, f) => {
                col.iter().try_fold(T::zero(), |a, &x| a.checked_add(&T::from(x)?.checked_mul(f)?))
            }
        }
    }
}

impl<'a> PerTask<'a, u128> {
    /// The same costs with a narrower factor (the column is shared), if
    /// the factor fits. The caller checks that every product fits `U`.
    pub fn to<U: PrimInt + 'static>(&self) -> Option<PerTask<'a, U>> {
        Some(match self {
            PerTask::Uniform(v) => PerTask::Uniform(U::from(*v)?),
            PerTask::Each(col, f) => PerTask::Each(col, U::from(*f)?),
        })
    }
}

/// Everything the loop needs, in integer ticks (`1/ticks_per_s` seconds;
/// the tick is chosen so that every cost is an integer). `T` is `u64` when
/// every time fits 40 bits (faster), else `u128`; the task columns are the
/// 128-bit numerators either way, narrowed as they are read.
#[derive(Debug, Clone)]
pub struct Costs<'a, T> {
    /// Task time numerators, row-major; task `i` takes `time[i]·mult[s]` ticks on slave `s`.
    pub time: &'a [u128],
    /// Per-slave multipliers (slave `s` at index `s − 1`); a single entry applies to all.
    pub mult: Vec<T>,
    /// `k_in·G` per task.
    pub k_in: PerTask<'a, T>,
    /// `k_out·G` per task.
    pub k_out: PerTask<'a, T>,
    /// L.
    pub l: T,
    /// o = o0 + o1·P.
    pub o0: T,
    /// See `o0`.
    pub o1: T,
    /// Whether P1 charges the receive overhead `o`.
    pub p1_recv: bool,
    /// Low bits of an event key that hold the slave ([`slave_bits`]).
    pub slave_bits: u32,
}

/// One simulated run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// Processors, the master included.
    pub procs: u64,
    /// Predicted run time (ticks).
    pub time: u128,
    /// Ticks the master spent dispatching (O1) and receiving (o).
    pub master_busy: u128,
    /// Per slave, ticks spent computing tasks (`T·r_s`).
    pub slave_busy: Vec<u128>,
    /// Per slave, tasks run.
    pub slave_tasks: Vec<u32>,
    /// Results the master found already waiting in P1 (events earlier than
    /// its clock): the paper's R_b > 0, slaves idling on the master.
    pub queued: u64,
    /// Events processed (one per task).
    pub events: u64,
}

impl<T: PrimInt + 'static> Costs<'_, T> {
    #[inline]
    fn mult(&self, s: usize) -> T {
        if self.mult.len() == 1 {
            self.mult[0]
        } else {
            self.mult[s]
        }
    }
}

impl<'a> Costs<'a, u128> {
    /// The same costs in another integer type (sharing the task columns),
    /// if every scalar fits. The caller checks that every sum of costs
    /// fits `U` (see [`simulate`]); then every column value does too.
    pub fn to<U: PrimInt + 'static>(&self) -> Option<Costs<'a, U>> {
        Some(Costs {
            time: self.time,
            mult: self.mult.iter().map(|&x| U::from(x)).collect::<Option<Vec<U>>>()?,
            k_in: self.k_in.to()?,
            k_out: self.k_out.to()?,
            l: U::from(self.l)?,
            o0: U::from(self.o0)?,
            o1: U::from(self.o1)?,
            p1_recv: self.p1_recv,
            slave_bits: self.slave_bits,
        })
    }
}

/// Simulates the master loop with `procs − 1` slaves, tasks taken in
/// `order` (row-major task numbers; `None` for row-major). The caller
/// ensures `2 ≤ procs ≤ 2^slave_bits`, enough multipliers, and that the
/// serial sum of all costs fits `T` with `slave_bits` to spare (no tick
/// overflows then).
pub fn simulate<T: PrimInt + 'static>(c: &Costs<'_, T>, order: Option<&[u32]>, procs: u64) -> Run
where
    u128: AsPrimitive<T>,
{
    let slaves = usize::try_from(procs.saturating_sub(1)).unwrap_or(usize::MAX);
    let p = T::from(procs).unwrap_or_else(T::zero);
    let two = T::one() + T::one();
    let four = two + two;
    let o = c.o0 + c.o1 * p;
    let recv = if c.p1_recv { o } else { T::zero() };
    let fixed = two * c.l + four * o;
    let bits = c.slave_bits as usize;
    let mask = (T::one() << bits) - T::one();
    let n = c.time.len();
    let task = |k: usize| order.map_or(k, |ord| ord[k] as usize);
    let used = slaves.min(n);
    let mut slave_busy = vec![T::zero(); used];
    let mut slave_tasks = vec![0u32; used];
    let mut master_busy = T::zero();
    // Event keys: arrival << bits | slave, smallest first.
    let mut heap: BinaryHeap<Reverse<T>> = BinaryHeap::with_capacity(used);
    let mut t = T::zero();
    let mut next = 0;
    // Dispatches task i to slave s at t: the result's key and the master's O1.
    let dispatch = |t: T, s: usize, i: usize, busy: &mut [T], count: &mut [u32]| {
        let work = c.time[i].as_() * c.mult(s);
        busy[s] = busy[s] + work;
        count[s] += 1;
        let k_in = c.k_in.get(i);
        let arrive = t + fixed + k_in + work + c.k_out.get(i);
        ((arrive << bits) | T::from(s).unwrap_or_else(T::zero), two * o + k_in)
    };
    for s in 0..used {
        let (key, o1) = dispatch(t, s, task(next), &mut slave_busy, &mut slave_tasks);
        next += 1;
        heap.push(Reverse(key));
        t = t + o1;
        master_busy = master_busy + o1;
    }
    let mut queued = 0u64;
    while let Some(mut top) = heap.peek_mut() {
        let Reverse(key) = *top;
        let e = key >> bits;
        let s = (key & mask).to_usize().unwrap_or(0);
        if e < t {
            queued += 1;
        }
        t = t.max(e) + recv;
        master_busy = master_busy + recv;
        if next < n {
            let (key, o1) = dispatch(t, s, task(next), &mut slave_busy, &mut slave_tasks);
            next += 1;
            *top = Reverse(key);
            t = t + o1;
            master_busy = master_busy + o1;
        } else {
            PeekMut::pop(top);
        }
    }
    let wide = |x: T| x.to_u128().unwrap_or(u128::MAX);
    Run {
        procs,
        time: wide(t),
        master_busy: wide(master_busy),
        slave_busy: slave_busy.into_iter().map(wide).collect(),
        slave_tasks,
        queued,
        events: n as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn costs(time: &[u128], l: u128, o0: u128, o1: u128, k_in: u128, k_out: u128) -> Costs<'_, u128> {
        Costs {
            time,
            mult: vec![1],
            k_in: PerTask::Uniform(k_in),
            k_out: PerTask::Uniform(k_out),
            l,
            o0,
            o1,
            p1_recv: true,
            slave_bits: SLAVE_BITS,
        }
    }

    #[test]
    fn the_issues_hand_check_gives_32780_ns() {
        // Three tasks of 1000 ns, P = 3, L = 5000, o = 1000 + 10·P, G = 10 ns/B, k_in = 16 B, k_out = 8 B.
        // O1 = 2·1030 + 160 = 2220; O2 = 10000 + 1000 + 2060 + 80 = 13140.
        // s1: 0 + 15360; s2: 2220 + 15360 = 17580; t = 4440.
        // pop s1 at 15360: t = 16390, push 16390 + 15360 = 31750, t = 18610.
        // pop s2 at 17580: t = 19640.  pop s1 at 31750: t = 32780.
        let c = costs(&[1000, 1000, 1000], 5000, 1000, 10, 160, 80);
        let r = simulate(&c, None, 3);
        assert_eq!(r.time, 32_780);
        assert_eq!(r.slave_tasks, vec![2, 1]);
        assert_eq!(r.slave_busy, vec![2000, 1000]);
        assert_eq!(r.master_busy, 3 * 2220 + 3 * 1030);
        assert_eq!(r.events, 3);
        // Without the receive overhead in P1: t = 4440; 15360 → push 15360+15360=30720, t = 17580;
        // 17580 → t = 17580; 30720 → t = 30720.
        let r = simulate(&Costs { p1_recv: false, ..c.clone() }, None, 3);
        assert_eq!(r.time, 30_720);
        // The narrow key type gives the same run.
        assert_eq!(simulate(&c.to::<u64>().unwrap(), None, 3), simulate(&c, None, 3));
    }

    #[test]
    fn one_slave_runs_everything_in_sequence() {
        // o = 1, L = 2, no bytes: O1 = 2, O2 = 4 + T + 2; each task: dispatch at t, arrive t + 8 + T, recv +1.
        let c = costs(&[10, 20, 30], 2, 1, 0, 0, 0);
        let r = simulate(&c, None, 2);
        // t: 0 → dispatch (arrive 18), t = 2; recv → 19, dispatch (arrive 19 + 28 = 47), t = 21;
        // recv → 48, dispatch (arrive 48 + 38 = 86), t = 50; recv → 87.
        assert_eq!(r.time, 87);
        assert_eq!(r.slave_busy, vec![60]);
        assert_eq!(r.queued, 0);
    }

    #[test]
    fn ties_go_to_the_lowest_slave_and_order_is_followed() {
        // No overheads at all: both slaves finish at 5; slave 1 gets task 3.
        let c = costs(&[5, 5, 7], 0, 0, 0, 0, 0);
        let r = simulate(&c, None, 3);
        assert_eq!(r.slave_tasks, vec![2, 1]);
        assert_eq!(r.slave_busy, vec![12, 5]);
        assert_eq!(r.time, 12);
        // The long task first: slave 1 takes 7, slave 2 both fives.
        let r = simulate(&c, Some(&[2, 0, 1]), 3);
        assert_eq!(r.slave_busy, vec![7, 10]);
        assert_eq!(r.time, 10);
    }

    #[test]
    fn more_slaves_than_tasks_and_no_tasks() {
        let c = costs(&[4], 1, 1, 0, 0, 0);
        let r = simulate(&c, None, 64);
        assert_eq!(r.slave_busy.len(), 1);
        assert_eq!(r.time, 11); // arrives at O1 + O2 = 2 + (2 + 4 + 2) = 10, received at 11
        let empty = costs(&[], 1, 1, 0, 0, 0);
        assert_eq!(simulate(&empty, None, 8).time, 0);
    }
}
