//! Choosing ONE policy among the matching ones (claim-and-preemption.md §2.3 and §3).
//!
//! `getHighestPriorityPropagationPolicy` / `getHighestPriorityClusterPropagationPolicy`
//! (`pkg/detector/compare.go:30-126`): the lexicographic maximum over
//! (explicit priority ↑, implicit priority ↑, name ↓ in byte order); listing order is irrelevant.
//! Any matching PP beats every CPP (`policy.go:61-94`).

use std::cmp::Ordering;

use super::selector::ImplicitPriority;

/// What ranking looks at for one matching policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankKey<'a> {
    /// PPs are consulted first; a CPP only when no PP matches (§3).
    pub is_pp: bool,
    pub explicit: i32,
    pub implicit: ImplicitPriority,
    pub name: &'a str,
}

/// Which field decided between two policies (for the `why` of a loser).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decider {
    /// A PP against a CPP: the PP wins whatever the priorities (§3).
    PpBeatsCpp,
    /// `spec.priority` (compare.go:42-47).
    Explicit,
    /// Name > label selector > match-all (compare.go:49-55).
    Implicit,
    /// Go `<` on the names: byte order, the smaller wins (compare.go:105-126).
    Name,
    /// Same policy.
    Same,
}

/// Why one matching policy beats another in a fresh match, in words: "higher explicit
/// priority (1 > 0)". Said by `lint`'s overlap and by `preempt-check` and `plan` for a policy
/// that loses an unclaimed template to a better match (claim-and-preemption.md §2.3, §6.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreshMatchWhy {
    pub decider: Decider,
    /// The winner's and the loser's `spec.priority`.
    pub priorities: (i32, i32),
    /// The winner's and the loser's selector precision on the template.
    pub selectors: (ImplicitPriority, ImplicitPriority),
    /// The winner's and the loser's names.
    pub names: (String, String),
}

impl std::fmt::Display for FreshMatchWhy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ((wp, lp), (ws, ls), (wn, ln)) = (self.priorities, self.selectors, &self.names);
        match self.decider {
            Decider::PpBeatsCpp => f.write_str(
                "a PropagationPolicy always beats a ClusterPropagationPolicy, whatever the priorities",
            ),
            Decider::Explicit => write!(f, "higher explicit priority ({wp} > {lp})"),
            Decider::Implicit => write!(
                f,
                "more precise selector ({} beats {}; both priority {wp})",
                ws.as_str(),
                ls.as_str()
            ),
            Decider::Name | Decider::Same => write!(
                f,
                "name order only (same priority {wp} and selector precision; `{wn}` sorts before `{ln}`)"
            ),
        }
    }
}

/// `Ordering::Greater` when `a` is the better policy. Names compare as bytes (`"ab" < "abc"`,
/// uppercase before lowercase), and the smaller name is better.
pub fn compare(a: &RankKey<'_>, b: &RankKey<'_>) -> (Ordering, Decider) {
    if a.is_pp != b.is_pp {
        return (a.is_pp.cmp(&b.is_pp), Decider::PpBeatsCpp);
    }
    match a.explicit.cmp(&b.explicit) {
        Ordering::Equal => {}
        o => return (o, Decider::Explicit),
    }
    match a.implicit.cmp(&b.implicit) {
        Ordering::Equal => {}
        o => return (o, Decider::Implicit),
    }
    match b.name.as_bytes().cmp(a.name.as_bytes()) {
        Ordering::Equal => (Ordering::Equal, Decider::Same),
        o => (o, Decider::Name),
    }
}

/// Sorts best first.
pub fn sort_best_first<'a, T>(items: &mut [T], key: impl Fn(&T) -> RankKey<'a>) {
    items.sort_by(|a, b| compare(&key(b), &key(a)).0);
}

