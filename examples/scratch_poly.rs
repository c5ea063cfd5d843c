use errband::linear::{Constraint, Kind};
use errband::lp::{Prepared, Sense};
use errband::num::{frac, int};
use errband::poly::Polyhedron;
use std::time::Instant;
fn main() {
    let m: i64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(5000);
    let mut cons = vec![];
    for i in 0..m {
        let x = frac(i, m);
        let y = &x * &x;
        cons.push(Constraint::new(vec![int(1), x.clone()], Kind::Le, &y + frac(1, 4)));
        cons.push(Constraint::new(vec![int(-1), -x.clone()], Kind::Le, frac(1, 4) - &y));
    }
    let t = Instant::now();
    let p = Prepared::new(2, cons.clone()).unwrap();
    eprintln!("prepare {:?}", t.elapsed());
    for j in 0..2 {
        for s in [Sense::Maximize, Sense::Minimize] {
            let t = Instant::now();
            let mut e = vec![int(0), int(0)];
            e[j] = int(1);
            let o = p.optimize(&e, s).unwrap();
            eprintln!("lp {j} {s:?} {:?} {:?}", t.elapsed(), matches!(o, errband::lp::LpOutcome::Optimal(_)));
        }
    }
    let t = Instant::now();
    let g = Polyhedron::new(2, cons).generators();
    eprintln!("generators {:?} -> {} vertices", t.elapsed(), g.vertices.len());
}
