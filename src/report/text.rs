//! The terminal report of an analysis, read top to bottom.

use super::*;

impl Report<'_> {
    /// The terminal report, read top to bottom.
    pub fn text(&self) -> String {
        let m = self.model;
        let a = self.analysis;
        let mut o = String::new();
        let line = |o: &mut String, s: String| {
            o.push_str(&s);
            o.push('\n');
        };
        line(&mut o, format!("errband {} — {} with {}", env!("CARGO_PKG_VERSION"), m.file, self.data_file));
        line(&mut o, String::new());
        self.answer_text(&mut o);
        line(&mut o, format!("Model   {}({}) = {}", m.func, m.vars.join(", "), m.body_text));
        for (c, v) in &m.consts {
            line(&mut o, format!("        const {c} = {}", show_value(v)));
        }
        if !m.units.is_empty() {
            let u: Vec<String> = m.units.iter().map(|(k, v)| format!("{k} in {v}")).collect();
            line(&mut o, format!("        units: {}", u.join(", ")));
        }
        let names: Vec<&str> = m.params.iter().map(|p| p.name.as_str()).collect();
        let how = match (a.fit, &m.weight_text) {
            (FitMode::Given, _) => "given values (fit none)".to_string(),
            (FitMode::LeastSquares, None) => "exact least squares".to_string(),
            (FitMode::LeastSquares, Some(w)) => {
                format!("exact weighted least squares, weight {w} (minimises Σ (w·(d_i − T_i))²)")
            }
        };
        line(&mut o, format!("        params {}: {how}", names.join(", ")));
        for n in inexact_notes(&a.design.log, 8) {
            line(
                &mut o,
                format!("        note: {n} (not exact: rounded to {} significant digits)", m.digits()),
            );
        }
        if a.design.log.inexact.len() > 8 {
            line(&mut o, format!("        note: {} more inexact values", a.design.log.inexact.len() - 8));
        }
        let (n, g) = (self.data.len(), a.design.groups.len());
        line(
            &mut o,
            format!(
                "Data    {n} measurement{} at {g} distinct point{} ({})",
                plural(n),
                plural(g),
                self.data_file
            ),
        );
        if !self.set_aside.is_empty() {
            let mut at: Vec<String> = self.set_aside.iter().map(|d| m.show_point(&d.x)).collect();
            at.dedup();
            line(
                &mut o,
                format!(
                    "        set aside: {} measurement{} before a change of trend ({})",
                    self.set_aside.len(),
                    plural(self.set_aside.len()),
                    super::tables::abbreviated(&at, "; ")
                ),
            );
        }
        for w in self.warnings {
            line(&mut o, format!("        warning: {w}"));
        }
        line(&mut o, String::new());

        line(&mut o, (if a.fit == FitMode::Given { "Parameters (given)" } else { "Fit" }).to_string());
        for (p, c) in m.params.iter().zip(&a.params) {
            let f = fmt_fraction(c);
            let exact = if self.exact || f.len() > 70 || f == self.num(c) {
                String::new()
            } else {
                format!("   = {f}")
            };
            line(&mut o, format!("  {} = {}{}", p.name, self.num(c), exact));
        }
        line(&mut o, String::new());

        self.residual_table(&mut o);
        line(&mut o, String::new());
        self.emax_text(&mut o, a);
        line(&mut o, String::new());
        self.regions_text(&mut o, a);
        self.bands_text(&mut o);
        if let Some((refit, ms)) = &a.hint {
            line(&mut o, String::new());
            line(&mut o, format!(
                "Hint: RMS = {} > e_max = {}: the model improves by moving to the minimax point C + Δc* (paper §4.3):",
                self.rms_text(&a.residuals.mean_square),
                self.dec(&a.emax)
            ));
            let vals: Vec<String> =
                m.params.iter().zip(refit).map(|(p, v)| format!("{} = {}", p.name, self.num(v))).collect();
            line(&mut o, format!("  param {}", vals.join(", ")));
            line(
                &mut o,
                format!(
                    "  (with `fit none`: Max|e_i| = e_max = {}, RMS = {})",
                    self.dec(&a.emax),
                    self.rms_text(ms)
                ),
            );
        }
        if let Some(p) = self.pruned {
            line(&mut o, String::new());
            self.pruned_text(&mut o, p);
        }
        if let Some(f) = self.function {
            line(&mut o, String::new());
            self.function_text(&mut o, f);
        }
        if let Some(f) = self.family {
            self.family_text(&mut o, f);
        }
        if let Some(b) = self.backtest {
            self.backtest_text(&mut o, b);
        }
        o
    }

    /// `lo ≤ x ≤ hi` with the breakpoint ends shown as decimals (`≈` where
    /// the end is an enclosure of an irrational or unresolved switch point).
    pub(super) fn piece_range(&self, p: &Piece, f: &BandFunction) -> String {
        let end = |x: &Rat, exact: bool| {
            if exact {
                self.dec(x)
            } else {
                format!("≈{}", self.dec(x))
            }
        };
        let _ = f;
        format!("[{}, {}]", end(&p.from, p.from_exact), end(&p.to, p.to_exact))
    }

    pub(super) fn function_text(&self, o: &mut String, f: &BandFunction) {
        let m = self.model;
        let a = self.analysis;
        if let Some(var) = m.vars.first().filter(|_| m.vars.len() == 1) {
            o.push_str(&format!(
                "Band as a function of {var} over [{}, {}]: each envelope piece is the model at one region vertex\n",
                self.dec(&f.lo),
                self.dec(&f.hi)
            ));
            for (r, e) in a.regions.iter().zip(&f.envelopes) {
                o.push_str(&format!("  threshold {}:", self.threshold_label(r)));
                match e {
                    Err(skip) => o.push_str(&format!(" {}\n", skip_text(skip))),
                    Ok(env) => {
                        o.push('\n');
                        for (name, chain) in [("upper", &env.upper), ("lower", &env.lower)] {
                            for (i, p) in chain.iter().enumerate() {
                                let params: Vec<String> = m
                                    .params
                                    .iter()
                                    .zip(&p.params)
                                    .map(|(n, v)| format!("{} = {}", n.name, self.num(v)))
                                    .collect();
                                o.push_str(&format!(
                                    "    {:5}  {var} in {}  vertex {}: {}\n",
                                    if i == 0 { name } else { "" },
                                    self.piece_range(p, f),
                                    p.vertex + 1,
                                    params.join(", ")
                                ));
                            }
                        }
                    }
                }
            }
            o.push_str("  (breakpoints are exact unless marked ≈: then enclosed exactly to 2^-48 of the sampling step, enclosure in JSON)\n\n");
        }
        o.push_str("Band against the threshold e' from e_max to Max|e_i| (linear between the rows)\n");
        for (p, c) in a.predictions.iter().zip(&f.curves) {
            o.push_str(&format!("  at {}:\n", m.show_point(&p.x)));
            let mut rows = vec![vec!["e'".to_string(), "lower".into(), "upper".into(), "width".into()]];
            for (e, l, u) in &c.points {
                let w = match (l, u) {
                    (Some(l), Some(u)) => self.num(&(u - l)),
                    _ => "inf".into(),
                };
                rows.push(vec![
                    self.num(e),
                    l.as_ref().map_or("-inf".into(), |v| self.num(v)),
                    u.as_ref().map_or("+inf".into(), |v| self.num(v)),
                    w,
                ]);
            }
            o.push_str(&table(&rows, 4));
        }
    }

    pub(super) fn residual_table(&self, o: &mut String) {
        if self.data.len() > MAX_ROW_TABLE {
            return self.residual_point_table(o);
        }
        let m = self.model;
        let a = self.analysis;
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut head = vec!["row".to_string(), "line".to_string()];
        head.extend(m.vars.iter().cloned());
        head.extend(["d_i".to_string(), format!("{}(C,x_i)", m.func), "e_i".to_string()]);
        rows.push(head);
        for (i, d) in self.data.iter().enumerate() {
            let mut r = vec![(i + 1).to_string(), d.line.to_string()];
            r.extend(d.x.iter().map(show_value));
            r.push(self.num(&d.y));
            r.push(self.num(&a.residuals.model(i)));
            r.push(self.num(&a.residuals.e(self.data, i)));
            rows.push(r);
        }
        o.push_str("Residuals e_i = T(C, x_i) − d_i\n");
        o.push_str(&table(&rows, 2));
        self.max_rms_line(o);
    }

    /// Many measurements: one line per distinct point (count, range of the
    /// measurements, model value, range of the residuals), the points with
    /// the largest residuals first when there are too many to list.
    pub(super) fn residual_point_table(&self, o: &mut String) {
        let m = self.model;
        let a = self.analysis;
        let groups = &a.design.groups;
        let mut order: Vec<usize> = (0..groups.len()).collect();
        // Largest |e_i| of a point, unreduced: it only ranks, no gcd per point.
        let worst = |g: usize| groups[g].worst_gap(a.residuals.value_unreduced(g));
        let listed = if groups.len() > MAX_POINT_TABLE {
            let w: Vec<Rat> = (0..groups.len()).map(worst).collect();
            order.sort_by(|&x, &y| crate::num::cmp_unreduced(&w[y], &w[x]).then(x.cmp(&y)));
            order.truncate(MAX_POINT_TABLE);
            false
        } else {
            true
        };
        let mut head: Vec<String> = m.vars.clone();
        head.extend([
            "count".into(),
            "d min".into(),
            "d max".into(),
            format!("{}(C,x)", m.func),
            "e min".into(),
            "e max".into(),
        ]);
        let mut rows = vec![head];
        for &g in &order {
            let gr = &groups[g];
            let t = &a.residuals.value(g);
            let mut r: Vec<String> = gr.x.iter().map(show_value).collect();
            r.push(gr.rows.len().to_string());
            r.extend([
                self.num(&gr.ymin),
                self.num(&gr.ymax),
                self.num(t),
                self.num(&crate::num::sub(t, &gr.ymax)),
                self.num(&crate::num::sub(t, &gr.ymin)),
            ]);
            rows.push(r);
        }
        o.push_str(&format!(
            "Residuals e_i = T(C, x_i) − d_i, by point ({} measurements at {} points{})\n",
            self.data.len(),
            groups.len(),
            if listed {
                String::new()
            } else {
                format!("; the {MAX_POINT_TABLE} points with the largest |e_i|")
            }
        ));
        o.push_str(&table(&rows, 2));
        if !listed {
            o.push_str(&format!(
                "  ... {} more points; --format json lists every residual\n",
                groups.len() - MAX_POINT_TABLE
            ));
        }
        self.max_rms_line(o);
    }

    pub(super) fn max_rms_line(&self, o: &mut String) {
        let a = self.analysis;
        let am = a.residuals.argmax;
        o.push_str(&format!(
            "  Max|e_i| = {} (row {}, {})   RMS = {}\n",
            self.num(&a.residuals.max_abs),
            am + 1,
            self.model.show_point(&self.data[am].x),
            self.rms_text(&a.residuals.mean_square)
        ));
    }

    pub(super) fn emax_text(&self, o: &mut String, a: &Analysis) {
        o.push_str(&format!(
            "e_max = {}   (exact {}): the smallest threshold any Δc meets on every measurement (paper eq. 6)\n",
            self.dec(&a.emax),
            fmt_fraction(&a.emax)
        ));
        let dc: Vec<String> =
            a.dnames.iter().zip(&a.emax_dc).map(|(n, v)| format!("{n} = {}", self.num(v))).collect();
        let how = if a.emax_unique {
            "attained only at"
        } else if !a.emax_listed {
            "attained (its region's vertices were not listed) for one at"
        } else {
            "attained on a face of the e_max region; its vertex mean is"
        };
        o.push_str(&format!("  {how} {}\n", dc.join(", ")));
        // Repeated measurements that disagree bound e_max from below for any
        // model: say so when that is what sets it.
        let two = Rat::from_integer(2.into());
        if let Some(g) =
            a.design.groups.iter().find(|g| !a.emax.is_zero() && (&g.ymax - &g.ymin) / &two == a.emax)
        {
            o.push_str(&format!(
                "  (= half the spread of the repeated measurements at {}: no model can do better)\n",
                self.model.show_point(&g.x)
            ));
        }
        match &a.remax {
            Some(r) => o.push_str(&format!(
                "remax = {} %   (exact {}): the smallest relative threshold, |T − d_i| ≤ r·d_i on every measurement; the fit's Max|e_i|/d_i is {} %\n",
                self.dec(&(r * Rat::from_integer(100.into()))),
                fmt_fraction(r),
                a.rmax.as_ref().map_or(String::new(), |v| self.dec(&(v * Rat::from_integer(100.into()))))
            )),
            None => o.push_str("remax: none (relative thresholds need every measurement positive)\n"),
        }
    }

    pub(super) fn regions_text(&self, o: &mut String, a: &Analysis) {
        let order: Vec<&str> = a
            .regions
            .first()
            .map_or(vec![], |r| (0..r.result.vars.len()).map(|j| r.result.vars.name(j)).collect());
        o.push_str(&format!(
            "Regions of Δc = ({}) allowed by each threshold (paper eq. 5, 7)\n",
            a.dnames.join(", ")
        ));
        for r in &a.regions {
            let label = self.threshold_label(r);
            match &r.shape {
                Shape::Empty => {
                    o.push_str(&format!("  threshold {label}: empty: e_max = {} (exact {}); no Δc fits every measurement within {}\n", self.dec(&a.emax), fmt_fraction(&a.emax), self.num(&r.value)));
                    continue;
                }
                Shape::Untrusted { not_positive: true } => {
                    o.push_str(&format!("  threshold {label}: no trustworthy band: a relative bound needs positive measurements, and some are zero or negative\n"));
                    continue;
                }
                Shape::Untrusted { .. } => {
                    o.push_str(&format!(
                        "  threshold {label}: no trustworthy band: the model misses its own data by remax = {} %, so r reaches {} %; a band from this model form would not be worth betting on (try another form, or give -t explicitly)\n",
                        a.remax.as_ref().map_or("?".into(), |r| fmt_sig(&(r * Rat::from_integer(100.into())), 3)),
                        fmt_sig(&(&r.bound.relative * Rat::from_integer(100.into())), 3)
                    ));
                    continue;
                }
                Shape::Point => o.push_str(&format!("  threshold {label}: a single point\n")),
                Shape::Bounded => {
                    o.push_str(&format!("  threshold {label}: bounded, {} vertices\n", r.vertices.len()))
                }
                Shape::Unlisted { found, limit, work } => {
                    let why = if *work {
                        format!("listing its vertices and cylindrical form needs more work than --max-vertices {limit} allows (raise it to list the region)")
                    } else {
                        format!("enumerating its vertices passed --max-vertices {limit} (reached {found})")
                    };
                    o.push_str(&format!(
                        "  threshold {label}: not listed: {why}; it is the residual system at this threshold, and its bands come from exact LPs\n"
                    ));
                    continue;
                }
                Shape::Unbounded { rays, lines } => {
                    let dirs: Vec<String> = rays
                        .iter()
                        .map(|d| format!("+({})", self.vec_text(d)))
                        .chain(lines.iter().map(|d| format!("±({})", self.vec_text(d))))
                        .collect();
                    o.push_str(&format!(
                        "  threshold {label}: unbounded: the data leave Δc free along {} (over ({}))\n",
                        dirs.join(", "),
                        a.dnames.join(", ")
                    ));
                }
            }
            for v in &r.vertices {
                o.push_str(&format!("    vertex ({})\n", self.vec_text(v)));
            }
            if r.shape != Shape::Point && !r.result.has_cells() {
                // A whole experiment skips the cylindrical forms (the cost of
                // its run); the vertices above are the region, exactly.
                o.push_str("    (cylindrical form not computed for a whole experiment: choose the series with --region and --metric to see it)\n");
            } else if r.shape != Shape::Point {
                o.push_str(&format!(
                    "    cylindrical ({} outermost):\n",
                    order.first().copied().unwrap_or("")
                ));
                let text = output::text(&r.result, self.fmt());
                for l in text.lines() {
                    o.push_str(&format!("      {l}\n"));
                }
            }
        }
    }

    pub(super) fn vec_text(&self, v: &[Rat]) -> String {
        v.iter().map(|x| self.num(x)).collect::<Vec<_>>().join(", ")
    }

    pub(super) fn bands_text(&self, o: &mut String) {
        let a = self.analysis;
        if a.predictions.is_empty() {
            o.push_str("\nNo prediction points (add `predict p = ...` to the model or `--at p=...`).\n");
            return;
        }
        o.push_str(&format!(
            "\nBands of {}(C+Δc, x) over each region (* = extrapolated beyond the data)\n",
            self.model.func
        ));
        o.push_str(&self.band_table(a, |p| &p.bands, true));
        o.push_str(&format!(
            "\nBands of a new measurement at x: it scatters about {}(c, x) as the data did within each threshold ([L − a, U + a] for an absolute threshold a, [L/(1+r), U/(1−r)] for a relative one r)\n",
            self.model.func
        ));
        if let Some(def) = a.regions.iter().find_map(|r| r.threshold.definition()) {
            o.push_str(&format!(
                "  trusted = {def}: assumes the model form {}({}) = {} and new measurements scattering about it as the old ones did; no band covers a change of regime (a protocol switch, a cache cliff)\n",
                self.model.func,
                self.model.vars.join(", "),
                self.model.body_text
            ));
        }
        o.push_str(&self.band_table(a, |p| &p.measurement, false));
        if self.any_clipped() {
            o.push_str(&format!("  {}\n", super::CLIPPED_NOTE));
        }
    }

    /// A table of bands per prediction point and threshold (`bands` picks
    /// the model bands or those of a new measurement), with the model's
    /// value when `model_column`.
    fn band_table(
        &self,
        a: &Analysis,
        bands: impl Fn(&Prediction) -> &Vec<Option<Band>>,
        model_column: bool,
    ) -> String {
        let mut head: Vec<String> = self.model.vars.clone();
        if model_column {
            head.push(format!("{}(C,x)", self.model.func));
        }
        for r in &a.regions {
            let t = &r.threshold.text;
            head.extend([format!("{t}: lower"), "upper".into(), "±rel".into()]);
        }
        let mut rows = vec![head];
        for p in &a.predictions {
            let mut row: Vec<String> = p.coords_marked();
            if model_column {
                row.push(self.num(&p.model));
            }
            for (r, b) in a.regions.iter().zip(bands(p)) {
                row.extend(self.band_cells(r, b, &p.model));
            }
            rows.push(row);
        }
        table(&rows, 2)
    }

    pub(super) fn pruned_text(&self, o: &mut String, p: &Pruned) {
        let a = self.analysis;
        let b = &p.analysis;
        o.push_str(&format!("Pruned: without {}\n", self.dropped_text(p)));
        for (par, c) in self.model.params.iter().zip(&b.params) {
            o.push_str(&format!("  {} = {}\n", par.name, self.num(c)));
        }
        o.push_str(&format!(
            "  Max|e_i| = {} (was {})   RMS = {} (was {})   e_max = {} (was {})\n",
            self.num(&b.residuals.max_abs),
            self.num(&a.residuals.max_abs),
            self.rms_text(&b.residuals.mean_square),
            self.rms_text(&a.residuals.mean_square),
            self.dec(&b.emax),
            self.dec(&a.emax)
        ));
        let mut head: Vec<String> = self.model.vars.clone();
        head.extend(["threshold".into(), "band (all data)".into(), "band (pruned)".into(), "shrink".into()]);
        let mut rows = vec![head];
        for (pa, pb) in a.predictions.iter().zip(&b.predictions) {
            for (i, r) in a.regions.iter().enumerate() {
                let mut row: Vec<String> = pa.x.iter().map(show_value).collect();
                row.push(r.threshold.text.clone());
                let show = |bd: &Option<Band>| {
                    let (l, u, _) = self.band_text(r, bd);
                    if bd.is_none() {
                        l
                    } else {
                        format!("[{l}, {u}]")
                    }
                };
                row.push(show(&pa.bands[i]));
                row.push(show(&pb.bands[i]));
                row.push(
                    shrink_ratio(&pa.bands[i], &pb.bands[i])
                        .map_or("-".into(), |s| format!("×{}", fmt_sig(&s, 3))),
                );
                rows.push(row);
            }
        }
        o.push_str(&table(&rows, 2));
    }
}

pub(super) fn skip_text(s: &EnvelopeSkip) -> String {
    s.reason()
}