/// The best of the matching candidates (implicit priority > 0), as compare.go computes it.
pub fn best<'a, T>(
    items: impl IntoIterator<Item = T>,
    key: impl Fn(&T) -> RankKey<'a>,
) -> Option<T> {
    let mut best: Option<T> = None;
    for item in items {
        // compare.go:36-39: a non-matching candidate is skipped.
        if !key(&item).implicit.matches() {
            continue;
        }
        best = match best {
            Some(b) if compare(&key(&b), &key(&item)).0 != Ordering::Less => Some(b),
            _ => Some(item),
        };
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use ImplicitPriority::*;

    fn pp(explicit: i32, implicit: ImplicitPriority, name: &str) -> RankKey<'_> {
        RankKey {
            is_pp: true,
            explicit,
            implicit,
            name,
        }
    }

    fn cpp(explicit: i32, implicit: ImplicitPriority, name: &str) -> RankKey<'_> {
        RankKey {
            is_pp: false,
            ..pp(explicit, implicit, name)
        }
    }

    /// (candidates, expected winner name, what decided) — compare_test.go and §2.3/§3.
    #[test]
    fn ranking_table() {
        let cases: Vec<(&str, Vec<RankKey>, &str)> = vec![
            (
                "explicit dominates: match-all 1 beats name 0",
                vec![pp(0, MatchName, "a"), pp(1, MatchAll, "b")],
                "b",
            ),
            (
                "name match -1 loses to label 0",
                vec![pp(-1, MatchName, "a"), pp(0, MatchLabelSelector, "b")],
                "b",
            ),
            (
                "implicit decides at equal explicit",
                vec![pp(0, MatchLabelSelector, "a"), pp(0, MatchName, "z")],
                "z",
            ),
            (
                "label beats all",
                vec![pp(0, MatchAll, "a"), pp(0, MatchLabelSelector, "b")],
                "b",
            ),
            (
                "name tie-break: ab before abc",
                vec![pp(0, MatchAll, "abc"), pp(0, MatchAll, "ab")],
                "ab",
            ),
            (
                "byte order: uppercase first",
                vec![pp(0, MatchAll, "b"), pp(0, MatchAll, "B")],
                "B",
            ),
            (
                "byte order: '-' before '.' before digits",
                vec![
                    pp(0, MatchAll, "a.b"),
                    pp(0, MatchAll, "a-b"),
                    pp(0, MatchAll, "a0"),
                ],
                "a-b",
            ),
            (
                "PP at -5 beats CPP at 100",
                vec![cpp(100, MatchName, "platform"), pp(-5, MatchAll, "team")],
                "team",
            ),
            (
                "MinInt32 still selected",
                vec![pp(i32::MIN, MatchAll, "x")],
                "x",
            ),
            (
                "mismatch skipped",
                vec![pp(100, MisMatch, "a"), pp(0, MatchAll, "b")],
                "b",
            ),
        ];
        for (what, cands, want) in cases {
            for order in [false, true] {
                let mut c = cands.clone();
                if order {
                    c.reverse();
                }
                let got = best(c.iter().copied(), |k| *k).map(|k| k.name);
                assert_eq!(got, Some(want), "{what} (reversed: {order})");
            }
        }
    }

    #[test]
    fn decider_names_the_deciding_field() {
        assert_eq!(
            compare(&pp(0, MatchName, "a"), &pp(0, MatchLabelSelector, "a")).1,
            Decider::Implicit
        );
        assert_eq!(
            compare(&pp(-5, MatchAll, "a"), &cpp(100, MatchName, "a")),
            (Ordering::Greater, Decider::PpBeatsCpp)
        );
        assert_eq!(
            compare(&pp(0, MatchAll, "ab"), &pp(0, MatchAll, "abc")),
            (Ordering::Greater, Decider::Name)
        );
    }

    #[test]
    fn sorting_puts_best_first() {
        let mut v = vec![
            pp(0, MatchAll, "b"),
            pp(3, MatchAll, "c"),
            pp(0, MatchAll, "a"),
        ];
        sort_best_first(&mut v, |k| *k);
        let names: Vec<_> = v.iter().map(|k| k.name).collect();
        assert_eq!(names, vec!["c", "a", "b"]);
    }
}
