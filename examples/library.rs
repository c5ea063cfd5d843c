use errband::{num, Analysis, Model, Options, Rat};

/// The band of HPL's run time at p = 1000, through the library's front door:
/// every library error converts into `errband::Error` with `?`.
fn main() -> Result<(), errband::Error> {
    let model = Model::from_source(&std::fs::read_to_string("models/hpl.tm")?, "hpl.tm")?;
    let data = model.read_data(&std::fs::read_to_string("data/hpl.csv")?, "hpl.csv")?;
    let p = vec![Rat::from_integer(1000.into())];
    let a = Analysis::run(&model, &data, &Options::default().at(vec![p.clone()]))?;
    println!("e_max = {}", num::fmt_fraction(&a.emax)); // 1101248/81125
    let show = |v: &Option<Rat>| v.as_ref().map_or("unbounded".to_string(), |v| num::fmt_sig(v, 6));
    match a.band(&p, "max").flatten() {
        Some(band) => println!("T(1000) in [{}, {}]", show(&band.lower), show(&band.upper)),
        None => println!("T(1000): no band (the region at this threshold is empty)"),
    }
    Ok(())
}
