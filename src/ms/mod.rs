//! Master/slave run-time predictor (Mizutani, Ino and Hagihara; docs/methods.md \[M\]): predict a
//! master/slave program's run time for many processor counts from the
//! measured times of a sub-grid of its tasks.
//!
//! 1. **Partial execution** gives times on a sub-grid `I_s1 × … × I_sN`
//!    ([`crate::data::tasks::read_tasks`]).
//! 2. **Interpolation** ([`interp`]) estimates every other task, exactly.
//! 3. **Simulation** ([`sim`]) replays the master loop with LogGP costs for
//!    each processor count P (the master included: P − 1 slaves).
//!
//! Everything is exact: all costs are turned into integer *ticks* of one
//! common unit (`1/ticks_per_s` seconds, the least common multiple of every
//! denominator: the times' decimals, the interpolation's gaps, the speed
//! ratios and the LogGP parameters), so the simulation adds and compares
//! 128-bit integers and its results are exact rationals.
//!
//! Because the sampled subset is a pruning choice, [`compare_subsets`]
//! predicts with regular sub-grids of a fully measured workload and
//! reports each one's error against the full prediction with the paper's
//! explanation by the total task-time deficit (section 4.2, eq. 2–3).

pub mod args;
pub mod interp;
pub mod mandelbrot;
pub mod sim;
#[cfg(test)]
mod tests;

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};
use rayon::prelude::*;

use crate::data::tasks::{grid_text, ExactColumn, SampledGrid};
use crate::num::{self, Rat};
use crate::units::{parse_quantity, Dim};
pub use sim::{PerTask, Run};

/// Why no prediction can be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MsError {
    /// Bad options or values (exit code 2).
    #[error("{0}")]
    Input(String),
    /// Exact integer simulation is impossible for these values (exit code 1).
    #[error("{0}")]
    Limit(String),
}

/// Every task's inputs, exact, row-major over the grid.
#[derive(Debug, Clone)]
pub struct Tasks {
    /// The grid's extent per dimension.
    pub grid: Vec<u32>,
    /// How many tasks were measured.
    pub sampled: usize,
    /// Task times: numerators and seconds per unit of numerator.
    pub time: Scaled,
    /// Bytes sent to each task, when the task file has them.
    pub k_in: Option<Scaled>,
    /// Bytes of each task's result, when the task file has them.
    pub k_out: Option<Scaled>,
}

/// Nonnegative exact values: `num[i] · unit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scaled {
    /// One numerator per task.
    pub num: Vec<u128>,
    /// The base unit (seconds, bytes) per unit of numerator.
    pub unit: Rat,
}

impl Scaled {
    /// The sum of all values in the base unit.
    pub fn total(&self) -> Rat {
        Rat::from_integer(sum_u128(&self.num)) * &self.unit
    }
    /// The largest value in the base unit.
    pub fn max(&self) -> Rat {
        Rat::from_integer(BigInt::from(self.num.iter().copied().max().unwrap_or(0))) * &self.unit
    }
    /// The mean value in the base unit.
    pub fn mean(&self) -> Rat {
        if self.num.is_empty() {
            return Rat::zero();
        }
        self.total() / Rat::from_integer(BigInt::from(self.num.len()))
    }
}

/// The exact sum of 128-bit values.
fn sum_u128(xs: &[u128]) -> BigInt {
    let mut total = BigInt::zero();
    let mut acc: u128 = 0;
    for &x in xs {
        match acc.checked_add(x) {
            Some(a) => acc = a,
            None => {
                total += BigInt::from(acc);
                acc = x;
            }
        }
    }
    total + BigInt::from(acc)
}

fn interpolate_column(s: &SampledGrid, c: &ExactColumn) -> Result<Scaled, MsError> {
    let m = interp::scale(&s.axes).unwrap_or(u128::MAX);
    let num = interp::interpolate(&s.grid, &s.axes, &c.num).ok_or_else(|| {
        MsError::Limit(format!(
            "{}: interpolating `{}` to every task overflows exact 128-bit integers (the sub-grid's gaps need a common multiple of {} digits); use a more regular sub-grid or fewer decimals",
            s.file,
            c.name,
            m.to_string().len()
        ))
    })?;
    let unit = &c.unit / Rat::from_integer(BigInt::from(c.den) * BigInt::from(m));
    Ok(Scaled { num, unit })
}

