import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The protocol's measuring loop (runtimes/PROTOCOL.md): N doubled until a batch lasts min-sample-us, warm-up
 *  until the JIT has settled, then G groups of I samples, each group with a fresh pair. */
final class Measure {
    /** delays: the known-answer delays, one (the protocol's --delay-ns D) or several interleaved group by
     *  group (--delay-ns 0,1000: the known-answer test). */
    record Opts(int groups, int iterations, long minSampleNs, long warmupMs, long[] delays) {}

    interface PairMaker {
        Pair make(long delayNs) throws Exception;
    }

    interface SpawnBatch {
        /** k spawn+joins: the batch's ns. */
        long run(long k) throws Exception;
    }

    static final class Samples {
        long n;
        final List<Long> total = new ArrayList<>(), count = new ArrayList<>(), vol = new ArrayList<>(), inv = new ArrayList<>();
        final List<Integer> group = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();
        String warmup = "";
        Long pinned; // jdk.VirtualThreadPinned events over the pin check (virtual threads only)
        double recordingNs = Double.NaN; // the pin check's median ns per hand-off, a JFR recording running
    }

    private static final long N_CAP = 1L << 26, BATCH_CAP_NS = 1_000_000_000L;
    private static final int STABLE_RUN = 3;
    private static final double STABLE_TOL = 0.05;
    private static final long JIT_QUIET_NS = 100_000_000L;
    /** A fresh pair's partner loop starts in the interpreter and reaches its C2 code by on-stack
     *  replacement, which the interpreter looks for every 1024 back-edges: each group starts with an
     *  untimed batch of at least this many round trips (interpreted frames also make a virtual thread's
     *  park take the slow path, copying them: 1 to 5 us a hand-off, measured here). */
    private static final long GROUP_WARM_ROUND_TRIPS = 4096;
    /** batch() is entered afresh for every sample: called this often first (one round trip each), C2
     *  compiles it as a method, not only its loop, so a sample does not start in the interpreter. */
    private static final int BATCH_CALLS = 2000;
    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();

    private static long jitMs() {
        return JIT != null && JIT.isCompilationTimeMonitoringSupported() ? JIT.getTotalCompilationTime() : -1;
    }

    /** The last STABLE_RUN batches within STABLE_TOL of their median, and no JIT compilation over the
     *  last JIT_QUIET_NS (a compilation queued by those batches takes the compiler threads that long). */
    private static boolean settled(List<Double> per, List<Long> jit, List<Long> at) {
        int k = per.size();
        if (k < STABLE_RUN + 1) return false;
        double[] last = per.subList(k - STABLE_RUN, k).stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double mid = last[STABLE_RUN / 2];
        if (!Arrays.stream(last).allMatch(v -> Math.abs(v - mid) <= STABLE_TOL * mid)) return false;
        long now = at.get(k - 1), ms = jit.get(k - 1);
        for (int i = k - 2; i >= 0; i--) {
            if (!jit.get(i).equals(ms)) return false;
            if (now - at.get(i) >= JIT_QUIET_NS) return true;
        }
        return false;
    }

    /** Per delay: n calibrated and the JIT warmed up (prepare), then G groups of fresh pairs, the delays
     *  taking turns group by group (so a drift of the host hits each alike). type: the pair's class, whose
     *  loops must be compiled before timing. */
    static List<Samples> handoff(PairMaker make, Class<? extends Pair> type, Opts o) throws Exception {
        List<Samples> out = new ArrayList<>();
        for (long d : o.delays()) out.add(prepare(() -> make.make(d), type, o));
        String between = warmBetweenSamples();
        for (Samples s : out) s.warmup += between;
        long jitInside = 0; // ms of JIT compilation that finished inside a timed batch
        int jitSamples = 0;
        for (int g = 0; g < o.groups(); g++) {
            for (int k = 0; k < out.size(); k++) {
                Samples s = out.get(k);
                long n = s.n;
                try (Pair p = make.make(o.delays()[k])) {
                    p.batch(Math.max(n, GROUP_WARM_ROUND_TRIPS)); // untimed: see GROUP_WARM_ROUND_TRIPS
                    for (int i = 0; i < o.iterations(); i++) {
                        var k0 = Kernel.switches();
                        long j0 = jitMs();
                        long[] r = p.batch(n);
                        long j1 = jitMs();
                        long[] ks = Kernel.delta(k0, Kernel.switches());
                        if (r[1] != 2 * n) throw new IllegalStateException(r[1] + " of " + 2 * n + " hand-offs arrived");
                        if (j1 > j0) {
                            jitInside += j1 - j0;
                            jitSamples++;
                        }
                        s.total.add(r[0]);
                        s.count.add(2 * n);
                        s.group.add(g);
                        s.vol.add(ks[0]);
                        s.inv.add(ks[1]);
                    }
                }
            }
        }
        for (Samples s : out)
            if (jitInside > 0) s.warnings.add("the JIT compiled for " + jitInside + " ms inside " + jitSamples + " timed samples");
        return out;
    }

