use errband::qe;
use errband::num::NumFormat;
fn main() {
    let f = std::env::args().nth(1).unwrap();
    let order: Vec<String> = std::env::args().nth(2).map(|s| s.split(',').map(String::from).collect()).unwrap_or_default();
    let src = std::fs::read_to_string(&f).unwrap();
    let t = std::time::Instant::now();
    let p = qe::parse_problem(&src, &f).unwrap();
    let r = qe::solve(&p, &qe::Options { order }).unwrap();
    let el = t.elapsed();
    println!("{}", r.to_text(NumFormat::Exact));
    println!("{}", r.to_text(NumFormat::Decimal(6)));
    for pc in &r.pieces { for v in &pc.minimal.generators.vertices { println!("vertex {:?}", v.iter().map(|x| errband::num::fmt_sig(x, 6)).collect::<Vec<_>>()); } }
    eprintln!("{el:?}");
}