impl Tasks {
    /// Interpolates a measured sub-grid to every task of its grid.
    pub fn interpolate(s: &SampledGrid) -> Result<Tasks, MsError> {
        Ok(Tasks {
            grid: s.grid.clone(),
            sampled: s.len(),
            time: interpolate_column(s, &s.time)?,
            k_in: s.k_in.as_ref().map(|c| interpolate_column(s, c)).transpose()?,
            k_out: s.k_out.as_ref().map(|c| interpolate_column(s, c)).transpose()?,
        })
    }

    /// The number of tasks.
    pub fn len(&self) -> usize {
        self.time.num.len()
    }

    /// True for a grid without tasks (never, for a grid that was read).
    pub fn is_empty(&self) -> bool {
        self.time.num.is_empty()
    }

    /// The total task time A (seconds): the paper's Table 1.
    pub fn total_time(&self) -> Rat {
        self.time.total()
    }
}

/// `a + b·P`, for LogGP's `o` (\[M\] section 3.3.1: the improved model lets the
/// overhead grow with the processor count).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Linear {
    /// The constant part (seconds).
    pub a: Rat,
    /// Seconds per processor.
    pub b: Rat,
}

impl Linear {
    /// The value at `p` processors.
    pub fn at(&self, p: u64) -> Rat {
        &self.a + &self.b * Rat::from_integer(BigInt::from(p))
    }
}

/// LogGP parameters (seconds; `big_g` in seconds per byte).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogGp {
    /// Latency L.
    pub l: Rat,
    /// Overhead o, linear in P.
    pub o: Linear,
    /// Gap g between messages (\[M\]'s O1 and O2 do not use it; see [`Prediction::warnings`]).
    pub g: Rat,
    /// Gap per byte G.
    pub big_g: Rat,
}

fn us(n: i64, d: i64) -> Rat {
    num::frac(n, d * 1_000_000)
}

impl Default for LogGp {
    /// The example: L = 5 µs, o = 1 µs + 0.01 µs·P, g = 1 µs, G = 0.01 µs/B.
    fn default() -> Self {
        LogGp { l: us(5, 1), o: Linear { a: us(1, 1), b: us(1, 100) }, g: us(1, 1), big_g: us(1, 100) }
    }
}

impl LogGp {
    /// Applies `L=5us,o=1us+0.01us*P,g=1us,G=0.01us/B` (any subset, any
    /// order) to `self`; bare numbers are in `unit`.
    pub fn with(mut self, text: &str, unit: &str) -> Result<LogGp, String> {
        for item in text.split(',') {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let Some((key, value)) = item.split_once('=') else {
                return Err(format!("--loggp {item}: expected NAME=VALUE with NAME one of L, o, g, G"));
            };
            let what = format!("--loggp {}", key.trim());
            let value = value.trim();
            let time = |t: &str| -> Result<Rat, String> {
                let v = parse_quantity(t, Dim::Time, unit, &what)?;
                if v.is_negative() {
                    return Err(format!("{what}: {t} is negative"));
                }
                Ok(v)
            };
            match key.trim() {
                "L" => self.l = time(value)?,
                "g" => self.g = time(value)?,
                "G" => {
                    let per =
                        value.strip_suffix("/B").or_else(|| value.strip_suffix("/byte")).unwrap_or(value);
                    self.big_g = time(per.trim())?;
                }
                "o" => self.o = parse_linear(value, &time, &what)?,
                other => {
                    return Err(format!(
                        "--loggp {item}: unknown parameter `{other}` (LogGP has L, o, g and G)"
                    ))
                }
            }
        }
        Ok(self)
    }

    /// `L=5us, o=1us+0.01us*P, g=1us, G=0.01us/B` in `unit`.
    pub fn describe(&self, show: &dyn Fn(&Rat) -> String) -> String {
        let o = if self.o.b.is_zero() {
            show(&self.o.a)
        } else if self.o.a.is_zero() {
            format!("{}*P", show(&self.o.b))
        } else {
            format!("{}+{}*P", show(&self.o.a), show(&self.o.b))
        };
        format!("L={}, o={o}, g={}, G={}/B", show(&self.l), show(&self.g), show(&self.big_g))
    }
}