    private static final int BETWEEN_CALLS = 500;
    private static final long BETWEEN_QUIET_NS = 300_000_000L, BETWEEN_MOST_NS = 3_000_000_000L;

    /** The code that runs between samples (the switch counts read around each) compiled, after the mechanism's
     *  warm-up has loaded its classes (a class loaded later invalidates code compiled on assumptions about the
     *  class hierarchy, and it is compiled again): called at least BETWEEN_CALLS times and until no JIT
     *  compilation finished for BETWEEN_QUIET_NS, for at most BETWEEN_MOST_NS. Otherwise its compilations land in
     *  the first timed samples' switch counts: the JVM compiles in the thread that asks, and the counts are read
     *  thread by thread after the batch (20-150 switches a sample, measured). What was done, for the record. */
    static String warmBetweenSamples() throws java.io.IOException {
        long t0 = System.nanoTime(), quietSince = t0, ms = jitMs();
        int calls = 0;
        boolean quiet = false;
        for (; System.nanoTime() - t0 < BETWEEN_MOST_NS && !quiet; calls++) {
            Kernel.delta(Kernel.switches(), Kernel.switches());
            long now = jitMs(), at = System.nanoTime();
            if (now != ms) {
                ms = now;
                quietSince = at;
            }
            quiet = calls + 1 >= BETWEEN_CALLS && at - quietSince >= BETWEEN_QUIET_NS;
        }
        return String.format("; then %d calls of the between-sample code over %d ms (%s)", calls,
                (System.nanoTime() - t0) / 1_000_000, quiet ? "no JIT compilation over the last " + BETWEEN_QUIET_NS / 1_000_000 + " ms"
                        : "the JIT still compiling");
    }

    /** Untimed warm-up of a JFR recording before the pin check's batches are timed (its own classes and
     *  code load and compile first). */
    private static final long PIN_CHECK_WARM_NS = 200_000_000L;

    /** Whether the hand-off pins its carrier: a JFR recording of jdk.VirtualThreadPinned (no threshold) over a
     *  fresh pair per delay running the same loop, PIN_CHECK_WARM_NS of batches and then I batches of n, whose per
     *  hand-off time is kept as what the recording costs. Run after every timed measure of the JVM, never while
     *  timing: a recording made each virtual-thread hand-off 50-80 ns dearer here, and it stays dearer after the
     *  recording is closed (docs/runtimes.md). Pinning is a property of the code path (a native frame or, before
     *  JDK 24, a monitor held across park), so the same loop pins here if it pinned while timed. */
    static void pinCheck(PairMaker make, Threads threads, Opts o, List<Samples> out) throws Exception {
        Threads.PinCounter pins = threads.pinCounter();
        if (pins == null) return;
        try {
            java.time.Instant from = java.time.Instant.now();
            for (int k = 0; k < out.size(); k++) {
                Samples s = out.get(k);
                double[] per = new double[o.iterations()];
                try (Pair p = make.make(o.delays()[k])) {
                    long t0 = System.nanoTime();
                    p.batch(Math.max(s.n, GROUP_WARM_ROUND_TRIPS));
                    while (System.nanoTime() - t0 < PIN_CHECK_WARM_NS) p.batch(s.n);
                    for (int i = 0; i < per.length; i++) per[i] = p.batch(s.n)[0] / (2.0 * s.n);
                }
                Arrays.sort(per);
                s.recordingNs = per[per.length / 2];
            }
            long n = pins.count(from, java.time.Instant.now());
            for (Samples s : out) s.pinned = n;
        } finally {
            pins.close();
        }
    }

