//! The scheduler names a control plane's karmada-schedulers run with besides the default, each
//! with where it was read: the configuration's `schedulers:`, and the repository's own Karmada
//! (a karmada-scheduler Deployment's `--scheduler-name`, the operator's
//! `karmadaScheduler.extraArgs`; [`crate::model::installation`]).
//!
//! karmada-scheduler's `--scheduler-name` is a string flag with the default `default-scheduler`
//! (`cmd/scheduler/app/options/options.go:165`, `scheduler.DefaultScheduler` in
//! `pkg/scheduler/scheduler.go:81`; the same from v1.10.0 on), and the scheduler takes only the
//! bindings whose `schedulerName` is its own, an empty one read as the default
//! (`pkg/scheduler/event_handler.go:380-386`).

/// The name karmada-scheduler runs with unless `--scheduler-name` says otherwise.
pub const DEFAULT_SCHEDULER: &str = "default-scheduler";

/// A scheduler name served besides the default, and where it was set (`file:line`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Served {
    pub name: String,
    pub from: String,
}

/// The scheduler names served besides [`DEFAULT_SCHEDULER`], each once, in the order they were
/// first read (the first place naming one is kept).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schedulers(Vec<Served>);

impl Schedulers {
    /// Adds `name`, read at `from`, unless it is the default or already there.
    pub fn add(&mut self, name: &str, from: String) {
        if name.is_empty() || name == DEFAULT_SCHEDULER || self.get(name).is_some() {
            return;
        }
        self.0.push(Served {
            name: name.to_string(),
            from,
        });
    }

    /// `other`'s names after these (the union; a name both hold keeps its place here).
    pub fn extend(&mut self, other: &Schedulers) {
        for s in &other.0 {
            self.add(&s.name, s.from.clone());
        }
    }

    /// Whether a binding with `schedulerName` `name` is scheduled: the default scheduler's
    /// name (or none), or one of these.
    pub fn serves(&self, name: &str) -> bool {
        name.is_empty() || name == DEFAULT_SCHEDULER || self.get(name).is_some()
    }

    /// A policy's `schedulerName` when no scheduler serves it (karmada-scheduler takes only the
    /// bindings of its own name: `schedulerNameFilter`, pkg/scheduler/event_handler.go:380-386);
    /// `None` when it is served or not set.
    pub fn unserved<'n>(&self, scheduler_name: Option<&'n str>) -> Option<&'n str> {
        scheduler_name.filter(|name| !self.serves(name))
    }

    pub fn get(&self, name: &str) -> Option<&Served> {
        self.0.iter().find(|s| s.name == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Served> {
        self.0.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_always_served_and_each_name_kept_once_where_first_read() {
        let mut s = Schedulers::default();
        s.add(DEFAULT_SCHEDULER, "a:1".into());
        s.add("", "a:2".into());
        assert!(s.is_empty());
        s.add("custom", "c.yaml:3".into());
        let mut more = Schedulers::default();
        more.add("custom", "d.yaml:9".into());
        more.add("fast", "d.yaml:10".into());
        s.extend(&more);
        let read: Vec<(&str, &str)> = s
            .iter()
            .map(|x| (x.name.as_str(), x.from.as_str()))
            .collect();
        assert_eq!(read, [("custom", "c.yaml:3"), ("fast", "d.yaml:10")]);
        assert!(s.serves("") && s.serves(DEFAULT_SCHEDULER) && s.serves("fast"));
        assert!(!s.serves("other"));
    }
}
