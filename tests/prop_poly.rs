//! Polyhedra: generators, minimal form and projection checked against the
//! constraints themselves, exact LPs and point membership.

mod common;

use common::{closed, con, dot, int, midpoint, q, rank, show_con};
use errband::linear::{Constraint, Kind};
use errband::lp::{LpOutcome, Prepared, Sense};
use errband::num::Rat;
use errband::poly::{Generators, Polyhedron};
use num_traits::{Signed, Zero};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

#[derive(Debug, Clone)]
struct Case {
    n: usize,
    cons: Vec<Constraint>,
    boxed: bool,
}

impl Case {
    fn poly(&self) -> Polyhedron {
        Polyhedron::new(self.n, self.cons.clone())
    }
    fn describe(&self) -> String {
        let rows: Vec<String> = self.cons.iter().map(show_con).collect();
        format!("n = {}:\n  {}", self.n, rows.join("\n  "))
    }
    fn strict(&self) -> bool {
        self.cons.iter().any(|c| c.kind == Kind::Lt)
    }
}

fn int_vec(n: usize, lo: i64, hi: i64) -> impl Strategy<Value = Vec<Rat>> {
    prop::collection::vec((lo..=hi).prop_map(int), n)
}

/// Random rows (plus, usually, a box `|x_j| <= B`, sometimes an equality);
/// `strict_weight` is the relative frequency of `<` rows.
fn case(strict_weight: u32) -> impl Strategy<Value = Case> {
    (2usize..=3).prop_flat_map(move |n| {
        let kind = prop_oneof![5 => Just(Kind::Le), strict_weight => Just(Kind::Lt)];
        let row = (int_vec(n, -3, 3), kind, (-5i64..=10).prop_map(int))
            .prop_map(|(a, k, b)| Constraint::new(a, k, b));
        let eq =
            (int_vec(n, -2, 2), (-3i64..=3).prop_map(int)).prop_map(|(a, b)| Constraint::new(a, Kind::Eq, b));
        (
            prop::collection::vec(row, 1..=6),
            prop_oneof![3 => (2i64..=5).prop_map(Some), 1 => Just(None)],
            prop::option::weighted(0.25, eq),
        )
            .prop_map(move |(mut cons, bound, eq)| {
                if let Some(b) = bound {
                    for j in 0..n {
                        for s in [1, -1] {
                            let mut a = vec![int(0); n];
                            a[j] = int(s);
                            cons.push(Constraint::new(a, Kind::Le, int(b)));
                        }
                    }
                }
                cons.extend(eq);
                Case { n, cons, boxed: bound.is_some() }
            })
    })
}

fn objectives(n: usize) -> impl Strategy<Value = Vec<Vec<Rat>>> {
    prop::collection::vec(int_vec(n, -3, 3), 3)
}

/// Points to test membership at: every vertex, midpoints of vertex pairs
/// (on edges, facets or inside), centroids of the vertices on each
/// constraint (facet interiors), small steps off the vertices, points along
/// rays and lines, and a coarse grid.
fn probe_points(n: usize, g: &Generators, cons: &[Constraint]) -> Vec<Vec<Rat>> {
    let mut pts: Vec<Vec<Rat>> = g.vertices.clone();
    for i in 0..g.vertices.len() {
        for j in i + 1..g.vertices.len() {
            pts.push(midpoint(&g.vertices[i], &g.vertices[j]));
        }
    }
    for c in cons {
        let on: Vec<&Vec<Rat>> = g.vertices.iter().filter(|v| c.lhs(v) == c.b).collect();
        if on.len() >= 2 {
            let k = int(on.len() as i64);
            let mut s = vec![Rat::zero(); n];
            for v in &on {
                for (sj, vj) in s.iter_mut().zip(v.iter()) {
                    *sj += vj;
                }
            }
            pts.push(s.into_iter().map(|x| x / &k).collect());
        }
    }
    let step = q(1, 97);
    for v in &g.vertices {
        for j in 0..n {
            for sign in [1, -1] {
                let mut w = v.clone();
                w[j] += &step * int(sign);
                pts.push(w);
            }
        }
        for d in g.rays.iter().chain(&g.lines) {
            pts.push(v.iter().zip(d).map(|(a, b)| a + b * int(3)).collect());
            pts.push(v.iter().zip(d).map(|(a, b)| a - b * int(3)).collect());
        }
    }
    let grid: Vec<Rat> = (-6..=6).map(|k| q(k, 1)).collect();
    let mut idx = vec![0usize; n];
    loop {
        pts.push(idx.iter().map(|&i| grid[i].clone()).collect());
        let mut j = 0;
        while j < n {
            idx[j] += 3;
            if idx[j] < grid.len() {
                break;
            }
            idx[j] = 0;
            j += 1;
        }
        if j == n {
            break;
        }
    }
    pts
}