    interface OnePair {
        Pair make() throws Exception;
    }

    /** Warm-up and calibration of n on pairs of one delay: a Samples with n and the warm-up said. */
    private static Samples prepare(OnePair make, Class<? extends Pair> type, Opts o) throws Exception {
        Samples s = new Samples();
        long n = 1;
        // warm-up and calibration in one, shaped like the timed part (a fresh pair every
        // I batches, the switch counts read around each), so that every path the timed part
        // takes is compiled: n doubles while a batch is shorter than min-sample-us (the JIT
        // makes it shorter as it compiles); settled when the last batches are long enough,
        // stable and free of JIT compilation, after at least warmup-ms and for at most 10x as long
        List<Double> per = new ArrayList<>();
        List<Long> jit = new ArrayList<>(), at = new ArrayList<>();
        long t0 = System.nanoTime(), floor = o.warmupMs() * 1_000_000L, limit = 10 * Math.max(o.warmupMs(), 1) * 1_000_000L;
        int sized = 0; // batches in a row at the final n
        try (Pair p = make.make()) {
            for (int i = 0; i < BATCH_CALLS; i++) p.batch(1);
        }
        jit.add(jitMs());
        at.add(t0);
        per.add(Double.NaN);
        warm:
        while (true) {
            try (Pair p = make.make()) {
                for (int i = 0; i < o.iterations(); i++) {
                    if (System.nanoTime() - t0 >= limit || per.size() >= 100_000) break warm;
                    // the timed part's own calls around a batch, so that every class they load is loaded
                    // before timing (a class loaded later can deoptimise the compiled hand-off path)
                    var k0 = Kernel.switches();
                    jitMs();
                    long t = p.batch(n)[0];
                    long j1 = jitMs();
                    Kernel.delta(k0, Kernel.switches());
                    per.add(t / (double) n);
                    jit.add(j1);
                    at.add(System.nanoTime());
                    if (t < o.minSampleNs() && n < N_CAP && 2 * t <= BATCH_CAP_NS) {
                        n *= 2;
                        sized = 0;
                    } else if (++sized > STABLE_RUN && System.nanoTime() - t0 >= floor && settled(per, jit, at) && Jit.optimised(type)) break warm;
                }
            }
        }
        boolean ok = sized > STABLE_RUN && settled(per, jit, at) && Jit.optimised(type);
        s.n = n;
        s.warmup = String.format("%d calls of batch(1), then %d warm-up batches over %d ms, a fresh pair every %d, each group starting with an untimed "
                        + "batch of >= %d round trips; %s: both parties' loops in C2 (tier 4) code in use "
                        + "(Compiler.codelist), per-batch time within %d%% over the last %d (each >= min-sample-us) and no JIT "
                        + "compilation over the last %d ms (CompilationMXBean total time, %d ms by then); "
                        + "the JVM compiles in the thread that asks (-XX:-BackgroundCompilation, the launcher's), between samples",
                BATCH_CALLS, per.size() - 1, (System.nanoTime() - t0) / 1_000_000, o.iterations(), GROUP_WARM_ROUND_TRIPS,
                ok ? "settled" : "NOT settled",
                (int) (STABLE_TOL * 100), STABLE_RUN, JIT_QUIET_NS / 1_000_000, jitMs());
        if (!ok) s.warnings.add("warm-up did not settle: per-batch time or JIT compilation still changing");
        return s;
    }

    static Samples spawn(SpawnBatch batch, long k, Opts o) throws Exception {
        Samples s = new Samples();
        s.n = k;
        long t0 = System.nanoTime();
        int warm = 0;
        while (warm < 3 || System.nanoTime() - t0 < o.warmupMs() * 1_000_000L && warm < 1000) {
            batch.run(k);
            warm++;
        }
        s.warmup = warm + " batches of the same spawns before timing (at least 3, for at least warmup-ms)";
        for (int g = 0; g < o.groups(); g++) {
            for (int i = 0; i < o.iterations(); i++) {
                var k0 = Kernel.switches();
                long t = batch.run(k);
                long[] ks = Kernel.delta(k0, Kernel.switches());
                s.total.add(t);
                s.count.add(k);
                s.group.add(g);
                s.vol.add(ks[0]);
                s.inv.add(ks[1]);
            }
        }
        return s;
    }

    private Measure() {}
}
