import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/** ctxbench-rt-java: the Java harness of `ctxbench runtimes` (issue 24), protocol of runtimes/PROTOCOL.md. */
public final class CtxbenchRt {
    static final String NAME = "ctxbench-rt-java";
    /** At most this many platform threads are parked for --park (10^5 would hit the host's thread limits). */
    static final int PLATFORM_PARK_CAP = 2000;

    record Mechanism(String name, boolean virtual, String family, String doc, Class<? extends Pair> type, BiFunction<Threads, Long, Pair> pair) {}

    static final List<Mechanism> MECHANISMS = List.of(
            new Mechanism("vt-park", true, "virtual-thread", "two virtual threads hand a turn word over with LockSupport.unpark/park", ParkPair.class, ParkPair::new),
            new Mechanism("vt-queue", true, "virtual-thread", "two virtual threads pass a token over two SynchronousQueues", QueuePair.class, QueuePair::new),
            new Mechanism("platform-park", false, "platform-thread", "two platform threads hand a turn word over with LockSupport.unpark/park", ParkPair.class, ParkPair::new),
            new Mechanism("platform-queue", false, "platform-thread", "two platform threads pass a token over two SynchronousQueues", QueuePair.class, QueuePair::new));

    static final class Args {
        List<Mechanism> mechanisms = MECHANISMS;
        String placement;
        int groups = 3, iterations = 10;
        long minSampleUs = 1000, warmupMs = 200, spawn = 0, park = 0;
        long[] delays = {0};
        boolean list;
    }

    static final class BadArgs extends Exception {
        BadArgs(String m) {
            super(m);
        }
    }

    static long number(String[] a, int i, long lo, long hi) throws BadArgs {
        if (i + 1 >= a.length) throw new BadArgs(a[i] + " wants a value");
        try {
            long v = Long.parseLong(a[i + 1]);
            if (v >= lo && v <= hi) return v;
        } catch (NumberFormatException e) {
            // the message below
        }
        throw new BadArgs(a[i] + " wants an integer in [" + lo + ", " + hi + "], not \"" + a[i + 1] + "\"");
    }

    static Args parse(String[] a) throws BadArgs {
        Args r = new Args();
        for (int i = 0; i < a.length; i++) {
            switch (a[i]) {
                case "--list" -> r.list = true;
                case "--mechanisms" -> {
                    if (i + 1 >= a.length) throw new BadArgs("--mechanisms wants a value");
                    List<Mechanism> ms = new ArrayList<>();
                    for (String m : a[++i].split(","))
                        ms.add(MECHANISMS.stream().filter(k -> k.name.equals(m)).findFirst()
                                .orElseThrow(() -> new BadArgs("unknown mechanism \"" + m + "\" (--list shows them)")));
                    r.mechanisms = ms;
                }
                case "--placement" -> {
                    if (i + 1 >= a.length || !(a[i + 1].equals("pinned") || a[i + 1].equals("default")))
                        throw new BadArgs("--placement is pinned or default");
                    r.placement = a[++i];
                }
                case "--groups" -> r.groups = (int) number(a, i++, 1, 1000);
                case "--iterations" -> r.iterations = (int) number(a, i++, 1, 100_000);
                case "--min-sample-us" -> r.minSampleUs = number(a, i++, 1, 1_000_000);
                case "--warmup-ms" -> r.warmupMs = number(a, i++, 0, 60_000);
                case "--delay-ns" -> { // one delay, or several interleaved group by group (one result each)
                    if (i + 1 >= a.length) throw new BadArgs("--delay-ns wants a value");
                    try {
                        r.delays = java.util.Arrays.stream(a[++i].split(",", -1)).mapToLong(Long::parseLong).toArray();
                    } catch (NumberFormatException e) {
                        r.delays = new long[] {-1};
                    }
                    if (java.util.Arrays.stream(r.delays).anyMatch(d -> d < 0 || d > 10_000_000))
                        throw new BadArgs("--delay-ns wants integers in [0, 10000000], comma-separated, not \"" + a[i] + "\"");
                }
                case "--spawn" -> r.spawn = number(a, i++, 1, 1_000_000);
                case "--park" -> r.park = number(a, i++, 1, 1_000_000);
                default -> throw new BadArgs("unknown argument \"" + a[i] + "\"");
            }
        }
        if (!r.list && r.placement == null) throw new BadArgs("--placement pinned|default is required");
        return r;
    }

