/** Two parties passing control back and forth (the caller is party A). */
interface Pair extends AutoCloseable {
    /** n round trips (2n one-way hand-offs): {wall ns, one-way hand-offs that arrived}. */
    long[] batch(long n) throws Exception;

    @Override
    void close() throws InterruptedException;

    /** What one spin costs beyond its target (the start read, the last read's overshoot), subtracted
     *  from the target: calibrateSpin measures it. Set once before any party starts. */
    long[] SPIN_EXCESS = {0};

    /** The known-answer busy wait: the receiver of each hand-off spins delayNs on the monotonic clock. */
    static void spin(long delayNs) {
        if (delayNs == 0) return;
        long target = Math.max(0, delayNs - SPIN_EXCESS[0]), start = System.nanoTime();
        while (System.nanoTime() - start < target) Thread.onSpinWait();
    }

    /** Calibrates the busy wait for delayNs: after 50 ms of spinning (a CPU that was idle may still be
     *  slowed; the JIT compiles spin meanwhile), the least over 9 trials of the time one spin takes beyond
     *  its target, in back-to-back runs of ~1 ms (an interruption only adds, so the least is the spin's
     *  own). Returns the excess, now subtracted from every target. */
    static long calibrateSpin(long delayNs) {
        SPIN_EXCESS[0] = 0;
        long k = Math.min(100_000, Math.max(10, 1_000_000 / delayNs));
        long[] trials = new long[9];
        spin(50_000_000);
        for (int t = 0; t < trials.length; t++) {
            long t0 = System.nanoTime();
            for (long i = 0; i < k; i++) spin(delayNs);
            trials[t] = Math.max(0, (System.nanoTime() - t0) / k - delayNs);
        }
        return SPIN_EXCESS[0] = java.util.Arrays.stream(trials).min().orElse(0);
    }
}