/// `1us+0.01us*P` (terms in any order; `P*0.01us` also works).
fn parse_linear(
    text: &str,
    time: &dyn Fn(&str) -> Result<Rat, String>,
    what: &str,
) -> Result<Linear, String> {
    let mut out = Linear { a: Rat::zero(), b: Rat::zero() };
    // Split at '+' signs that do not belong to an exponent (1e+3us).
    let mut terms = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        let exponent = i > 0 && matches!(bytes[i - 1], b'e' | b'E') && i > 1 && bytes[i - 2].is_ascii_digit();
        if c == b'+' && !exponent && i > 0 {
            terms.push(&text[start..i]);
            start = i + 1;
        }
    }
    terms.push(&text[start..]);
    for term in terms {
        let term = term.trim();
        let per_p = term
            .strip_suffix("*P")
            .or_else(|| term.strip_suffix("·P"))
            .or_else(|| term.strip_prefix("P*"))
            .map(str::trim);
        match per_p {
            Some(c) => out.b += time(c)?,
            None if term.contains('P') => {
                return Err(format!("{what}: `{term}` is not a time or a time times P (write e.g. 0.01us*P)"))
            }
            None => out.a += time(term)?,
        }
    }
    Ok(out)
}

/// The target machine: LogGP costs, per-slave time ratios and default
/// message sizes.
#[derive(Debug, Clone)]
pub struct Machine {
    /// LogGP parameters.
    pub loggp: LogGp,
    /// Time ratio of slave `s` at index `s − 1` (a task's time there over
    /// its measured time); empty: every slave has `uniform_ratio`.
    pub ratios: Vec<Rat>,
    /// The ratio of every slave when `ratios` is empty.
    pub uniform_ratio: Rat,
    /// Bytes sent with a task, for task files without a `k_in` column.
    pub k_in: Rat,
    /// Bytes of a result, for task files without a `k_out` column.
    pub k_out: Rat,
    /// Whether P1 charges the receive overhead o (the paper's text; see [`sim`]).
    pub p1_recv: bool,
}

impl Default for Machine {
    /// The example: uniform slaves, k_in = 16 B, k_out = 8 B, receive overhead in P1.
    fn default() -> Self {
        Machine {
            loggp: LogGp::default(),
            ratios: Vec::new(),
            uniform_ratio: Rat::one(),
            k_in: num::int(16),
            k_out: num::int(8),
            p1_recv: true,
        }
    }
}

impl Machine {
    /// The mean ratio of slaves `1..=n` (all listed when `n` exceeds them).
    fn mean_ratio(&self, n: usize) -> Rat {
        if self.ratios.is_empty() {
            return self.uniform_ratio.clone();
        }
        let n = n.clamp(1, self.ratios.len());
        self.ratios[..n].iter().fold(Rat::zero(), |a, r| a + r) / Rat::from_integer(BigInt::from(n))
    }
}

/// Converts an exact value to ticks, which must be an integer.
fn ticks(x: &Rat, per_s: &BigInt) -> Option<u128> {
    let t = x * Rat::from_integer(per_s.clone());
    t.is_integer().then(|| t.to_integer().to_u128()).flatten()
}

fn overflow(what: &str) -> MsError {
    MsError::Limit(format!(
        "exact simulation needs every time as an integer number of one common tick; {what} does not fit 128 bits (round the task times or LogGP parameters to fewer decimals)"
    ))
}

