import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** The kernel's view of the process: switch counts summed over its threads, resident memory. */
final class Kernel {
    static final String SOURCE = "voluntary_ctxt_switches/nonvoluntary_ctxt_switches summed over /proc/self/task/*/status (Java has no getrusage)";

    /** {voluntary, involuntary} summed over every thread alive now. */
    static long[] switches() throws IOException {
        long[] s = new long[2];
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                try {
                    for (String line : Files.readAllLines(t.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) s[0] += Long.parseLong(line.substring(24).trim());
                        else if (line.startsWith("nonvoluntary_ctxt_switches:")) s[1] += Long.parseLong(line.substring(27).trim());
                    }
                } catch (IOException gone) {
                    // a thread that ended while we listed: its counts are gone with it
                }
            }
        }
        return s;
    }

    static long rssBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status")))
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.substring(6).replace("kB", "").trim()) * 1024;
        throw new IOException("no VmRSS in /proc/self/status");
    }

    private Kernel() {}
}