    static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    static Map<String, Object> header() {
        List<String> gcs = new ArrayList<>();
        for (GarbageCollectorMXBean g : ManagementFactory.getGarbageCollectorMXBeans()) gcs.add(g.getName());
        return map("tool", map("name", NAME, "version", "0"),
                "runtime", map("name", "java", "version", System.getProperty("java.runtime.version"),
                        "flags", map("vm", System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"),
                                "vendor", System.getProperty("java.vendor"),
                                "vm_args", ManagementFactory.getRuntimeMXBean().getInputArguments(),
                                "gc", gcs,
                                "available_processors", Runtime.getRuntime().availableProcessors(),
                                "jdk.virtualThreadScheduler.parallelism", System.getProperty("jdk.virtualThreadScheduler.parallelism"),
                                "jdk.virtualThreadScheduler.maxPoolSize", System.getProperty("jdk.virtualThreadScheduler.maxPoolSize"))));
    }

    static Map<String, Object> result(String id, String quantity, String unit, String doc, Map<String, Object> params,
                                      Measure.Samples s, List<Double> samples, Map<String, Object> raw, long warmupMs) {
        Map<String, Object> r = map("id", id, "quantity", quantity, "unit", unit, "doc", doc, "params", params,
                "samples", samples, "group", s.group, "raw", raw,
                "verify", map("voluntary", s.vol, "involuntary", s.inv, "source", Kernel.SOURCE),
                "warmup", map("ms", warmupMs, "method", s.warmup), "warnings", s.warnings);
        if (s.pinned != null)
            r.put("jfr", map("virtual_thread_pinned", s.pinned, "counted_over", "an untimed check after the timed groups: "
                    + "a fresh pair per delay running the same loop, a JFR recording of jdk.VirtualThreadPinned (no threshold) on",
                    "ns_per_handoff_while_recording", List.of(s.recordingNs)));
        return r;
    }

    static List<Double> perUnit(Measure.Samples s) {
        List<Double> v = new ArrayList<>();
        for (int i = 0; i < s.total.size(); i++) v.add(s.total.get(i) / (double) s.count.get(i));
        return v;
    }

    static Threads virtualThreads() throws Exception {
        // by name: the class is compiled for JDK 21 and must not be loaded on an older one
        return (Threads) Class.forName("VirtualThreads").getDeclaredConstructor().newInstance();
    }

