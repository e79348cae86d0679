import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/** Memory per parked thread, one sample per group. Platform threads: (VmRSS with p parked - VmRSS
 *  before) / p (their stacks and the JVM's native thread structures). Virtual threads: the heap in use
 *  after a full GC, with p parked minus before, / p: a parked virtual thread's stack is a heap object,
 *  and RSS follows the collector (eden pages reused, pages returned at a GC), not the threads. */
final class Park {
    /** {rss before, rss with p parked, heap used before, heap used with p parked}. */
    static long[] once(Threads threads, int p) throws Exception {
        // Only for the heap measure: the garbage of earlier measures is not the parked threads'. The
        // collector returns pages concurrently after a full GC, which would make RSS fall meanwhile.
        boolean heap = threads.kind().equals("virtual");
        if (heap) System.gc();
        long before = settledRss(), heapBefore = heapUsed();
        CountDownLatch parked = new CountDownLatch(p);
        AtomicBoolean release = new AtomicBoolean();
        List<Thread> ts = new ArrayList<>(p);
        long after, heapAfter;
        try {
            for (int i = 0; i < p; i++) {
                ts.add(threads.start(() -> {
                    parked.countDown();
                    while (!release.get()) LockSupport.park(); // spurious wake-ups park again
                }));
            }
            if (!parked.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("parked threads did not all start in 60 s");
            after = Kernel.rssBytes();
            if (heap) System.gc();
            heapAfter = heapUsed();
        } finally {
            release.set(true);
            for (Thread t : ts) LockSupport.unpark(t);
            for (Thread t : ts) t.join(10_000);
        }
        return new long[] {before, after, heapBefore, heapAfter};
    }

    /** RSS once two reads 50 ms apart agree within 1% (a collector still returning pages from an
     *  earlier GC would make it fall under the parked threads); at most 3 s. */
    private static long settledRss() throws Exception {
        long last = Kernel.rssBytes();
        for (int i = 0; i < 60; i++) {
            Thread.sleep(50);
            long now = Kernel.rssBytes();
            if (Math.abs(now - last) <= last / 100) return now;
            last = now;
        }
        return last;
    }

    private static long heapUsed() {
        return java.lang.management.ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private Park() {}
}
