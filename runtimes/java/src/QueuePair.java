import java.util.concurrent.SynchronousQueue;

/** Two SynchronousQueues: A puts i, B takes it and puts i + 1 back, which A checks. */
final class QueuePair implements Pair {
    private final SynchronousQueue<Long> toB = new SynchronousQueue<>(), toA = new SynchronousQueue<>();
    private final Thread b;
    private final long delayNs;

    QueuePair(Threads threads, long delayNs) {
        this.delayNs = delayNs;
        b = threads.start(() -> {
            try {
                for (long v; (v = toB.take()) >= 0; ) {
                    Pair.spin(delayNs);
                    toA.put(v + 1);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    public long[] batch(long n) throws InterruptedException {
        long seen = 0, t0 = System.nanoTime();
        for (long i = 0; i < n; i++) {
            toB.put(i);
            if (toA.take() == i + 1) seen += 2; // the echo proves both hand-offs arrived
            Pair.spin(delayNs);
        }
        return new long[] {System.nanoTime() - t0, seen};
    }

    public void close() throws InterruptedException {
        toB.put(-1L);
        b.join(10_000);
    }
}
