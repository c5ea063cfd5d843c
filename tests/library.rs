//! The library as a Rust caller sees it: only the public API, used the way
//! docs/library.md and the crate docs show (`examples/library.rs` is the same
//! text, kept verbatim in docs/library.md by the test below).

use errband::{num, Analysis, Classified, ErrorKind, Model, Options, Rat};

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[test]
fn the_documented_example_is_the_crate_example() {
    let example = read("examples/library.rs");
    assert!(
        read("docs/library.md").contains(&example),
        "docs/library.md must hold examples/library.rs verbatim"
    );
}

#[test]
fn hpl_from_the_public_api() {
    let model = Model::from_source(&read("models/hpl.tm"), "hpl.tm").unwrap();
    let data = model.read_data(&read("data/hpl.csv"), "hpl.csv").unwrap();
    let p = vec![Rat::from_integer(1000.into())];
    let a = Analysis::run(&model, &data, &Options::default().at(vec![p.clone()])).unwrap();
    assert_eq!(a.emax, num::parse_rat("1101248/81125").unwrap());
    let band = a.prediction(&p).and_then(|x| x.bands[0].clone()).unwrap();
    let (lo, hi) = (band.lower.unwrap(), band.upper.unwrap());
    assert!(lo < hi);
    assert_eq!(num::fmt_sig(&lo, 6), "3228.62");
    assert_eq!(num::fmt_sig(&hi, 6), "6346.66");
    // A threshold below e_max has no band, and says why; `max` has both bands.
    let opts = Options::default().at(vec![p.clone()]).thresholds(vec![
        errband::Threshold::parse("10").unwrap(),
        errband::Threshold::parse("max").unwrap(),
    ]);
    let b = Analysis::run(&model, &data, &opts).unwrap();
    assert_eq!(b.bands_at(&p, "10").map(|r| r.err()), Some(Some(errband::NoBand::Empty)));
    let (model_band, new) = b.bands_at(&p, "max").unwrap().unwrap();
    assert!(new.lower <= model_band.lower && model_band.upper <= new.upper);
    assert!(b.bands_at(&p, "trusted").is_none(), "a threshold not asked for");
}

#[test]
fn points_streamed_through_a_predictor_are_the_points_an_analysis_holds() {
    let model = Model::from_source(&read("models/hpl.tm"), "hpl.tm").unwrap();
    let data = model.read_data(&read("data/hpl.csv"), "hpl.csv").unwrap();
    // Ranges, a list with repeats, a point the model predicts already.
    let args = ["p=1..40", "p=7/2..9:1/2", "p=30,1000,5,5"].map(String::from);
    let set = model.point_set(&args, "--at").unwrap();
    let held = model.points_args(&args, "--at").unwrap();
    let opts = Options::default().at(held.clone());
    let a = Analysis::run(&model, &data, &opts).unwrap();
    // The analysis lists the model's own points first, then the others once.
    let streamed: Vec<Vec<Rat>> = set.excluding(&model.predict).iter().collect();
    assert_eq!(streamed.len(), 40 + 6); // 7/2, 9/2 … 17/2 are new; 1000 is the model's
    assert_eq!(a.predictions.len(), model.predict.len() + streamed.len());
    let alone = Analysis::run(&model, &data, &Options::default()).unwrap();
    let (more, _) = alone.predictor(&model, &data.rows, &Options::default()).predict_all(&streamed).unwrap();
    for (p, q) in a.predictions[model.predict.len()..].iter().zip(&more) {
        assert_eq!(
            (&p.x, &p.model, &p.bands, &p.measurement, &p.outside),
            (&q.x, &q.model, &q.bands, &q.measurement, &q.outside)
        );
    }
    // A point where the model cannot be evaluated is found before any is predicted.
    let bad = model.point_set(&["p=0..3".to_string()], "--at").unwrap();
    let err = alone.predictor(&model, &data.rows, &Options::default()).check(bad.iter()).unwrap_err();
    assert!(err.to_string().contains("division by zero"), "{err}");
}

#[test]
fn accessors_find_a_band_by_point_and_threshold_and_a_parameter_by_name() {
    let model = Model::from_source(&read("models/hpl.tm"), "hpl.tm").unwrap();
    let data = model.read_data(&read("data/hpl.csv"), "hpl.csv").unwrap();
    let p = vec![Rat::from_integer(1000.into())];
    let a = Analysis::run(&model, &data, &Options::default().at(vec![p.clone()])).unwrap();
    // The defaults are max and trusted; the accessor is the prediction's band.
    let (i, region) = a.region("trusted").unwrap();
    assert_eq!((i, region.threshold.text.as_str()), (1, "trusted"));
    let max = a.band(&p, "max").unwrap().unwrap();
    assert_eq!(Some(max), a.prediction(&p).unwrap().bands[0].as_ref());
    assert_eq!(num::fmt_sig(max.upper.as_ref().unwrap(), 6), "6346.66");
    let next = a.measurement_band(&p, " trusted ").unwrap().unwrap();
    assert_eq!(Some(next), a.prediction(&p).unwrap().measurement[1].as_ref());
    // Not a prediction point, not a threshold asked for: None.
    assert!(a.band(&[Rat::from_integer(7.into())], "max").is_none());
    assert!(a.band(&p, "emax").is_none());
    // Parameters by the model's names, in its order; `a` is a constant.
    assert_eq!(a.param(&model, "c1"), Some(&a.params[0]));
    assert_eq!(a.param(&model, "c2"), Some(&a.params[1]));
    assert_eq!(num::fmt_sig(a.param(&model, "c1").unwrap(), 4), "0.008882");
    assert!(a.param(&model, "a").is_none() && a.param(&model, "nope").is_none());
}