/// The costs of a workload on a machine in integer ticks, for processor
/// counts up to `max_procs`.
fn costs<'a>(
    tasks: &'a Tasks,
    m: &Machine,
    max_procs: u64,
) -> Result<(sim::Costs<'a, u128>, BigInt, u128), MsError> {
    let slaves = usize::try_from(max_procs - 1).unwrap_or(usize::MAX);
    if !m.ratios.is_empty() && m.ratios.len() < slaves {
        return Err(MsError::Input(format!(
            "the speeds file lists {} slaves but P = {max_procs} needs {slaves}",
            m.ratios.len()
        )));
    }
    let lg = &m.loggp;
    let bytes_g = |s: &Option<Scaled>, default: &Rat| match s {
        Some(s) => &s.unit * &lg.big_g,
        None => default * &lg.big_g,
    };
    let kin_g = bytes_g(&tasks.k_in, &m.k_in);
    let kout_g = bytes_g(&tasks.k_out, &m.k_out);
    let used: Vec<&Rat> =
        if m.ratios.is_empty() { vec![&m.uniform_ratio] } else { m.ratios[..slaves].iter().collect() };
    let time_units: Vec<Rat> = used.iter().map(|r| &tasks.time.unit * *r).collect();
    let mut per_s = BigInt::one();
    for x in time_units.iter().chain([&kin_g, &kout_g, &lg.l, &lg.o.a, &lg.o.b]) {
        per_s = per_s.lcm(x.denom());
    }
    if per_s.bits() > 120 {
        return Err(overflow("the common tick"));
    }
    let mult: Option<Vec<u128>> = time_units.iter().map(|u| ticks(u, &per_s)).collect();
    let mult = mult.ok_or_else(|| overflow("a slave's time ratio"))?;
    let per_task = |s: &'a Option<Scaled>, unit_g: &Rat| -> Result<PerTask<'a, u128>, MsError> {
        let f = ticks(unit_g, &per_s).ok_or_else(|| overflow("G times a byte count"))?;
        Ok(match s {
            Some(s) => PerTask::Each(&s.num, f),
            None => PerTask::Uniform(f),
        })
    };
    let c = sim::Costs {
        time: &tasks.time.num,
        k_in: per_task(&tasks.k_in, &kin_g)?,
        k_out: per_task(&tasks.k_out, &kout_g)?,
        l: ticks(&lg.l, &per_s).ok_or_else(|| overflow("L"))?,
        o0: ticks(&lg.o.a, &per_s).ok_or_else(|| overflow("o"))?,
        o1: ticks(&lg.o.b, &per_s).ok_or_else(|| overflow("o"))?,
        mult,
        p1_recv: m.p1_recv,
        slave_bits: sim::slave_bits(max_procs),
    };
    // The serial sum of every cost bounds any run's clock and busy times.
    let n = tasks.len() as u128;
    let max_mult = c.mult.iter().copied().max().unwrap_or(0);
    let bound = sum_u128(&tasks.time.num).to_u128().and_then(|s| s.checked_mul(max_mult)).and_then(|s| {
        let o = c.o1.checked_mul(u128::from(max_procs))?.checked_add(c.o0)?;
        let per = c.l.checked_mul(2)?.checked_add(o.checked_mul(5)?)?;
        s.checked_add(c.k_in.sum(tasks.len())?)?
            .checked_add(c.k_out.sum(tasks.len())?)?
            .checked_add(per.checked_mul(n)?)
    });
    // Event keys carry the slave in their low slave_bits bits.
    match bound {
        Some(b) if b < 1u128 << (128 - c.slave_bits) => Ok((c, per_s, b)),
        _ => Err(overflow("the serial run time")),
    }
}

/// One processor count's prediction, exact.
#[derive(Debug, Clone)]
pub struct Point {
    /// Processors, the master included.
    pub procs: u64,
    /// Predicted run time (seconds).
    pub time: Rat,
    /// The master's busy fraction (dispatch and receive overheads over the run time).
    pub master_busy: Rat,
    /// Per slave, the fraction of the run time spent computing tasks.
    pub slave_busy: Vec<Rat>,
    /// Per slave, tasks run.
    pub slave_tasks: Vec<u32>,
    /// Results that waited for the master (it was busy when they arrived).
    pub queued: u64,
    /// Events simulated.
    pub events: u64,
}

impl Point {
    fn from_run(r: Run, per_s: &BigInt) -> Point {
        let secs = |t: u128| Rat::new(BigInt::from(t), per_s.clone());
        let frac =
            |x: u128| if r.time == 0 { Rat::zero() } else { Rat::new(BigInt::from(x), BigInt::from(r.time)) };
        Point {
            procs: r.procs,
            time: secs(r.time),
            master_busy: frac(r.master_busy),
            slave_busy: r.slave_busy.iter().map(|&b| frac(b)).collect(),
            slave_tasks: r.slave_tasks,
            queued: r.queued,
            events: r.events,
        }
    }

