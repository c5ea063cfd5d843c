//! The JSON of an analysis (the residual table streamed, `stream`).

use super::text::skip_text;
use super::*;

impl Report<'_> {
    pub(super) fn function_json(&self, f: &BandFunction) -> Value {
        let piece = |p: &Piece| {
            json!({
                "from": self.both(&p.from), "to": self.both(&p.to), "vertex": p.vertex + 1,
                "from_exact": p.from_exact, "to_exact": p.to_exact,
                "params": p.params.iter().map(|v| self.both(v)).collect::<Vec<_>>(),
            })
        };
        let envelopes: Vec<Value> = self
            .analysis
            .regions
            .iter()
            .zip(&f.envelopes)
            .map(|(r, e)| match e {
                Ok(env) => json!({
                    "threshold": r.threshold.text,
                    "upper": env.upper.iter().map(piece).collect::<Vec<_>>(),
                    "lower": env.lower.iter().map(piece).collect::<Vec<_>>(),
                }),
                Err(skip) => json!({ "threshold": r.threshold.text, "skipped": skip_text(skip) }),
            })
            .collect();
        let curves: Vec<Value> = self
            .analysis
            .predictions
            .iter()
            .zip(&f.curves)
            .map(|(p, c)| {
                json!({
                    "point": self.point_json(&p.x),
                    "breakpoints": c.points.iter().map(|(e, l, u)| json!({
                        "threshold": self.both(e), "lower": self.opt_both(l), "upper": self.opt_both(u),
                        "width": match (l, u) { (Some(l), Some(u)) => self.both(&(u - l)), _ => Value::Null },
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        json!({
            "range": { "from": self.both(&f.lo), "to": self.both(&f.hi) },
            "note": "from/to are exact breakpoints when from_exact/to_exact; otherwise they are the ends of an exact enclosure of the switch point",
            "envelopes": envelopes,
            "width_vs_threshold": curves,
        })
    }

    /// One measurement's row of the residual table.
    pub(super) fn residual_json(
        &self,
        a: &Analysis,
        data: &[Measurement],
        rows: &[usize],
        i: usize,
    ) -> Value {
        let d = &data[i];
        json!({
            "row": rows[i] + 1, "line": d.line, "point": self.point_json(&d.x),
            "measured": self.both(&d.y), "model": self.both(&a.residuals.model(i)), "residual": self.both(&a.residuals.e(data, i)),
        })
    }

    /// `residuals` is the residual table or its placeholder ([`stream`]).
    pub(super) fn analysis_json(&self, a: &Analysis, rows: &[usize], residuals: Value) -> Value {
        let fmt = NumFormat::Exact;
        let params: Vec<Value> =
            self.model.params.iter().zip(&a.params).map(|(p, c)| self.param_json(&p.name, c)).collect();
        let regions: Vec<Value> = a
            .regions
            .iter()
            .map(|r| {
                let vert = |v: &Vec<Rat>| {
                    let mut m = serde_json::Map::new();
                    for (n, x) in a.dnames.iter().zip(v) {
                        m.insert(n.clone(), self.both(x));
                    }
                    Value::Object(m)
                };
                let (shape, rays, lines) = match &r.shape {
                    Shape::Empty => ("empty", vec![], vec![]),
                    Shape::Untrusted { .. } => {
                        return json!({
                            "threshold": r.threshold.text, "value": self.both(&r.value), "bound": self.bound_json(&r.bound), "shape": "untrusted",
                            "untrusted": "the relative bound reaches the threshold's limit: no trustworthy band",
                        });
                    }
                    Shape::Point => ("point", vec![], vec![]),
                    Shape::Bounded => ("bounded", vec![], vec![]),
                    Shape::Unbounded { rays, lines } => ("unbounded", rays.iter().map(vert).collect(), lines.iter().map(vert).collect()),
                    Shape::Unlisted { found, limit, work } => {
                        return json!({
                            "threshold": r.threshold.text, "value": self.both(&r.value), "bound": self.bound_json(&r.bound), "shape": "unlisted",
                            "unlisted": { "vertices_reached": found, "max_vertices": limit, "reason": if *work { "work" } else { "vertices" }, "bands": "exact LPs over the residual system" },
                        });
                    }
                };
                let cells = output::json(&r.result, fmt, false);
                json!({
                    "threshold": r.threshold.text, "definition": r.threshold.definition(), "value": self.both(&r.value), "bound": self.bound_json(&r.bound), "shape": shape,
                    "vertices": r.vertices.iter().map(vert).collect::<Vec<_>>(), "rays": rays, "lines": lines,
                    "cylindrical": if has_cells(&r.result) || r.result.pieces.is_empty() { json!({ "order": (0..r.result.vars.len()).map(|j| r.result.vars.name(j).to_string()).collect::<Vec<_>>(), "text": output::text(&r.result, fmt), "result": cells }) } else { Value::Null },
                })
            })
            .collect();
        let bands: Vec<Value> = a.predictions.iter().map(|p| self.prediction_json(a, p)).collect();
        let dc = {
            let mut m = serde_json::Map::new();
            for (n, x) in a.dnames.iter().zip(&a.emax_dc) {
                m.insert(n.clone(), self.both(x));
            }
            Value::Object(m)
        };
        json!({
            "fit": if a.fit == FitMode::Given { "none" } else { "lsq" },
            "params": params,
            "residuals": residuals,
            "max_residual": { "exact": fmt_fraction(&a.residuals.max_abs), "decimal": self.dec(&a.residuals.max_abs), "row": rows[a.residuals.argmax] + 1 },
            "rms": self.rms_json(&a.residuals.mean_square),
            "emax": { "exact": fmt_fraction(&a.emax), "decimal": self.dec(&a.emax), "dc": dc, "unique": a.emax_unique },
            "rmax": a.rmax.as_ref().map_or(Value::Null, |v| self.both(v)),
            "remax": a.remax.as_ref().map_or(Value::Null, |v| self.both(v)),
            "regions": regions,
            "bands": bands,
            "hint": a.hint.as_ref().map(|(refit, ms)| json!({
                "params": self.model.params.iter().zip(refit).map(|(p, c)| self.param_json(&p.name, c)).collect::<Vec<_>>(),
                "max_residual": self.both(&a.emax),
                "rms": self.rms_json(ms),
            })),
        })
    }

    /// A residual bound `a + r·d` as `{absolute, relative}`.
    pub(super) fn bound_json(&self, b: &crate::analysis::Bound) -> Value {
        json!({ "absolute": self.both(&b.absolute), "relative": self.both(&b.relative) })
    }

    pub(super) fn prediction_json(&self, a: &Analysis, p: &Prediction) -> Value {
        let bands: Vec<Value> = a
            .regions
            .iter()
            .zip(p.bands.iter().zip(&p.measurement))
            .map(|(r, (b, m))| match (b, m) {
                (Some(b), Some(m)) => json!({
                    "threshold": r.threshold.text,
                    "lower": self.opt_both(&b.lower), "upper": self.opt_both(&b.upper),
                    "clipped": b.clipped,
                    "relative_half_width": rel_half_width(b, &p.model).map_or(Value::Null, |v| self.both(&v)),
                    "measurement_band": {
                        "lower": self.opt_both(&m.lower), "upper": self.opt_both(&m.upper),
                        "clipped": m.clipped,
                        "relative_half_width": rel_half_width(m, &p.model).map_or(Value::Null, |v| self.both(&v)),
                    },
                }),
                _ if matches!(r.shape, Shape::Untrusted { .. }) => json!({ "threshold": r.threshold.text, "untrusted": true }),
                _ if r.shape == Shape::Empty => json!({ "threshold": r.threshold.text, "empty": true }),
                _ => json!({ "threshold": r.threshold.text, "below_zero": true }),
            })
            .collect();
        json!({ "point": self.point_json(&p.x), "model": self.both(&p.model), "extrapolated": p.extrapolated(), "bands": bands })
    }

    /// The JSON document (schema in the README).
    pub fn json(&self) -> Value {
        let (mut doc, arrays) = self.json_parts();
        stream::fill(&mut doc, &arrays);
        doc
    }

    /// Writes [`Report::json`] as pretty JSON (with a final newline) without
    /// holding it: the residual tables are produced row by row as they are
    /// written, so a million measurements need no gigabytes.
    pub fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let (doc, arrays) = self.json_parts();
        stream::write_pretty(&doc, &arrays, w)
    }

    /// [`Report::write_json`] as one line of JSON Lines (`--format jsonl`).
    pub fn write_json_line(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let (doc, arrays) = self.json_parts();
        stream::write_line(&doc, &arrays, w)
    }

    /// The JSON document with its residual tables as placeholders, and the tables.
    pub(super) fn json_parts(&self) -> (Value, Vec<stream::LongArray<'_>>) {
        let m = self.model;
        let all: Vec<usize> = (0..self.data.len()).collect();
        let mut arrays: Vec<stream::LongArray<'_>> = Vec::new();
        let mut doc = json!({
            "errband": env!("CARGO_PKG_VERSION"),
            "model": {
                "file": m.file, "function": m.func, "variables": m.vars, "body": m.body_text,
                "params": m.params.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
                "weight": m.weight_text, "digits": m.digits(), "units": m.units,
                "inexact": inexact_notes(&self.analysis.design.log, usize::MAX),
            },
            "data": { "file": self.data_file, "measurements": self.data.len(), "points": self.analysis.design.groups.len(), "warnings": self.warnings },
        });
        let main = self.analysis_json(self.analysis, &all, stream::placeholder(arrays.len()));
        arrays.push(stream::LongArray {
            len: self.data.len(),
            row: Box::new(move |i| self.residual_json(self.analysis, self.data, &all, i)),
        });
        if let (Value::Object(d), Value::Object(a)) = (&mut doc, main) {
            d.extend(a);
        }
        if let Some(p) = self.pruned {
            let kept: Vec<usize> = (0..self.data.len()).filter(|i| !p.dropped.contains(i)).collect();
            let kept_data: Vec<Measurement> = kept.iter().map(|&i| self.data[i].clone()).collect();
            let mut pj = self.analysis_json(&p.analysis, &kept, stream::placeholder(arrays.len()));
            arrays.push(stream::LongArray {
                len: kept_data.len(),
                row: Box::new(move |i| self.residual_json(&p.analysis, &kept_data, &kept, i)),
            });
            let shrink: Vec<Value> = self
                .analysis
                .predictions
                .iter()
                .zip(&p.analysis.predictions)
                .map(|(a, b)| {
                    let ratios: Vec<Value> = self
                        .analysis
                        .regions
                        .iter()
                        .enumerate()
                        .map(|(i, r)| json!({ "threshold": r.threshold.text, "ratio": shrink_ratio(&a.bands[i], &b.bands[i]).map_or(Value::Null, |v| self.both(&v)) }))
                        .collect();
                    json!({ "point": self.point_json(&a.x), "shrink": ratios })
                })
                .collect();
            if let Value::Object(o) = &mut pj {
                o.insert("dropped".into(), json!(p.dropped.iter().map(|&i| json!({"row": i + 1, "line": self.data[i].line, "point": self.point_json(&self.data[i].x)})).collect::<Vec<_>>()));
                o.insert("shrink".into(), Value::Array(shrink));
            }
            if let Value::Object(d) = &mut doc {
                d.insert("pruned".into(), pj);
            }
        }
        if let (Some(f), Value::Object(d)) = (self.function, &mut doc) {
            d.insert("band_function".into(), self.function_json(f));
        }
        if let (Some(f), Value::Object(d)) = (self.family, &mut doc) {
            d.insert("family".into(), self.family_json(f));
        }
        if let (Some(b), Value::Object(d)) = (self.backtest, &mut doc) {
            d.insert("holdout".into(), self.backtest_json(b));
        }
        if let Value::Object(d) = &mut doc {
            d.insert("recommendation".into(), self.recommendation_json());
            if !self.set_aside.is_empty() {
                let rows: Vec<Value> = self
                    .set_aside
                    .iter()
                    .map(|m| json!({ "line": m.line, "point": self.point_json(&m.x), "measured": self.both(&m.y) }))
                    .collect();
                d.insert("set_aside".into(), Value::Array(rows));
            }
        }
        (doc, arrays)
    }
}
