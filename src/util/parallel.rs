//! Two pieces of work side by side: large inputs are split in halves over the two cores the
//! tool is measured on (docs/performance.md).

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

/// `f` of each item, in the items' order, computed on up to as many threads as the machine
/// has cores (the calling thread one of them): each thread takes the next item not yet taken,
/// so one long item does not hold the others back as a fixed split would.
pub fn map_pulled<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = items.get(i) else {
            break;
        };
        let r = f(item);
        *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
    };
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(work)).collect();
        work();
        for h in helpers {
            h.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every item was taken")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pulled_results_keep_the_items_order() {
        let items: Vec<u64> = (0..50).collect();
        let out = map_pulled(&items, |&i| {
            // Uneven work: the early items take longest.
            std::hint::black_box((0..(50 - i) * 10_000).sum::<u64>());
            i
        });
        assert_eq!(out, items);
        assert!(map_pulled(&[] as &[u8], |&b| b).is_empty());
    }

    #[test]
    #[should_panic(expected = "item 3")]
    fn a_panic_in_a_pulled_item_reaches_the_caller() {
        map_pulled(&[1, 2, 3, 4], |&i| {
            if i == 3 {
                panic!("item 3");
            }
            i
        });
    }

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