/// Whether some point satisfies `cons`, by exact LP.
fn feasible(n: usize, cons: Vec<Constraint>) -> bool {
    let p = Prepared::new(n, cons).unwrap();
    let out = p.optimize(&vec![Rat::zero(); n], Sense::Maximize).unwrap();
    out.verify(&p, &vec![Rat::zero(); n], Sense::Maximize).unwrap();
    !matches!(out, LpOutcome::Infeasible(_))
}

/// The negation of an inequality, as one constraint.
fn negation(c: &Constraint) -> Constraint {
    let neg: Vec<Rat> = c.a.iter().map(|v| -v).collect();
    match c.kind {
        Kind::Le => Constraint::new(neg, Kind::Lt, -c.b.clone()),
        Kind::Lt => Constraint::new(neg, Kind::Le, -c.b.clone()),
        Kind::Eq => panic!("an equality's negation is a disjunction"),
    }
}

fn show_pt(x: &[Rat]) -> String {
    format!("({})", x.iter().map(|v| v.to_string()).collect::<Vec<_>>().join(", "))
}

fn check_generators(c: &Case, objs: &[Vec<Rat>]) -> Result<(), TestCaseError> {
    let p = c.poly();
    let g = p.generators();
    let d = c.describe();
    let closure = Polyhedron::new(c.n, c.cons.iter().map(closed).collect());
    if closure.is_empty() {
        prop_assert!(
            g.vertices.is_empty() && g.rays.is_empty() && g.lines.is_empty(),
            "generators of an empty set\n{}",
            d
        );
        return Ok(());
    }
    prop_assert!(!g.vertices.is_empty(), "a non-empty closure has a vertex (of its section)\n{}", d);
    if c.boxed {
        prop_assert!(g.rays.is_empty() && g.lines.is_empty(), "a boxed set is bounded\n{}", d);
    }
    let mut sorted = g.vertices.clone();
    sorted.sort();
    sorted.dedup();
    prop_assert_eq!(sorted.len(), g.vertices.len(), "duplicate vertices\n{}", d);
    for v in &g.vertices {
        prop_assert_eq!(v.len(), c.n);
        for k in &c.cons {
            prop_assert!(closed(k).holds_at(v), "vertex {} violates {}\n{}", show_pt(v), show_con(k), d);
        }
        let tight: Vec<Vec<Rat>> = c.cons.iter().filter(|k| k.lhs(v) == k.b).map(|k| k.a.clone()).collect();
        prop_assert_eq!(
            rank(&tight),
            c.n - g.lines.len(),
            "vertex {} is not defined by its tight rows ({} lines)\n{}",
            show_pt(v),
            g.lines.len(),
            d
        );
    }
    for r in &g.rays {
        prop_assert!(r.iter().any(|x| !x.is_zero()), "zero ray\n{}", d);
        for k in &c.cons {
            let ar = dot(&k.a, r);
            let ok = if k.kind == Kind::Eq { ar.is_zero() } else { !ar.is_positive() };
            prop_assert!(ok, "ray {} leaves {}\n{}", show_pt(r), show_con(k), d);
        }
    }
    for l in &g.lines {
        for k in &c.cons {
            prop_assert!(dot(&k.a, l).is_zero(), "line {} crosses {}\n{}", show_pt(l), show_con(k), d);
        }
    }
    prop_assert_eq!(rank(&g.lines), g.lines.len(), "dependent lines\n{}", d);
    // Completeness: the LP optimum over the closure is reached at a vertex,
    // and unboundedness shows in a ray or a line.
    let pc = Prepared::new(c.n, c.cons.iter().map(closed).collect()).unwrap();
    for obj in objs {
        match pc.optimize(obj, Sense::Maximize).unwrap() {
            LpOutcome::Optimal(o) => {
                let best = g.vertices.iter().map(|v| dot(obj, v)).max().unwrap();
                prop_assert_eq!(
                    &best,
                    &o.value,
                    "max {} over the vertices differs from the LP\n{}",
                    show_pt(obj),
                    d
                );
                for r in &g.rays {
                    prop_assert!(!dot(obj, r).is_positive());
                }
                for l in &g.lines {
                    prop_assert!(dot(obj, l).is_zero());
                }
            }
            LpOutcome::Unbounded(_) => {
                let escapes = g.rays.iter().any(|r| dot(obj, r).is_positive())
                    || g.lines.iter().any(|l| !dot(obj, l).is_zero());
                prop_assert!(escapes, "LP unbounded along {} but no generator shows it\n{}", show_pt(obj), d);
            }
            LpOutcome::Infeasible(_) => prop_assert!(false, "LP infeasible on a non-empty closure\n{}", d),
        }
    }
    Ok(())
}

