/** Two parties passing control back and forth (the caller is party A). */
interface Pair extends AutoCloseable {
    /** n round trips (2n one-way hand-offs): {wall ns, one-way hand-offs that arrived}. */
    long[] batch(long n) throws Exception;

    @Override
    void close() throws InterruptedException;

    /** The known-answer busy wait: the receiver of each hand-off spins delayNs on the monotonic clock. */
    static void spin(long delayNs) {
        if (delayNs == 0) return;
        long start = System.nanoTime();
        while (System.nanoTime() - start < delayNs) Thread.onSpinWait();
    }
}