#[test]
fn errors_display_their_located_message_and_know_their_kind() {
    // A model error renders the caret report from Display alone.
    let e = Model::from_source("T(p) = a*p*p*q\nparam a\n", "bad.tm").unwrap_err();
    let shown = e.to_string();
    assert!(shown.contains("bad.tm:1:") && shown.contains('^'), "{shown}");
    // Too few points is an impossible analysis (exit code 1 on the command line).
    let model = Model::from_source("T(p) = a + b*p + c*p^2\nparam a, b, c\n", "m.tm").unwrap();
    let data = model.read_data("p,T\n1,2\n2,3\n", "two.csv").unwrap();
    let e = Analysis::run(&model, &data, &Options::default()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Analysis);
    assert_eq!(
        e.to_string(),
        "too few points: 3 parameters need at least 3 distinct data points; two.csv has 2"
    );
    // No data is an input error.
    let empty = errband::Dataset { file: "none.csv".into(), rows: vec![], ..data };
    let e = Analysis::run(&model, &empty, &Options::default()).unwrap_err();
    assert_eq!((e.kind(), e.to_string()), (ErrorKind::Input, "no measurements in none.csv".to_string()));
}

#[test]
fn every_library_error_goes_through_the_front_door_with_its_kind() {
    use std::error::Error as _;
    fn analyse(model: &str, data: &str) -> Result<Analysis, errband::Error> {
        let model = Model::from_source(model, "m.tm")?;
        let data = model.read_data(data, "d.csv")?;
        Ok(Analysis::run(&model, &data, &Options::default())?)
    }
    let bad_model = analyse("T(p) = a*p*p*q\nparam a\n", "p,T\n1,2\n").unwrap_err();
    assert_eq!(bad_model.kind(), ErrorKind::Input);
    assert!(matches!(bad_model, errband::Error::Model(_)));
    assert!(bad_model.source().unwrap().to_string().contains("m.tm:1:"));
    let bad_data = analyse("T(p) = a + b*p\nparam a, b\n", "p,T\n1,x\n").unwrap_err();
    assert_eq!(bad_data.kind(), ErrorKind::Input);
    assert!(bad_data.to_string().starts_with("d.csv: line 2"), "{bad_data}");
    assert!(matches!(bad_data, errband::Error::Data(_)));
    let too_few = analyse("T(p) = a + b*p + c*p^2\nparam a, b, c\n", "p,T\n1,2\n2,3\n").unwrap_err();
    assert_eq!(too_few.kind(), ErrorKind::Analysis);
    assert_eq!(too_few.to_string(), too_few.source().unwrap().to_string());
    let io: errband::Error = std::fs::read_to_string("/nonexistent/errband").unwrap_err().into();
    assert_eq!(io.kind(), ErrorKind::Input);
}

/// A whole experiment through the library: `analyse_experiment` collects
/// what `analyse_experiment_each` streams, in series order, and both give
/// the same analyses.
#[test]
fn experiments_stream_or_collect_the_same_analyses_in_series_order() {
    use errband::data::{read_parts, Aggregate, ColumnSpec, Selection};
    use errband::session::{analyse_experiment, analyse_experiment_each, Request};
    let model = Model::from_source(&read("models/amdahl.tm"), "amdahl.tm").unwrap();
    let text = read("data/extrap_experiment.txt");
    let opts = Options::default();
    // Data read without the model's variables: a located error, not a panic.
    let bare =
        read_parts(&text, "x.txt", &ColumnSpec::default(), &Selection::default(), Aggregate::All).unwrap();
    let wrong = analyse_experiment(&bare, &model, &[], &Request::new("x.txt", &opts));
    let msg = wrong[0].outcome.as_ref().err().map(ToString::to_string).unwrap_or_default();
    assert!(msg.contains("has 0 variable value(s), and the model has 1 variable(s) (p)"), "{msg}");
    assert_eq!(wrong[0].outcome.as_ref().err().map(|e| e.kind()), Some(ErrorKind::Input));
    let spec = ColumnSpec { vars: model.vars.clone(), y: model.func.clone(), ..ColumnSpec::default() };
    let parts = read_parts(&text, "x.txt", &spec, &Selection::default(), Aggregate::All).unwrap();
    let all = analyse_experiment(&parts, &model, &[], &Request::new("x.txt", &opts));
    assert_eq!(all.len(), parts.len());
    let mut streamed: Vec<(String, Rat)> = Vec::new();
    analyse_experiment_each(
        &parts,
        &model,
        &[],
        &Request::new("x.txt", &opts),
        |e| (e.part.name(), e.outcome.map(|a| a.emax)),
        |(name, emax)| {
            streamed.push((name, emax.unwrap()));
            Ok::<(), ()>(())
        },
    )
    .unwrap();
    let collected: Vec<(String, Rat)> =
        all.iter().map(|e| (e.part.name(), e.outcome.as_ref().unwrap().emax.clone())).collect();
    assert_eq!(streamed, collected);
    let names: Vec<String> = parts.iter().map(|p| p.name()).collect();
    assert_eq!(streamed.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>(), names);
}