fn check_minimize(c: &Case) -> Result<(), TestCaseError> {
    let p = c.poly();
    let m = p.minimize();
    let d = c.describe();
    prop_assert_eq!(m.empty, p.is_empty(), "emptiness\n{}", d);
    prop_assert_eq!(p.is_empty(), !feasible(c.n, c.cons.clone()), "is_empty disagrees with the LP\n{}", d);
    if m.empty {
        prop_assert!(m.constraints().is_empty());
        return Ok(());
    }
    let minimal = Polyhedron::new(c.n, m.constraints());
    prop_assert!(m.constraints().len() <= c.cons.len() + c.n, "minimal form is not smaller\n{}", d);
    // The same set, tested at points on and around its boundary.
    let g = p.generators();
    prop_assert_eq!(&m.generators, &g, "minimize() reports other generators\n{}", d);
    for x in probe_points(c.n, &g, &c.cons) {
        prop_assert_eq!(
            p.contains(&x),
            minimal.contains(&x),
            "at {}: original vs minimal {:?}\n{}",
            show_pt(&x),
            m.constraints().iter().map(show_con).collect::<Vec<_>>(),
            d
        );
    }
    // Equalities: independent, and as many as the codimension of the set.
    for e in &m.equalities {
        prop_assert_eq!(e.kind, Kind::Eq);
    }
    let eq_rows: Vec<Vec<Rat>> = m.equalities.iter().map(|e| e.a.clone()).collect();
    prop_assert_eq!(rank(&eq_rows), m.equalities.len(), "dependent equalities\n{}", d);
    let mut dirs: Vec<Vec<Rat>> = g
        .vertices
        .iter()
        .skip(1)
        .map(|v| v.iter().zip(&g.vertices[0]).map(|(a, b)| a - b).collect())
        .collect();
    dirs.extend(g.rays.iter().cloned());
    dirs.extend(g.lines.iter().cloned());
    let dim = if dirs.is_empty() { 0 } else { rank(&dirs) };
    prop_assert_eq!(
        dim + m.equalities.len(),
        c.n,
        "affine dimension {} with {} equalities\n{}",
        dim,
        m.equalities.len(),
        d
    );
    // Irredundancy: dropping any inequality (or equality) enlarges the set.
    let all = m.constraints();
    for (i, k) in all.iter().enumerate() {
        let rest: Vec<Constraint> =
            all.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, k)| k.clone()).collect();
        let grows = if k.kind == Kind::Eq {
            let lt = Constraint::new(k.a.clone(), Kind::Lt, k.b.clone());
            let gt = negation(&Constraint::new(k.a.clone(), Kind::Le, k.b.clone()));
            feasible(c.n, [rest.clone(), vec![lt]].concat()) || feasible(c.n, [rest, vec![gt]].concat())
        } else {
            feasible(c.n, [rest, vec![negation(k)]].concat())
        };
        prop_assert!(
            grows,
            "{} is redundant in the minimal form {:?}\n{}",
            show_con(k),
            all.iter().map(show_con).collect::<Vec<_>>(),
            d
        );
    }
    Ok(())
}

