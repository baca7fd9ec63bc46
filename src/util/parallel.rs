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