    /// Slaves: P − 1.
    pub fn slaves(&self) -> u64 {
        self.procs - 1
    }

    /// The least, mean and largest slave busy fraction (slaves without a task count as 0).
    pub fn slave_busy_summary(&self) -> (Rat, Rat, Rat) {
        let n = self.slaves();
        let idle = n > self.slave_busy.len() as u64;
        let zero = Rat::zero();
        let min =
            if idle { zero.clone() } else { self.slave_busy.iter().min().cloned().unwrap_or_else(Rat::zero) };
        let max = self.slave_busy.iter().max().cloned().unwrap_or(zero);
        let mean = self.slave_busy.iter().fold(Rat::zero(), |a, b| a + b)
            / Rat::from_integer(BigInt::from(n.max(1)));
        (min, mean, max)
    }
}

/// Predictions for a list of processor counts.
#[derive(Debug, Clone)]
pub struct Prediction {
    /// One per processor count, ascending.
    pub points: Vec<Point>,
    /// Total task time A (seconds).
    pub total_time: Rat,
    /// Tasks in the grid.
    pub tasks: usize,
    /// Tasks measured.
    pub sampled: usize,
    /// The longest task time (seconds).
    pub max_task: Rat,
    /// Whether `k_in` and `k_out` came from the task file (else the machine's defaults).
    pub k_from_file: [bool; 2],
    /// Ticks per second of the exact simulation.
    pub ticks_per_s: BigInt,
    /// The estimated slave count from which the master saturates (see [`saturation`]).
    pub saturation: Option<u64>,
    /// The first listed P from which more processors no longer shorten the predicted run time.
    pub flat_from: Option<u64>,
    /// Caveats about the parameters.
    pub warnings: Vec<String>,
}

impl Prediction {
    /// Events simulated over all processor counts.
    pub fn events(&self) -> u64 {
        self.points.iter().map(|p| p.events).sum()
    }
}

/// Checks a list of processor counts: ascending, distinct, each ≥ 2.
pub fn check_procs(procs: &[u64]) -> Result<(), MsError> {
    if procs.is_empty() {
        return Err(MsError::Input("no processor counts given".into()));
    }
    if let Some(p) = procs.iter().find(|&&p| p < 2) {
        return Err(MsError::Input(format!(
            "P = {p}: P counts processors including the master, so it must be at least 2 (one slave)"
        )));
    }
    if procs.windows(2).any(|w| w[0] >= w[1]) {
        return Err(MsError::Input("processor counts must ascend without repeats".into()));
    }
    if let Some(p) = procs.iter().find(|&&p| p > 1 << 24) {
        return Err(MsError::Input(format!("P = {p} exceeds the limit of 2^24 processors")));
    }
    Ok(())
}

/// Predicts the run time at every processor count in `procs` (ascending,
/// each ≥ 2), with tasks allocated in `order` (row-major when `None`).
pub fn predict(
    tasks: &Tasks,
    order: Option<&[u32]>,
    m: &Machine,
    procs: &[u64],
) -> Result<Prediction, MsError> {
    check_procs(procs)?;
    if let Some(o) = order {
        let mut seen = vec![false; tasks.len()];
        let permutation = o.len() == tasks.len()
            && o.iter().all(|&i| seen.get_mut(i as usize).is_some_and(|s| !std::mem::replace(s, true)));
        if !permutation {
            return Err(MsError::Input(format!(
                "the allocation order must list each of the grid's {} tasks once (it has {} entries)",
                tasks.len(),
                o.len()
            )));
        }
    }
    let max_p = procs.last().copied().unwrap_or(2);
    let (c, per_s, bound) = costs(tasks, m, max_p)?;
    // Narrow 64-bit keys when every time fits beside the slave number: about twice as fast.
    let narrow = if bound < 1u128 << (64 - c.slave_bits) { c.to::<u64>() } else { None };
    let runs: Vec<Run> = match &narrow {
        Some(c64) => procs.par_iter().map(|&p| sim::simulate(c64, order, p)).collect(),
        None => procs.par_iter().map(|&p| sim::simulate(&c, order, p)).collect(),
    };
    let points: Vec<Point> = runs.into_iter().map(|r| Point::from_run(r, &per_s)).collect();
    let flat_from = points.windows(2).find(|w| w[1].time >= w[0].time).map(|w| w[0].procs);
    Ok(Prediction {
        total_time: tasks.total_time(),
        tasks: tasks.len(),
        sampled: tasks.sampled,
        max_task: tasks.time.max(),
        k_from_file: [tasks.k_in.is_some(), tasks.k_out.is_some()],
        ticks_per_s: per_s,
        saturation: saturation(tasks, m),
        flat_from,
        warnings: warnings(tasks, m, procs),
        points,
    })
}

