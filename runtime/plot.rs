//! The plots of `tabula sweep --out`: SVG files drawn with plotters (text as SVG text, so no
//! font files are needed).
//!
//! - `share-<parameter>.svg`: each outcome's share against the parameter's values (one tick
//!   each, at even spacing), with its 95% interval as a band (in a grid, the games of every
//!   cell with that value pooled, as the caption says);
//! - `length.svg`: decisions per game in each cell, the median as a point and the 10th to 90th
//!   percentiles as a bar.

use std::path::Path;

use plotters::prelude::*;
use tabula::Error;
use tabula::stats::Share;
use tabula::sweep::{CellResult, Tally};

/// Colours of the series, in order (a palette readable by people with the common colour
/// blindnesses: Okabe and Ito's).
const COLOURS: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];

fn failed(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io { path: path.to_path_buf(), source: std::io::Error::other(e.to_string()) }
}

/// `share-<parameter>.svg`: outcome shares against one swept parameter. `pooled` names the
/// other parameters whose cells each point pools (a grid of several parameters), for the
/// caption to say so.
pub fn share_plot(
    path: &Path,
    ruleset: &str,
    parameter: &str,
    points: &[(String, Tally)],
    pooled: &[String],
) -> Result<(), Error> {
    let values: Vec<String> = points.iter().map(|(v, _)| v.clone()).collect();
    // Each value at its rank, labelled with itself: an axis of numbers would put its ticks at
    // round numbers of its own (3 and 5 became one tick, "4").
    let xs: Vec<f64> = (0..values.len()).map(|i| i as f64).collect();
    let root = SVGBackend::new(path, (800, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| failed(path, e))?;
    let caption = if pooled.is_empty() {
        format!("{ruleset}: outcome share by {parameter} (95% interval)")
    } else {
        format!("{ruleset}: outcome share by {parameter} (95% interval), all values of {} pooled", pooled.join(", "))
    };
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 18))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(-0.5f64..values.len() as f64 - 0.5, 0f64..100f64)
        .map_err(|e| failed(path, e))?;
    let label = |x: &f64| value_at(&values, *x);
    chart
        .configure_mesh()
        .x_desc(parameter)
        .y_desc("share of games (%)")
        .x_labels(values.len().clamp(2, 40))
        // No faint lines between values: there is nothing between them.
        .x_max_light_lines(0)
        .x_label_formatter(&label)
        .draw()
        .map_err(|e| failed(path, e))?;
    let outcomes: Vec<String> = points.first().map(|(_, o)| o.keys().cloned().collect()).unwrap_or_default();
    for (k, outcome) in outcomes.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let shares: Vec<(f64, Share)> = points
            .iter()
            .zip(&xs)
            .map(|((_, o), &x)| {
                let (count, games) = o.get(outcome).copied().unwrap_or((0, 0));
                (x, Share::of(count, games))
            })
            .collect();
        // The band: up along the upper ends, back along the lower ones.
        let band: Vec<(f64, f64)> = shares
            .iter()
            .map(|(x, s)| (*x, 100.0 * s.high))
            .chain(shares.iter().rev().map(|(x, s)| (*x, 100.0 * s.low)))
            .collect();
        chart.draw_series(std::iter::once(Polygon::new(band, colour.mix(0.18)))).map_err(|e| failed(path, e))?;
        chart
            .draw_series(LineSeries::new(shares.iter().map(|(x, s)| (*x, 100.0 * s.share)), colour.stroke_width(2)))
            .map_err(|e| failed(path, e))?
            .label(outcome.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
        chart
            .draw_series(shares.iter().map(|(x, s)| Circle::new((*x, 100.0 * s.share), 3, colour.filled())))
            .map_err(|e| failed(path, e))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| failed(path, e))?;
    root.present().map_err(|e| failed(path, e))
}

/// The label of an axis position: the value whose rank it is, and nothing between ranks.
fn value_at(values: &[String], x: f64) -> String {
    let i = x.round();
    if (x - i).abs() < 1e-9 && i >= 0.0 { values.get(i as usize).cloned().unwrap_or_default() } else { String::new() }
}

/// `length.svg`: the spread of decisions per game in each cell.
pub fn length_plot(path: &Path, ruleset: &str, results: &[CellResult]) -> Result<(), Error> {
    // Cells are labelled with their values alone; the axis says which parameters they are.
    let names: Vec<String> =
        results.iter().map(|r| r.values.values().cloned().collect::<Vec<_>>().join(" / ")).collect();
    let parameters: Vec<String> =
        results.iter().flat_map(|r| r.values.keys().cloned()).fold(Vec::new(), |mut all, k| {
            if !all.contains(&k) {
                all.push(k);
            }
            all
        });
    let top = results.iter().map(|r| r.balance.decisions.p90).fold(1.0f64, f64::max) * 1.1;
    let width = (120 + 90 * results.len()).clamp(600, 4000) as u32;
    let root = SVGBackend::new(path, (width, 500)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| failed(path, e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("{ruleset}: decisions per game (median, 10th-90th percentile)"), ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(60)
        .y_label_area_size(55)
        .build_cartesian_2d(-0.5f64..results.len() as f64 - 0.5, 0f64..top)
        .map_err(|e| failed(path, e))?;
    let label = |x: &f64| value_at(&names, *x);
    chart
        .configure_mesh()
        .x_labels(results.len().clamp(2, 40))
        .x_label_formatter(&label)
        .x_desc(parameters.join(" / "))
        .y_desc("decisions")
        .draw()
        .map_err(|e| failed(path, e))?;
    let colour = COLOURS[0];
    chart
        .draw_series(results.iter().enumerate().map(|(i, r)| {
            let d = &r.balance.decisions;
            ErrorBar::new_vertical(i as f64, d.p10, d.median, d.p90, colour.stroke_width(2), 12)
        }))
        .map_err(|e| failed(path, e))?;
    chart
        .draw_series(
            results
                .iter()
                .enumerate()
                .map(|(i, r)| Circle::new((i as f64, r.balance.decisions.mean), 3, COLOURS[1].filled())),
        )
        .map_err(|e| failed(path, e))?
        .label("mean")
        .legend(|(x, y)| Circle::new((x + 10, y), 3, COLOURS[1].filled()));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| failed(path, e))?;
    root.present().map_err(|e| failed(path, e))
}
