//! Work on all cores: two pieces side by side ([`join`]: large inputs split in halves over the
//! two cores the tool is measured on, docs/performance.md), and items pulled one by one by a
//! worker per core with the results in item order ([`each_pulled`], [`each_in_parallel`]: files
//! read and parsed, rules run, environments rendered).

/// Runs `a` on the calling thread and `b` on a scoped thread, and returns both results. A panic
/// in `b` resumes on the calling thread, as if `b` had run there.
pub fn join<RA, RB>(a: impl FnOnce() -> RA, b: impl FnOnce() -> RB + Send) -> (RA, RB)
where
    RB: Send,
{
    std::thread::scope(|scope| {
        let b = scope.spawn(b);
        let ra = a();
        let rb = b
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (ra, rb)
    })
}

/// `each` over every item of `paths` on all cores (a single item on the calling thread), each
/// result handed to `sink` on the calling thread in input order as soon as the results before
/// it are in; on several errors the first item's is returned. [`each_pulled`] over a slice.
pub fn each_in_parallel<I: Sync, T: Send, E: Send>(
    paths: &[I],
    each: &(dyn Fn(&I) -> Result<T, E> + Sync),
    sink: &mut dyn FnMut(T),
) -> Result<(), E> {
    if paths.len() <= 1 {
        for path in paths {
            sink(each(path)?);
        }
        return Ok(());
    }
    each_pulled(paths.iter(), &|p| each(p), sink)
}

/// `each` over the items of `items` on all cores: each worker takes the next item when it is
/// free (so an iterator that reads as it goes is read only as fast as the items are
/// processed), and each result goes to `sink` on the calling thread in item order as soon as
/// the results before it are in; on several errors the first item's is returned.
pub fn each_pulled<I: Send, T: Send, E: Send>(
    items: impl Iterator<Item = I> + Send,
    each: &(dyn Fn(I) -> Result<T, E> + Sync),
    sink: &mut dyn FnMut(T),
) -> Result<(), E> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    if workers <= 1 {
        for item in items {
            sink(each(item)?);
        }
        return Ok(());
    }
    let items = std::sync::Mutex::new(items.enumerate());
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (done, results) = std::sync::mpsc::channel::<(usize, Result<T, E>)>();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let done = done.clone();
            let (items, stop) = (&items, &stop);
            scope.spawn(move || {
                use std::sync::atomic::Ordering::Relaxed;
                while !stop.load(Relaxed) {
                    // The lock is held while the iterator produces the item (a read).
                    let next = items.lock().map_or(None, |mut items| items.next());
                    let Some((i, item)) = next else { break };
                    if done.send((i, each(item))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done);
        // Results that came in before an earlier one, by item index.
        let mut waiting = std::collections::BTreeMap::new();
        let mut expected = 0;
        for (i, result) in results.iter() {
            waiting.insert(i, result);
            while let Some(result) = waiting.remove(&expected) {
                expected += 1;
                match result {
                    Ok(t) => sink(t),
                    Err(e) => {
                        // Later items no longer matter: let the workers stop.
                        stop.store(true, std::sync::atomic::Ordering::Relaxed);
                        return Err(e);
                    }
                }
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_results_come_back_in_order() {
        let data = [1, 2, 3, 4];
        let (low, high) = join(
            || data[..2].iter().sum::<i32>(),
            || data[2..].iter().sum::<i32>(),
        );
        assert_eq!((low, high), (3, 7));
    }

    #[test]
    #[should_panic(expected = "second half")]
    fn a_panic_on_the_second_thread_reaches_the_caller() {
        join(|| (), || panic!("second half"));
    }
}