/// The mean per-task costs (seconds) at `p` processors: the master's work
/// per task W (O1 plus the receive overhead) and a slave's cycle C (from
/// dispatch to the master having received the result).
fn mean_cycle(m: &Machine, p: u64, mean_t: &Rat, k_in: &Rat, k_out: &Rat) -> (Rat, Rat) {
    let lg = &m.loggp;
    let o = lg.o.at(p);
    let two = num::int(2);
    let recv = if m.p1_recv { o.clone() } else { Rat::zero() };
    let o1 = &two * &o + k_in * &lg.big_g;
    let slaves = usize::try_from(p - 1).unwrap_or(usize::MAX);
    let o2 = &two * &lg.l + mean_t * m.mean_ratio(slaves) + &two * &o + k_out * &lg.big_g;
    let w = &o1 + &recv;
    (w.clone(), w + o2)
}

/// The slave count from which the master saturates: the smallest n with
/// `n·W ≥ C` at P = n + 1, where W is the master's work per task (O1 and
/// the receive overhead) and C a slave's mean cycle (O1 + O2 + receive with
/// the mean task time and the mean ratio of slaves 1..n). Beyond it slaves
/// wait for the master (\[M\] Fig. 6–7: run time and simulation cost
/// stop changing). `None` when no slave count up to the number of tasks
/// saturates it.
pub fn saturation(tasks: &Tasks, m: &Machine) -> Option<u64> {
    let n_tasks = tasks.len() as u64;
    if n_tasks == 0 {
        return None;
    }
    let mean_t = tasks.time.mean();
    let k_in = tasks.k_in.as_ref().map_or_else(|| m.k_in.clone(), Scaled::mean);
    let k_out = tasks.k_out.as_ref().map_or_else(|| m.k_out.clone(), Scaled::mean);
    let saturated = |n: u64| {
        let (w, c) = mean_cycle(m, n + 1, &mean_t, &k_in, &k_out);
        w * Rat::from_integer(BigInt::from(n)) >= c
    };
    if saturated(1) {
        return Some(1);
    }
    // n·W(n+1) − C(n+1) does not decrease with n (o grows with P at most
    // linearly; with per-slave ratios the mean ratio may move, so this is an
    // estimate), so bisect.
    let hi = n_tasks.min(1 << 24);
    if !saturated(hi) {
        return None;
    }
    let (mut lo, mut hi) = (1u64, hi);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if saturated(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

fn warnings(tasks: &Tasks, m: &Machine, procs: &[u64]) -> Vec<String> {
    let mut out = Vec::new();
    let lg = &m.loggp;
    let k_in_min = match &tasks.k_in {
        Some(s) => Rat::from_integer(BigInt::from(s.num.iter().copied().min().unwrap_or(0))) * &s.unit,
        None => m.k_in.clone(),
    };
    if let Some(&p) = procs.first() {
        let o1 = num::int(2) * lg.o.at(p) + &k_in_min * &lg.big_g;
        if lg.g > o1 {
            out.push(format!(
                "g exceeds the master's send overhead O1 = 2o + k_in·G at P = {p}: LogGP's gap would space the master's sends further apart, which Mizutani et al.'s O1 and O2 do not model, so the predictions may be optimistic"
            ));
        }
    }
    out
}

/// A regular sub-grid to compare: its label and sampled count per dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubsetSpec {
    /// As the user wrote it (`1/16`, `256x256`).
    pub label: String,
    /// Sampled indices per dimension (each ≥ 2, at most the grid's extent).
    pub counts: Vec<u32>,
}

/// Parses `1/16` (a fraction of the tasks, split evenly over the
/// dimensions) or `256x256` (counts per dimension) for `grid`.
pub fn parse_subset(text: &str, grid: &[u32]) -> Result<SubsetSpec, String> {
    let t = text.trim();
    let label = t.to_string();
    let counts: Vec<u32> = if let Some(d) = t.strip_prefix("1/") {
        let f: u64 = d
            .trim()
            .parse()
            .map_err(|_| format!("--compare-subsets {t}: expected 1/N or a shape such as 32x32"))?;
        if f == 0 {
            return Err(format!("--compare-subsets {t}: 1/0 is not a fraction"));
        }
        split_fraction(f, grid).ok_or_else(|| {
            format!(
                "--compare-subsets {t}: 1/{f} does not split into whole per-dimension counts of the grid {} (each at least 2); give a shape such as {}",
                grid_text(grid),
                grid.iter().map(|&c| (c / 2).max(2).to_string()).collect::<Vec<_>>().join("x")
            )
        })?
    } else {
        let parts: Vec<&str> = t.split(['x', 'X']).collect();
        if parts.len() != grid.len() {
            return Err(format!(
                "--compare-subsets {t}: expected 1/N or a shape with {} count{} such as {}",
                grid.len(),
                if grid.len() == 1 { "" } else { "s" },
                grid.iter().map(|&c| (c / 4).max(2).to_string()).collect::<Vec<_>>().join("x")
            ));
        }
        let mut out = Vec::new();
        for (p, &c) in parts.iter().zip(grid) {
            let n: u32 =
                p.trim().parse().map_err(|_| format!("--compare-subsets {t}: `{p}` is not a count"))?;
            if n < 2.min(c) || n > c {
                return Err(format!(
                    "--compare-subsets {t}: a count must lie in 2..={c} (both corners sampled)"
                ));
            }
            out.push(n);
        }
        out
    };
    Ok(SubsetSpec { label, counts })
}

/// Splits the reduction factor `f` over the dimensions as evenly as
/// possible, each dimension's extent divisible by its share, each keeping
/// at least 2 indices (or all of a 1-wide dimension).
fn split_fraction(f: u64, grid: &[u32]) -> Option<Vec<u32>> {
    let mut primes = Vec::new();
    let (mut rest, mut p) = (f, 2u64);
    while p * p <= rest {
        while rest % p == 0 {
            primes.push(p);
            rest /= p;
        }
        p += 1;
    }
    if rest > 1 {
        primes.push(rest);
    }
    primes.sort_unstable_by(|a, b| b.cmp(a));
    let mut counts: Vec<u64> = grid.iter().map(|&c| u64::from(c)).collect();
    for p in primes {
        let k = (0..counts.len())
            .filter(|&k| counts[k] % p == 0 && counts[k] / p >= 2)
            .max_by_key(|&k| (counts[k], usize::MAX - k))?;
        counts[k] /= p;
    }
    counts.into_iter().map(|c| u32::try_from(c).ok()).collect()
}

/// `n` indices spread evenly over `0..c`, both ends included: round(j·(c−1)/(n−1)).
pub fn regular_axis(c: u32, n: u32) -> Vec<u32> {
    if n <= 1 || c <= 1 {
        return vec![0];
    }
    let (c1, n1) = (u64::from(c - 1), u64::from(n - 1));
    (0..u64::from(n)).map(|j| ((2 * j * c1 + n1) / (2 * n1)) as u32).collect()
}

/// The sub-grid of a fully measured workload at `axes`.
pub fn sub_sample(full: &SampledGrid, axes: Vec<Vec<u32>>) -> SampledGrid {
    let grid = &full.grid;
    let mut flat: Vec<usize> = vec![0];
    for (k, axis) in axes.iter().enumerate() {
        let c = grid[k] as usize;
        flat = flat.iter().flat_map(|&f| axis.iter().map(move |&i| f * c + i as usize)).collect();
    }
    let pick = |c: &ExactColumn| ExactColumn { num: flat.iter().map(|&f| c.num[f]).collect(), ..c.clone() };
    SampledGrid {
        file: full.file.clone(),
        grid: grid.clone(),
        axes,
        time: pick(&full.time),
        k_in: full.k_in.as_ref().map(pick),
        k_out: full.k_out.as_ref().map(pick),
    }
}

/// One subset's predictions against the full workload's.
#[derive(Debug, Clone)]
pub struct SubsetResult {
    /// What was sampled.
    pub spec: SubsetSpec,
    /// The sampled indices per dimension.
    pub axes: Vec<Vec<u32>>,
    /// Its predictions (total task time A included).
    pub prediction: Prediction,
}

/// The comparison of subsets against the full workload (Mizutani et al., Tables 1, 3, 4).
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The prediction from every task's measured time: E(S0).
    pub full: Prediction,
    /// One per subset, in the order given.
    pub subsets: Vec<SubsetResult>,
}

