import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** The kernel's view of the process: switch counts summed over its threads, resident memory. */
final class Kernel {
    static final String SOURCE = "voluntary_ctxt_switches/nonvoluntary_ctxt_switches of /proc/self/task/*/status "
            + "(Java has no getrusage): per-thread deltas summed over the threads alive at the end of the sample "
            + "(one started inside counts from 0; one that ended inside is lost)";

    /** Each thread's {voluntary, involuntary} switches now, by thread id. */
    static Map<String, long[]> switches() throws IOException {
        Map<String, long[]> all = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                long[] s = new long[2];
                try {
                    for (String line : Files.readAllLines(t.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) s[0] = Long.parseLong(line.substring(24).trim());
                        else if (line.startsWith("nonvoluntary_ctxt_switches:")) s[1] = Long.parseLong(line.substring(27).trim());
                    }
                    all.put(t.getFileName().toString(), s);
                } catch (IOException gone) {
                    // a thread that ended while we listed
                }
            }
        }
        return all;
    }

    /** {voluntary, involuntary} switches between two reads of switches(). */
    static long[] delta(Map<String, long[]> before, Map<String, long[]> after) {
        long[] d = new long[2];
        for (Map.Entry<String, long[]> e : after.entrySet()) {
            long[] b = before.getOrDefault(e.getKey(), new long[2]);
            d[0] += e.getValue()[0] - b[0];
            d[1] += e.getValue()[1] - b[1];
        }
        return d;
    }

    static long rssBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status")))
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.substring(6).replace("kB", "").trim()) * 1024;
        throw new IOException("no VmRSS in /proc/self/status");
    }

    private Kernel() {}
}