fn check_projection(c: &Case, keep: &[usize]) -> Result<(), TestCaseError> {
    let p = c.poly();
    let proj = p.project(keep);
    let d = format!(
        "{}\nkeep {:?}\nprojection {:?}",
        c.describe(),
        keep,
        proj.constraints().iter().map(show_con).collect::<Vec<_>>()
    );
    prop_assert_eq!(proj.dim(), keep.len());
    prop_assert_eq!(proj.is_empty(), p.is_empty(), "projection emptiness\n{}", d);
    let k = keep.len();
    let g = Polyhedron::new(k, proj.constraints().iter().map(closed).collect()).generators();
    let mut pts = probe_points(k, &g, proj.constraints());
    // Also the projections of the original's vertices and edge midpoints.
    let go = p.generators();
    for v in &go.vertices {
        pts.push(keep.iter().map(|&j| v[j].clone()).collect());
    }
    for i in 0..go.vertices.len() {
        for j in i + 1..go.vertices.len() {
            let m = midpoint(&go.vertices[i], &go.vertices[j]);
            pts.push(keep.iter().map(|&t| m[t].clone()).collect());
        }
    }
    pts.sort();
    pts.dedup();
    // Keep the test fast: the exact LP per point is the expensive part.
    let step = (pts.len() / 40).max(1);
    for y in pts.iter().step_by(step) {
        let mut cons = c.cons.clone();
        for (t, &j) in keep.iter().enumerate() {
            let mut a = vec![Rat::zero(); c.n];
            a[j] = int(1);
            cons.push(Constraint::new(a, Kind::Eq, y[t].clone()));
        }
        let lifts = feasible(c.n, cons);
        prop_assert_eq!(
            proj.contains(y),
            lifts,
            "at {}: projection says {}, the LP with the other variables free says {}\n{}",
            show_pt(y),
            proj.contains(y),
            lifts,
            d
        );
    }
    Ok(())
}

fn keep_for(n: usize, choice: usize) -> Vec<usize> {
    let options: Vec<Vec<usize>> = if n == 3 {
        vec![vec![0, 1], vec![0, 2], vec![1, 2], vec![2, 0], vec![1, 0], vec![2], vec![0]]
    } else {
        vec![vec![0], vec![1]]
    };
    options[choice % options.len()].clone()
}

fn config(cases: u32, seed: u64) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(seed),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(64, 0x9017_0001))]

    #[test]
    fn generators_satisfy_the_constraints_and_reach_every_lp_optimum(c in case(0), objs in objectives(3)) {
        let objs: Vec<Vec<Rat>> = objs.into_iter().map(|mut o| { o.resize(c.n, int(1)); o }).collect();
        check_generators(&c, &objs)?;
    }

    #[test]
    fn generators_of_sets_with_strict_rows_describe_their_closure(c in case(2), objs in objectives(3)) {
        let objs: Vec<Vec<Rat>> = objs.into_iter().map(|mut o| { o.resize(c.n, int(1)); o }).collect();
        check_generators(&c, &objs)?;
    }
}

proptest! {
    #![proptest_config(config(40, 0x9017_0002))]

    #[test]
    fn minimize_describes_the_same_set_without_redundancy(c in case(0)) {
        check_minimize(&c)?;
    }

    #[test]
    fn minimize_keeps_strict_rows_that_matter(c in case(2)) {
        prop_assume!(c.strict());
        check_minimize(&c)?;
    }
}

proptest! {
    #![proptest_config(config(32, 0x9017_0003))]

    #[test]
    fn projected_points_lift_to_the_original_and_others_do_not(c in case(0), choice in 0usize..7) {
        check_projection(&c, &keep_for(c.n, choice))?;
    }

    #[test]
    fn projections_keep_strict_bounds_strict(c in case(2), choice in 0usize..7) {
        check_projection(&c, &keep_for(c.n, choice))?;
    }
}

// ------------------------------------------------------------ fixed cases

fn le(a: &[i64], b: i64) -> Constraint {
    con(a, Kind::Le, b)
}

fn lt(a: &[i64], b: i64) -> Constraint {
    con(a, Kind::Lt, b)
}

#[test]
fn an_empty_polyhedron_has_no_generators_and_projects_to_empty() {
    // x + y <= 1, x >= 1, y >= 1, z free.
    let p = Polyhedron::new(3, vec![le(&[1, 1, 0], 1), le(&[-1, 0, 0], -1), le(&[0, -1, 0], -1)]);
    assert!(p.is_empty());
    let m = p.minimize();
    assert!(m.empty);
    assert!(m.constraints().is_empty() && m.generators == Generators::default());
    assert_eq!(p.generators(), Generators::default());
    let proj = p.project(&[2]);
    assert!(proj.is_empty());
    assert!(!proj.contains(&[int(0)]));
    // Empty only because of a strict row: x < 0 and x >= 0.
    let s = Polyhedron::new(1, vec![lt(&[1], 0), le(&[-1], 0)]);
    assert!(s.is_empty());
    assert!(s.minimize().empty);
    // A trivially false row.
    assert!(Polyhedron::new(2, vec![le(&[0, 0], -1)]).is_empty());
}