/// Per processor count, how a subset's prediction compares with the full one.
#[derive(Debug, Clone)]
pub struct Versus {
    /// Processors.
    pub procs: u64,
    /// E(S0) − E(Sj) (seconds).
    pub diff: Rat,
    /// |E(S0) − E(Sj)| / E(S0) (a fraction; 0 when E(S0) = 0).
    pub error: Rat,
    /// D = (A0 − A)/(P − 1): the deficit per slave (the paper's Table 4).
    pub deficit_per_slave: Rat,
    /// |D| / E(S0): the error the deficit explains. It is eq. 3's X times
    /// the slaves' compute share A0/((P − 1)·E(S0)) (eq. 2's denominator
    /// is E(S0) without communication).
    pub explained: Rat,
}

impl SubsetResult {
    /// The paper's eq. 3 error estimate X = (A0 − A)/A0 (a fraction).
    pub fn eq3(&self, full: &Prediction) -> Rat {
        if full.total_time.is_zero() {
            return Rat::zero();
        }
        (&full.total_time - &self.prediction.total_time) / &full.total_time
    }

    /// The largest error over the processor counts ([`Versus::error`]).
    pub fn max_error(&self, full: &Prediction) -> Rat {
        self.versus(full).into_iter().map(|v| v.error).max().unwrap_or_else(Rat::zero)
    }