    static void run(Args a) throws Exception {
        System.out.println(Json.of(header()));
        int feature = Runtime.version().feature();
        boolean pinned = a.placement.equals("pinned");
        Measure.Opts o = new Measure.Opts(a.groups, a.iterations, a.minSampleUs * 1000, a.warmupMs, a.delays);
        long excess = 0;
        for (long d : a.delays) if (d > 0) excess = Pair.calibrateSpin(d);
        List<String> families = new ArrayList<>();
        Map<Mechanism, List<Measure.Samples>> measured = new LinkedHashMap<>();
        for (Mechanism m : a.mechanisms) {
            if (m.virtual && feature < 21) {
                System.out.println(Json.of(map("skipped", m.name, "why", "JDK " + feature + " has no virtual threads (JDK >= 21 needed)")));
                continue;
            }
            Threads th = m.virtual ? virtualThreads() : new Threads.Platform();
            measured.put(m, th.drive(() -> Measure.handoff(d -> m.pair.apply(th, d), m.type, o)));
            if (!families.contains(m.family)) families.add(m.family);
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (String f : families) {
            Threads th = f.equals("virtual-thread") ? virtualThreads() : new Threads.Platform();
            if (a.spawn > 0) {
                Measure.Samples s = th.drive(() -> Measure.spawn(k -> {
                    long t0 = System.nanoTime();
                    for (long i = 0; i < k; i++) th.start(() -> {}).join();
                    return System.nanoTime() - t0;
                }, a.spawn, o));
                Map<String, Object> params = map("runtime", "java", "mechanism", f, "placement", a.placement, "n", a.spawn);
                out.add(result("runtimes/java/" + f + "/spawn/" + a.placement, "spawn", "ns",
                        "start one empty " + th.kind() + " thread and join it, from a " + th.kind() + " thread", params, s,
                        perUnit(s), map("total_ns", s.total, "spawns", s.count), a.warmupMs));
            }
            if (a.park > 0) {
                int p = (int) (f.equals("platform-thread") ? Math.min(a.park, PLATFORM_PARK_CAP) : a.park);
                Measure.Samples s = new Measure.Samples();
                s.n = p;
                s.warmup = "none (one sample per group; System.gc() before each)";
                List<Long> before = new ArrayList<>(), after = new ArrayList<>(), heapBefore = new ArrayList<>(), heapAfter = new ArrayList<>();
                List<Double> samples = new ArrayList<>();
                for (int g = 0; g < a.groups; g++) {
                    long[] r = Park.once(th, p);
                    before.add(r[0]);
                    after.add(r[1]);
                    heapBefore.add(r[2]);
                    heapAfter.add(r[3]);
                    samples.add((th.kind().equals("virtual") ? r[3] - r[2] : r[1] - r[0]) / (double) p);
                    s.group.add(g);
                }
                if (p != a.park) s.warnings.add(p + " platform threads parked, not the " + a.park + " asked");
                boolean heap = th.kind().equals("virtual");
                Map<String, Object> params = map("runtime", "java", "mechanism", f, "placement", a.placement, "parked", p,
                        "measure", heap ? "heap_used" : "rss");
                out.add(result("runtimes/java/" + f + "/memory/" + a.placement, "memory", "bytes",
                        heap ? "Java heap in use per virtual thread parked in LockSupport.park (its stack is a heap object; after a full GC)"
                                : "resident bytes per platform thread parked in LockSupport.park (user stack and JVM structures; "
                                + "the kernel stack is not in RSS)", params, s, samples,
                        map("rss_before", before, "rss_after", after, "source", "VmRSS of /proc/self/status",
                                "heap_used_before", heapBefore, "heap_used_after", heapAfter), 0));
            }
        }
        // the pin checks last: a JFR recording leaves every later virtual-thread hand-off of the JVM dearer
        List<Map<String, Object>> handoffs = new ArrayList<>();
        for (Map.Entry<Mechanism, List<Measure.Samples>> e : measured.entrySet()) {
            Mechanism m = e.getKey();
            List<Measure.Samples> perDelay = e.getValue();
            Threads th = m.virtual ? virtualThreads() : new Threads.Platform();
            th.drive(() -> {
                Measure.pinCheck(d -> m.pair.apply(th, d), th, o, perDelay);
                return null;
            });
            int workers = m.virtual ? Integer.parseInt(System.getProperty("jdk.virtualThreadScheduler.parallelism",
                    String.valueOf(Runtime.getRuntime().availableProcessors()))) : 2;
            for (int k = 0; k < perDelay.size(); k++) {
                Measure.Samples s = perDelay.get(k);
                if (m.virtual && pinned && !"1".equals(System.getProperty("jdk.virtualThreadScheduler.parallelism")))
                    s.warnings.add("pinned placement without -Djdk.virtualThreadScheduler.parallelism=1: more than one carrier");
                Map<String, Object> params = map("runtime", "java", "mechanism", m.name, "placement", a.placement, "n", s.n,
                        "delay_ns", a.delays[k], "delay_overhead_ns", a.delays[k] > 0 ? excess : 0, "workers", workers);
                handoffs.add(result("runtimes/java/" + m.name + "/" + a.placement, "handoff", "ns", m.doc, params, s,
                        perUnit(s), map("total_ns", s.total, "handoffs", s.count), a.warmupMs));
            }
        }
        handoffs.addAll(out);
        for (Map<String, Object> r : handoffs) System.out.println(Json.of(r));
    }

    public static void main(String[] argv) {
        try {
            Args a = parse(argv);
            if (a.list) {
                for (Mechanism m : MECHANISMS) System.out.println(Json.of(map("mechanism", m.name, "doc", m.doc)));
                return;
            }
            run(a);
        } catch (BadArgs e) {
            System.err.println(NAME + ": " + e.getMessage());
            System.exit(1);
        } catch (Exception e) {
            System.err.println(NAME + ": " + e);
            System.exit(1);
        }
        System.exit(0); // parked daemon threads of a failed measure must not keep the JVM alive
    }
}