#[test]
fn a_triangle_with_a_strict_edge_keeps_it_strict_in_every_view() {
    // x >= 0, y >= 0, x + y < 1.
    let p = Polyhedron::new(2, vec![le(&[-1, 0], 0), le(&[0, -1], 0), lt(&[1, 1], 1)]);
    assert!(!p.is_empty());
    let m = p.minimize();
    assert_eq!(m.inequalities.len(), 3);
    assert_eq!(m.inequalities.iter().filter(|c| c.kind == Kind::Lt).count(), 1);
    assert_eq!(m.generators.vertices, vec![vec![int(0), int(0)], vec![int(0), int(1)], vec![int(1), int(0)]]);
    let half = q(1, 2);
    assert!(!p.contains(&[half.clone(), half.clone()]), "on the strict edge");
    assert!(!Polyhedron::new(2, m.constraints()).contains(&[half.clone(), half.clone()]));
    assert!(Polyhedron::new(2, m.constraints()).contains(&[int(0), half.clone()]));
    // Projection onto x: 0 <= x < 1.
    let px = p.project(&[0]);
    assert!(px.contains(&[int(0)]));
    assert!(px.contains(&[q(99, 100)]));
    assert!(!px.contains(&[int(1)]));
    assert!(!px.contains(&[q(-1, 100)]));
}

#[test]
fn a_strict_row_through_a_single_vertex_is_kept() {
    // The quadrant x, y >= 0 without its corner: x + y > 0.
    let p = Polyhedron::new(2, vec![le(&[-1, 0], 0), le(&[0, -1], 0), lt(&[-1, -1], 0)]);
    let m = p.minimize();
    let back = Polyhedron::new(2, m.constraints());
    assert!(!back.contains(&[int(0), int(0)]));
    assert!(back.contains(&[int(0), int(1)]));
    assert!(back.contains(&[int(1), int(0)]));
    // Projected onto x the corner's removal does not matter: x >= 0.
    let px = p.project(&[0]);
    assert!(px.contains(&[int(0)]), "x = 0 lifts to (0, 1)");
}

#[test]
fn a_segment_in_three_dimensions_has_two_equalities() {
    // x = y = z, 0 <= x <= 1.
    let p = Polyhedron::new(
        3,
        vec![
            con(&[1, -1, 0], Kind::Eq, 0),
            con(&[0, 1, -1], Kind::Eq, 0),
            le(&[-1, 0, 0], 0),
            le(&[1, 0, 0], 1),
        ],
    );
    let m = p.minimize();
    assert_eq!(m.equalities.len(), 2);
    assert_eq!(m.inequalities.len(), 2);
    assert_eq!(m.generators.vertices, vec![vec![int(0), int(0), int(0)], vec![int(1), int(1), int(1)]]);
    let pz = p.project(&[2, 0]);
    assert!(pz.contains(&[q(1, 3), q(1, 3)]));
    assert!(!pz.contains(&[q(1, 3), q(1, 2)]));
}

#[test]
fn vertices_of_a_half_plane_lie_in_the_orthogonal_complement_of_its_line() {
    // `Generators::vertices` is documented as the vertices of the section by
    // the orthogonal complement of the lines. For x + y >= 1 the line is
    // ±(1, -1) and the section x = y meets the set in the ray from (1/2, 1/2).
    let p = Polyhedron::new(2, vec![le(&[-1, -1], -1)]);
    let g = p.generators();
    assert_eq!(g.lines.len(), 1, "{g:?}");
    assert!(dot(&g.lines[0], &[int(1), int(1)]).is_zero(), "{g:?}");
    for v in &g.vertices {
        assert!(
            dot(&g.lines[0], v).is_zero(),
            "vertex {} is not orthogonal to the line {}",
            show_pt(v),
            show_pt(&g.lines[0])
        );
    }
    assert_eq!(g.vertices, vec![vec![q(1, 2), q(1, 2)]]);
    assert_eq!(g.rays.len(), 1);
    assert!(
        (g.rays[0][0].clone() + g.rays[0][1].clone()).is_positive(),
        "the ray points into the half-plane: {g:?}"
    );
}

#[test]
fn a_slab_has_a_line_and_no_rays() {
    // 0 <= x + y <= 1 in the plane.
    let p = Polyhedron::new(2, vec![le(&[1, 1], 1), le(&[-1, -1], 0)]);
    let g = p.generators();
    assert_eq!(g.lines.len(), 1);
    assert!(g.rays.is_empty());
    assert_eq!(g.vertices.len(), 2);
    assert!(dot(&g.lines[0], &[int(1), int(1)]).is_zero());
    assert!(p.project(&[0]).constraints().is_empty() || p.project(&[0]).contains(&[int(1000)]));
}
