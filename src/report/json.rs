//! The JSON of an analysis: the typed [`AnalysisDocument`], its residual
//! tables streamed row by row (`stream`).

use super::*;
use crate::document::analysis::{AnalysisDocument, AnalysisInputs, ResidualRow};

impl Report<'_> {
    /// What the analysis document is made from.
    fn document_inputs(&self) -> AnalysisInputs<'_> {
        AnalysisInputs {
            model: self.model,
            data_file: self.data_file,
            data: self.data,
            warnings: self.warnings,
            analysis: self.analysis,
            pruned: self.pruned.map(|p| (p.dropped.as_slice(), &p.analysis)),
            function: self.function,
            family: self.family,
            backtest: self.backtest,
            recommendation: self.recommendation,
            recommendation_error: self.recommendation_error,
            set_aside: self.set_aside,
            discovered: self.discovered,
            digits: self.digits,
        }
    }

    /// The typed document (its residual tables stand in it as placeholders).
    pub fn document(&self) -> AnalysisDocument {
        AnalysisDocument::new(&self.document_inputs())
    }

    /// The JSON document ([`AnalysisDocument`], `errband schema analysis`).
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

    /// The JSON document with its residual tables as placeholders, and the
    /// tables.
    pub(super) fn json_parts(&self) -> (Value, Vec<stream::LongArray<'_>>) {
        let mut doc = self.document();
        // One entry per held-out run, each with its bands: as a JSON value
        // that is some 10 kB a run (3 GB for 125 000 held-out runs), so
        // they are written row by row as the residuals are.
        let held = doc.holdout.as_mut().map(|h| std::mem::take(&mut h.measurements));
        let mut value = crate::document::to_value(&doc);
        let mut arrays = self.residual_arrays();
        if let Some(rows) = held {
            value["holdout"]["measurements"] =
                Value::String(crate::document::analysis::placeholder(arrays.len()));
            arrays.push(stream::LongArray {
                len: rows.len(),
                row: Box::new(move |i| crate::document::to_value(&rows[i])),
            });
        }
        (value, arrays)
    }

    /// The residual tables of [`Report::document`]: long array 0 for every
    /// measurement, 1 for the pruned data's (with `--drop`), each row made
    /// as it is written.
    pub(super) fn residual_arrays(&self) -> Vec<stream::LongArray<'_>> {
        let (m, digits) = (self.model, self.digits);
        let mut arrays: Vec<stream::LongArray<'_>> = vec![stream::LongArray {
            len: self.data.len(),
            row: Box::new(move |i| {
                crate::document::to_value(&ResidualRow::new(m, self.analysis, self.data, i, i + 1, digits))
            }),
        }];
        if let Some(p) = self.pruned {
            let kept = crate::data::kept_rows(self.data.len(), &p.dropped);
            let kept_data: Vec<Measurement> = kept.iter().map(|&i| self.data[i].clone()).collect();
            arrays.push(stream::LongArray {
                len: kept_data.len(),
                row: Box::new(move |i| {
                    crate::document::to_value(&ResidualRow::new(
                        m,
                        &p.analysis,
                        &kept_data,
                        i,
                        kept[i] + 1,
                        digits,
                    ))
                }),
            });
        }
        arrays
    }
}