    /// The comparison at each processor count.
    pub fn versus(&self, full: &Prediction) -> Vec<Versus> {
        let deficit = &full.total_time - &self.prediction.total_time;
        full.points
            .iter()
            .zip(&self.prediction.points)
            .map(|(f, s)| {
                let diff = &f.time - &s.time;
                let error = if f.time.is_zero() { Rat::zero() } else { diff.abs() / &f.time };
                let deficit_per_slave = &deficit / Rat::from_integer(BigInt::from(f.procs - 1));
                let explained =
                    if f.time.is_zero() { Rat::zero() } else { deficit_per_slave.abs() / &f.time };
                Versus { procs: f.procs, deficit_per_slave, diff, error, explained }
            })
            .collect()
    }
}

/// Predicts with each regular subset of a fully measured workload and with
/// the full workload itself.
pub fn compare_subsets(
    full: &SampledGrid,
    specs: &[SubsetSpec],
    order: Option<&[u32]>,
    m: &Machine,
    procs: &[u64],
) -> Result<Comparison, MsError> {
    if !full.is_full() {
        return Err(MsError::Input(format!(
            "--compare-subsets needs every task's time: {} has {} of the grid's {} tasks",
            full.file,
            full.len(),
            full.grid.iter().map(|&c| c as usize).product::<usize>()
        )));
    }
    let all = Tasks::interpolate(full)?;
    let full_pred = predict(&all, order, m, procs)?;
    drop(all);
    let mut subsets = Vec::new();
    for spec in specs {
        let axes: Vec<Vec<u32>> =
            full.grid.iter().zip(&spec.counts).map(|(&c, &n)| regular_axis(c, n)).collect();
        let tasks = Tasks::interpolate(&sub_sample(full, axes.clone()))?;
        let prediction = predict(&tasks, order, m, procs)?;
        subsets.push(SubsetResult { spec: spec.clone(), axes, prediction });
    }
    Ok(Comparison { full: full_pred, subsets })
}
