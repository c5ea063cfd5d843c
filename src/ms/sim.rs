//! The master loop of seed 004 §3.3.2 in integer ticks, with a binary heap
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

use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;

/// A per-task cost in ticks: one value for every task, or one per task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PerTask {
    /// The same for every task.
    Uniform(u128),
    /// Indexed by row-major task number.
    Each(Vec<u128>),
}

impl PerTask {
    #[inline]
    fn get(&self, i: usize) -> u128 {
        match self {
            PerTask::Uniform(v) => *v,
            PerTask::Each(v) => v[i],
        }
    }

    /// The sum over `n` tasks, if it fits.
    pub fn sum(&self, n: usize) -> Option<u128> {
        match self {
            PerTask::Uniform(v) => v.checked_mul(n as u128),
            PerTask::Each(v) => v.iter().try_fold(0u128, |a, &x| a.checked_add(x)),
        }
    }
}

/// Everything the loop needs, in integer ticks (`1/ticks_per_s` seconds;
/// the tick is chosen so that every cost is an integer).
#[derive(Debug, Clone)]
pub struct Costs<'a> {
    /// Task time numerators, row-major; task `i` takes `time[i]·mult[s]` ticks on slave `s`.
    pub time: &'a [u128],
    /// Per-slave multipliers (slave `s` at index `s − 1`); a single entry applies to all.
    pub mult: Vec<u128>,
    /// `k_in·G` per task.
    pub k_in: PerTask,
    /// `k_out·G` per task.
    pub k_out: PerTask,
    /// L.
    pub l: u128,
    /// o = o0 + o1·P.
    pub o0: u128,
    /// See `o0`.
    pub o1: u128,
    /// Whether P1 charges the receive overhead `o`.
    pub p1_recv: bool,
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

impl Costs<'_> {
    #[inline]
    fn mult(&self, s: usize) -> u128 {
        if self.mult.len() == 1 {
            self.mult[0]
        } else {
            self.mult[s]
        }
    }
}

/// Simulates the master loop with `procs − 1` slaves, tasks taken in
/// `order` (row-major task numbers; `None` for row-major). The caller
/// ensures `procs ≥ 2`, enough multipliers, and that the serial sum of all
/// costs fits 128 bits (no tick overflows then).
pub fn simulate(c: &Costs<'_>, order: Option<&[u32]>, procs: u64) -> Run {
    let slaves = usize::try_from(procs.saturating_sub(1)).unwrap_or(usize::MAX);
    let o = c.o0 + c.o1 * u128::from(procs);
    let recv = if c.p1_recv { o } else { 0 };
    let fixed = 2 * c.l + 4 * o;
    let n = c.time.len();
    let task = |k: usize| order.map_or(k, |ord| ord[k] as usize);
    let mut slave_busy = vec![0u128; slaves.min(n)];
    let mut slave_tasks = vec![0u32; slaves.min(n)];
    let mut master_busy: u128 = 0;
    let mut heap: BinaryHeap<Reverse<(u128, u32)>> = BinaryHeap::with_capacity(slaves.min(n));
    let mut t: u128 = 0;
    let mut next = 0;
    // Dispatch one task to slave s at t; returns the master's O1.
    let dispatch = |t: u128, s: usize, i: usize, busy: &mut [u128], count: &mut [u32]| {
        let work = c.time[i] * c.mult(s);
        busy[s] += work;
        count[s] += 1;
        let k_in = c.k_in.get(i);
        (t + fixed + k_in + work + c.k_out.get(i), 2 * o + k_in)
    };
    for s in 0..slaves.min(n) {
        let (arrive, o1) = dispatch(t, s, task(next), &mut slave_busy, &mut slave_tasks);
        next += 1;
        heap.push(Reverse((arrive, s as u32)));
        t += o1;
        master_busy += o1;
    }
    let mut queued = 0u64;
    while let Some(mut top) = heap.peek_mut() {
        let Reverse((e, s)) = *top;
        if e < t {
            queued += 1;
        }
        t = t.max(e) + recv;
        master_busy += recv;
        if next < n {
            let (arrive, o1) = dispatch(t, s as usize, task(next), &mut slave_busy, &mut slave_tasks);
            next += 1;
            *top = Reverse((arrive, s));
            t += o1;
            master_busy += o1;
        } else {
            PeekMut::pop(top);
        }
    }
    Run { procs, time: t, master_busy, slave_busy, slave_tasks, queued, events: n as u64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn costs(time: &[u128], l: u128, o0: u128, o1: u128, k_in: u128, k_out: u128) -> Costs<'_> {
        Costs {
            time,
            mult: vec![1],
            k_in: PerTask::Uniform(k_in),
            k_out: PerTask::Uniform(k_out),
            l,
            o0,
            o1,
            p1_recv: true,
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
        let r = simulate(&Costs { p1_recv: false, ..c }, None, 3);
        assert_eq!(r.time, 30_720);
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
