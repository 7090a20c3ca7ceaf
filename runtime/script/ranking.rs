//! Pure helpers over values a script gives, registered on both handles (they read nothing of the
//! game, so an agent may use them as freely as a rule hook): ranking names by tie-breakers, and
//! the lines of a track a value crosses.

use rhai::{Array, Dynamic, Map};

use super::{RhaiResult, fail};

/// `rank(keys)`: `keys` maps names to arrays of integers (tie-breakers in order, higher is
/// better). Returns groups of names, best first; names equal on every key share a group, in the
/// map's order (a Rhai map's keys are in sorted order). Scores with tie-breakers, a turn order
/// recomputed from a counter (with the previous position as the last key), a shared win.
pub(super) fn rank(keys: &Map) -> RhaiResult<Array> {
    let mut entries: Vec<(&str, Vec<i64>)> = Vec::with_capacity(keys.len());
    for (name, value) in keys {
        let Some(list) = value.read_lock::<Array>() else {
            return fail(format!("rank: `{name}` must have an array of integers, not {value}"));
        };
        let mut ints = Vec::with_capacity(list.len());
        for v in list.iter() {
            match v.as_int() {
                Ok(i) => ints.push(i),
                Err(_) => return fail(format!("rank: `{name}` has a key that is not an integer: {v}")),
            }
        }
        if let Some((first, keys)) = entries.first()
            && keys.len() != ints.len()
        {
            return fail(format!(
                "rank: `{first}` has {} keys and `{name}` {}: every name needs as many",
                keys.len(),
                ints.len()
            ));
        }
        entries.push((name.as_str(), ints));
    }
    // A stable sort keeps the map's order among names that tie.
    entries.sort_by(|a, b| b.1.cmp(&a.1));
    let mut groups = Array::new();
    let mut group = Array::new();
    for (i, (name, key)) in entries.iter().enumerate() {
        if i > 0 && entries[i - 1].1 != *key {
            groups.push(Dynamic::from_array(std::mem::take(&mut group)));
        }
        group.push(Dynamic::from(name.to_string()));
    }
    if !group.is_empty() {
        groups.push(Dynamic::from_array(group));
    }
    Ok(groups)
}

/// `crossings(before, after, lines)`: the lines a value moving from `before` to `after` crosses,
/// in the order it crosses them. A line at `l` marks where "at least `l`" begins: moving up
/// crosses it when `before < l <= after` (reaching it is crossing it), moving down when
/// `after < l <= before` (dropping below it). Lines given twice are crossed twice.
pub(super) fn crossings(before: i64, after: i64, lines: &Array) -> RhaiResult<Array> {
    let mut crossed = Vec::new();
    for line in lines {
        let Ok(l) = line.as_int() else {
            return fail(format!("crossings: the lines must be integers, not {line}"));
        };
        if (before < l && l <= after) || (after < l && l <= before) {
            crossed.push(l);
        }
    }
    // Stable: equal lines keep the order they were given in.
    if after >= before {
        crossed.sort();
    } else {
        crossed.sort_by(|a, b| b.cmp(a));
    }
    Ok(crossed.into_iter().map(Dynamic::from_int).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(entries: &[(&str, &[i64])]) -> Map {
        entries
            .iter()
            .map(|(n, k)| ((*n).into(), Dynamic::from_array(k.iter().copied().map(Dynamic::from_int).collect())))
            .collect()
    }

    fn shown(groups: Array) -> String {
        format!("{groups:?}")
    }

    #[test]
    fn ties_share_a_group_in_map_order() {
        let groups = rank(&keys(&[("c", &[3, 1]), ("a", &[3, 1]), ("b", &[3, 2]), ("d", &[1, 9])])).unwrap();
        assert_eq!(shown(groups), r#"[["b"], ["a", "c"], ["d"]]"#);
    }

    #[test]
    fn crossing_down_goes_in_decreasing_order() {
        let lines: Array = [3, 9, 6].into_iter().map(Dynamic::from_int).collect();
        assert_eq!(format!("{:?}", crossings(9, 2, &lines).unwrap()), "[9, 6, 3]");
        assert_eq!(format!("{:?}", crossings(2, 9, &lines).unwrap()), "[3, 6, 9]");
        assert_eq!(format!("{:?}", crossings(3, 5, &lines).unwrap()), "[]");
    }
}
