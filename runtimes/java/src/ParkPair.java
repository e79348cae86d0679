import java.util.concurrent.locks.LockSupport;

/** A volatile turn word and LockSupport.park/unpark: each party unparks the other and parks until its turn. */
final class ParkPair implements Pair {
    private volatile int turn; // 0: A's, 1: B's
    private volatile boolean stop;
    private volatile long seenB;
    private final Thread a = Thread.currentThread();
    private final Thread b;
    private final long delayNs;

    ParkPair(Threads threads, long delayNs) {
        this.delayNs = delayNs;
        b = threads.start(() -> {
            long seen = 0;
            while (true) {
                while (turn != 1 && !stop) LockSupport.park(this);
                if (stop) return;
                seenB = ++seen;
                Pair.spin(delayNs);
                turn = 0;
                LockSupport.unpark(a);
            }
        });
    }

    public long[] batch(long n) {
        long b0 = seenB, seen = 0, t0 = System.nanoTime();
        for (long i = 0; i < n; i++) {
            turn = 1;
            LockSupport.unpark(b);
            while (turn != 0) LockSupport.park(this);
            seen++;
            Pair.spin(delayNs);
        }
        long t = System.nanoTime() - t0;
        return new long[] {t, seen + seenB - b0};
    }

    public void close() throws InterruptedException {
        stop = true;
        LockSupport.unpark(b);
        b.join(10_000);
    }
}
