//! The statistics of a balance report: shares with their confidence intervals, and the spread
//! of a quantity over games (mean, median, 10th and 90th percentiles).
//!
//! Reporting only: nothing here takes part in a game, so floating point is fine.

use serde::{Deserialize, Serialize};

/// The z value of a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// How often something happened in a number of games, with its 95% confidence interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Share {
    /// Games in which it happened.
    pub count: u64,
    /// `count` over the games played (0 when none were).
    pub share: f64,
    /// The Wilson score interval's lower end.
    pub low: f64,
    /// The Wilson score interval's upper end.
    pub high: f64,
}

impl Share {
    /// `count` out of `games`, with its Wilson score interval at 95%: unlike the normal
    /// approximation it stays within [0, 1] and is sound for shares near 0 or 1 and small runs.
    pub fn of(count: u64, games: u64) -> Share {
        if games == 0 {
            return Share { count, share: 0.0, low: 0.0, high: 1.0 };
        }
        let n = games as f64;
        let p = count as f64 / n;
        let z2 = Z95 * Z95;
        let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = Z95 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
        // At a count of 0 (or all games) the interval's end is 0 (or 1) exactly; the formula
        // leaves a rounding error there (8.67e-19) that analysis tools print as it is.
        let low = if count == 0 { 0.0 } else { (centre - half).max(0.0) };
        let high = if count >= games { 1.0 } else { (centre + half).min(1.0) };
        Share { count, share: p, low, high }
    }

    /// `41.2% (38.9-43.5)`.
    pub fn percent(&self) -> String {
        format!("{:.1}% ({:.1}-{:.1})", 100.0 * self.share, 100.0 * self.low, 100.0 * self.high)
    }
}

/// The spread of a quantity over games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// The mean.
    pub mean: f64,
    /// The median.
    pub median: f64,
    /// The 10th percentile.
    pub p10: f64,
    /// The 90th percentile.
    pub p90: f64,
}

impl Spread {
    /// The spread of `values` (percentiles interpolated between the nearest ranks, as numpy and
    /// pandas do by default). All zero for no values.
    pub fn of(values: &[f64]) -> Spread {
        if values.is_empty() {
            return Spread::default();
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let mean = sorted.iter().sum::<f64>() / sorted.len() as f64;
        Spread::rounded(mean, percentile(&sorted, 0.5), percentile(&sorted, 0.1), percentile(&sorted, 0.9))
    }
}

impl Spread {
    /// The spread of integer values given as how many times each occurs (`counts`), each value
    /// multiplied by `scale`: the same figures `Spread::of` gives for the values listed one by
    /// one, from a table whose size does not grow with their number. All zero for no values.
    pub fn of_counts(counts: &std::collections::BTreeMap<i64, u64>, scale: f64) -> Spread {
        let n: u64 = counts.values().sum();
        if n == 0 {
            return Spread::default();
        }
        // The k-th smallest value (from 0), walking the counts in order.
        let nth = |k: u64| -> f64 {
            let mut seen = 0;
            for (&v, &c) in counts {
                seen += c;
                if k < seen {
                    return v as f64 * scale;
                }
            }
            0.0
        };
        let quantile = |q: f64| {
            let rank = q * (n - 1) as f64;
            let (below, above) = (rank.floor() as u64, rank.ceil() as u64);
            let low = nth(below);
            low + (nth(above) - low) * (rank - below as f64)
        };
        let sum: f64 = counts.iter().map(|(&v, &c)| v as f64 * scale * c as f64).sum();
        Spread::rounded(sum / n as f64, quantile(0.5), quantile(0.1), quantile(0.9))
    }

    /// A spread whose figures are rounded to 9 decimals: interpolating between ranks leaves
    /// binary rounding errors (58.900000000000006) that mean nothing and that files written for
    /// analysis would carry.
    fn rounded(mean: f64, median: f64, p10: f64, p90: f64) -> Spread {
        let round = |x: f64| (x * 1e9).round() / 1e9;
        Spread { mean: round(mean), median: round(median), p10: round(p10), p90: round(p90) }
    }
}

/// The `q` quantile of sorted values, interpolating linearly between ranks.
fn percentile(sorted: &[f64], q: f64) -> f64 {
    let rank = q * (sorted.len() - 1) as f64;
    let (below, above) = (rank.floor() as usize, rank.ceil() as usize);
    sorted[below] + (sorted[above] - sorted[below]) * (rank - below as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 5e-5
    }

    #[test]
    fn wilson_intervals_match_published_values() {
        // Newcombe (1998), "Two-sided confidence intervals for the single proportion", table I:
        // 81/263 -> 0.2553-0.3662; 15/148 -> 0.0624-0.1605; 0/20 -> 0-0.1611; 1/29 -> 0.0061-0.1718.
        let cases =
            [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)];
        for (k, n, low, high) in cases {
            let s = Share::of(k, n);
            assert!((s.low - low).abs() < 5e-4 && (s.high - high).abs() < 5e-4, "{k}/{n}: {s:?}");
        }
        let all = Share::of(20, 20);
        assert!(close(all.high, 1.0) && close(all.low, 1.0 - 0.1611), "{all:?}");
        assert_eq!(Share::of(0, 0).high, 1.0, "no games: nothing is known");
    }

    #[test]
    fn spreads_interpolate_between_ranks() {
        let s = Spread::of(&[1.0, 2.0, 3.0, 4.0, 10.0]);
        assert!(close(s.mean, 4.0) && close(s.median, 3.0), "{s:?}");
        assert!(close(s.p10, 1.4) && close(s.p90, 7.6), "{s:?}");
        assert_eq!(Spread::of(&[]), Spread::default());
    }

    #[test]
    fn spreads_of_counted_values_equal_those_of_the_values_listed() {
        let values = [7, 3, 3, 12, 5, 5, 5, 40, 1, 3, 9];
        let mut counts = std::collections::BTreeMap::new();
        for v in values {
            *counts.entry(v).or_insert(0u64) += 1;
        }
        let listed: Vec<f64> = values.iter().map(|&v| v as f64).collect();
        assert_eq!(Spread::of_counts(&counts, 1.0), Spread::of(&listed));
        let scaled = Spread::of_counts(&counts, 0.5);
        let by_hand = Spread::of(&listed.iter().map(|v| v * 0.5).collect::<Vec<_>>());
        assert!(close(scaled.mean, by_hand.mean) && close(scaled.median, by_hand.median), "{scaled:?}");
        assert!(close(scaled.p10, by_hand.p10) && close(scaled.p90, by_hand.p90), "{scaled:?}");
        assert_eq!(Spread::of_counts(&std::collections::BTreeMap::new(), 1.0), Spread::default());
    }

    #[test]
    fn a_share_of_none_or_all_has_exact_ends_and_spreads_carry_no_rounding_noise() {
        let none = Share::of(0, 7);
        assert_eq!(none.low, 0.0, "{none:?}");
        let all = Share::of(7, 7);
        assert_eq!(all.high, 1.0, "{all:?}");
        // Eight games of 1 to 8 decisions: the 10th percentile lies at rank 0.7, which binary
        // arithmetic makes 0.7000000000000001, and 1.7000000000000002 unrounded.
        let values = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
        assert_eq!(Spread::of(&values).p10, 1.7);
        let counts = (1..=8).map(|v| (v, 1)).collect();
        assert_eq!(Spread::of_counts(&counts, 1.0).p10, 1.7);
    }
}
