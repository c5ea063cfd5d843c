//! Resource limits: how large an input, or a number or set formed from it,
//! errband accepts before it stops with a clear error. Every limit has a
//! flag that raises it (`--max-exponent`, …), and every error that a limit
//! causes names that flag, so a user with a genuine large case is never
//! stuck, while a hostile or mistyped input ends in milliseconds instead of
//! exhausting memory.

/// The limits in force. `Copy`, so each stage keeps its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Largest `|n|` in a power `b^n` of a model, and in a literal's decimal
    /// exponent (`1e-7` has 7).
    pub exponent: u64,
    /// Largest number of significant digits in one literal.
    pub digits: usize,
    /// Largest number of decimal digits (numerator plus denominator) of a
    /// number formed while evaluating or eliminating: powers, and every
    /// coefficient produced by quantifier elimination.
    pub number_digits: usize,
    /// Largest number of measurement rows in one file.
    pub rows: usize,
    /// Largest number of values in one range or list of points (`--at`,
    /// `predict`, `--candidate`, `--nodes`, `--procs`).
    pub points: usize,
    /// Largest number of vertices and rays held at once while enumerating
    /// one region or one piece of a `qe` result (the double description's
    /// intermediate sets count: it stops as soon as one passes the limit).
    pub vertices: usize,
    /// Largest number of convex pieces in a formula's disjunctive normal form.
    pub pieces: usize,
    /// Largest number of candidates one search analyses: subsets of a
    /// `prune` run, points of a `plan` run (each is a whole re-analysis).
    pub candidates: usize,
    /// Largest number of comparisons (atoms) in one `qe` formula, counted
    /// while parsing: each holds its own exact row through elimination.
    pub atoms: usize,
    /// Largest number of bytes of metadata unpacked from an archive (a
    /// CUBE profile's `anchor.xml`), counted while it is unpacked and
    /// parsed as a stream; set in MiB by its flag.
    pub metadata: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            exponent: 10_000,
            digits: 4000,
            number_digits: 60_000,
            rows: 2_000_000,
            points: 100_000,
            vertices: 2_000,
            pieces: 2_000,
            candidates: 10_000,
            atoms: 250_000,
            metadata: 64 << 20,
        }
    }
}

/// Work units per allowed vertex in [`Limits::listing_work`]: with the
/// default 2 000 vertices, 2.5·10^7 units, measured at 0.2 to 0.8 s of one
/// core per region (a degree-7 polynomial's region in 8 dimensions took
/// minutes to list; a 4-parameter one on 100 points still lists in 0.3 s).
pub const WORK_PER_VERTEX: u64 = 12_500;

/// One kind of limit, to name the flag that raises it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// [`Limits::exponent`].
    Exponent,
    /// [`Limits::digits`].
    Digits,
    /// [`Limits::number_digits`].
    NumberDigits,
    /// [`Limits::rows`].
    Rows,
    /// [`Limits::points`].
    Points,
    /// [`Limits::vertices`].
    Vertices,
    /// [`Limits::pieces`].
    Pieces,
    /// [`Limits::candidates`].
    Candidates,
    /// [`Limits::atoms`].
    Atoms,
    /// [`Limits::metadata`] (in MiB).
    Metadata,
}

impl Limit {
    /// The command-line flag that raises this limit.
    pub fn flag(self) -> &'static str {
        match self {
            Limit::Exponent => "--max-exponent",
            Limit::Digits => "--max-digits",
            Limit::NumberDigits => "--max-number-digits",
            Limit::Rows => "--max-rows",
            Limit::Points => "--max-points",
            Limit::Vertices => "--max-vertices",
            Limit::Pieces => "--max-pieces",
            Limit::Candidates => "--max-candidates",
            Limit::Atoms => "--max-atoms",
            Limit::Metadata => "--max-metadata-mib",
        }
    }

    /// `"(limit N; raise it with --max-…)"`, the tail of every limit message.
    pub fn note(self, limits: &Limits) -> String {
        format!("(limit {}; raise it with {})", limits.get(self), self.flag())
    }
}

impl Limits {
    /// The value of one limit, in the unit of its flag.
    pub fn get(&self, which: Limit) -> u64 {
        let n = match which {
            Limit::Exponent => return self.exponent,
            Limit::Metadata => return self.metadata >> 20,
            Limit::Digits => self.digits,
            Limit::NumberDigits => self.number_digits,
            Limit::Rows => self.rows,
            Limit::Points => self.points,
            Limit::Vertices => self.vertices,
            Limit::Pieces => self.pieces,
            Limit::Candidates => self.candidates,
            Limit::Atoms => self.atoms,
        };
        n as u64
    }

    /// The work units (the polyhedra's work budget: about one machine word
    /// of exact arithmetic each) that listing one region or one `qe` result
    /// may take: [`Limits::vertices`] times [`WORK_PER_VERTEX`], so that
    /// `--max-vertices` raises both. Fixed before the listing starts; a
    /// region past it is not listed and gets its bands from LPs.
    pub fn listing_work(&self) -> u64 {
        (self.vertices as u64).saturating_mul(WORK_PER_VERTEX)
    }

    /// [`Limits::number_digits`] in bits (rounded up), the unit the checks
    /// compare against: a number's bit length is known without printing it.
    pub fn number_bits(&self) -> u64 {
        // log2(10) < 3.3219281 = 33219281 / 10^7.
        (self.number_digits as u64).saturating_mul(33_219_281).div_ceil(10_000_000)
    }

    /// The decimal digits of a number of `bits` bits, rounded up (for messages).
    pub fn digits_of_bits(bits: u64) -> u64 {
        // log10(2) < 0.30103.
        bits.saturating_mul(30_103).div_ceil(100_000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_limit_names_its_flag_and_value() {
        let l = Limits::default();
        assert_eq!(Limit::Rows.note(&l), "(limit 2000000; raise it with --max-rows)");
        assert_eq!(Limit::Exponent.flag(), "--max-exponent");
        // 60 000 digits are 199 316 bits; and back.
        assert_eq!(l.number_bits(), 199_316);
        assert_eq!(Limits::digits_of_bits(199_316), 60_001);
        assert_eq!(Limits::digits_of_bits(10), 4);
    }
}
