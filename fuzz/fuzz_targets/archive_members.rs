//! The archive readers, structure-aware: the input becomes the members of
//! a well-formed `.extra-p` zip or CUBE tar built here, so the fuzzer spends
//! its time in what the archives hold (`experiment.json`, `anchor.xml`,
//! index and data members), not in checksums that bytes mutated at random
//! break. The first byte picks the layout. None may panic; every error must
//! render.
#![no_main]
use errband::data::{archive, cube};
use errband::limits::Limits;
use libfuzzer_sys::fuzz_target;
use std::io::Write;

/// A small anchor with one metric (id 0), two call-tree nodes and two locations.
const ANCHOR: &[u8] = br#"<?xml version="1.0"?><cube version="4.3"><metrics><metric id="0" type="EXCLUSIVE"><uniq_name>time</uniq_name><dtype>DOUBLE</dtype><uom>sec</uom></metric></metrics><program><region id="0"><name>main</name></region><region id="1"><name>f</name></region><cnode id="0" calleeId="0"><cnode id="1" calleeId="1"/></cnode></program><system><location id="0"/><location id="1"/></system></cube>"#;

fn zip_of(members: &[(&str, &[u8])], deflate: bool) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let method = if deflate { zip::CompressionMethod::Deflated } else { zip::CompressionMethod::Stored };
    for (name, data) in members {
        let opts = zip::write::SimpleFileOptions::default().compression_method(method);
        if w.start_file(*name, opts).is_err() || w.write_all(data).is_err() {
            return Vec::new();
        }
    }
    w.finish().map(|c| c.into_inner()).unwrap_or_default()
}

fn tar_of(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in members {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        if b.append_data(&mut h, name, data.as_slice()).is_err() {
            return Vec::new();
        }
    }
    b.into_inner().unwrap_or_default()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let _ = e.write_all(data);
    e.finish().unwrap_or_default()
}

fuzz_target!(|data: &[u8]| {
    let limits = Limits { rows: 10_000, metadata: 1 << 20, ..Limits::default() };
    let Some((&pick, rest)) = data.split_first() else { return };
    let bytes = match pick % 5 {
        // experiment.json, stored or deflated.
        0 | 1 => zip_of(&[("experiment.json", rest)], pick % 5 == 1),
        // anchor.xml, raw or gzipped (the metadata cap is 1 MiB here).
        2 => tar_of(&[("anchor.xml", rest.to_vec())]),
        3 => tar_of(&[("anchor.xml", gzip(rest))]),
        // The fixed anchor, and the input split into 0.index and 0.data.
        _ => {
            let cut = rest.first().map_or(0, |&c| (c as usize).min(rest.len()));
            let (index, values) = rest.split_at(cut);
            tar_of(&[("anchor.xml", ANCHOR.to_vec()), ("0.index", index.to_vec()), ("0.data", values.to_vec())])
        }
    };
    if pick % 5 < 2 {
        if let Err(e) = archive::read_extrap_archive(&bytes, "fuzz.extra-p", limits) {
            let _ = e.render("");
        }
    } else if let Err(e) = cube::read_cube_profile(&bytes, "fuzz.cubex", limits) {
        let _ = e.render("");
    }
});
