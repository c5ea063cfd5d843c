use errband::{num, Analysis, Model, Options, Rat};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = Model::from_source(&std::fs::read_to_string("models/hpl.tm")?, "hpl.tm")?;
    let data = model.read_data(&std::fs::read_to_string("data/hpl.csv")?, "hpl.csv")?;
    let p = vec![Rat::from_integer(1000.into())];
    let a = Analysis::run(&model, &data, &Options { at: vec![p.clone()], ..Options::default() })?;
    let band = a.prediction(&p).and_then(|x| x.bands[0].clone()).ok_or("no band at p = 1000")?;
    let (lo, hi) = (band.lower.ok_or("unbounded")?, band.upper.ok_or("unbounded")?);
    println!("e_max = {}", num::fmt_fraction(&a.emax)); // 1101248/81125
    println!("T(1000) in [{}, {}]", num::fmt_sig(&lo, 6), num::fmt_sig(&hi, 6));
    Ok(())
}
