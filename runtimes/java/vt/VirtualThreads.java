import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/** Virtual threads (JDK >= 21; compiled apart and loaded by name, so the rest runs on older JDKs). */
public final class VirtualThreads implements Threads {
    public String kind() {
        return "virtual";
    }

    public Thread start(Runnable r) {
        return Thread.ofVirtual().name("rt-java-b").start(r);
    }

    public <T> T drive(Callable<T> c) throws Exception {
        AtomicReference<T> out = new AtomicReference<>();
        AtomicReference<Exception> err = new AtomicReference<>();
        Thread.ofVirtual().name("rt-java-a").start(() -> {
            try {
                out.set(c.call());
            } catch (Exception e) {
                err.set(e);
            }
        }).join();
        if (err.get() != null) throw err.get();
        return out.get();
    }

    /** A JFR recording of jdk.VirtualThreadPinned with no threshold (the default hides pins under 20 ms). */
    public PinCounter pinCounter() throws Exception {
        Recording r = new Recording();
        r.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO);
        r.setToDisk(true);
        r.start();
        return new PinCounter() {
            public long count(Instant from, Instant to) throws Exception {
                Path file = Files.createTempFile("ctxbench-rt-java-", ".jfr");
                try {
                    r.stop();
                    r.dump(file);
                    long n = 0;
                    for (RecordedEvent e : RecordingFile.readAllEvents(file))
                        if (e.getEventType().getName().equals("jdk.VirtualThreadPinned")
                                && !e.getStartTime().isBefore(from) && !e.getStartTime().isAfter(to)) n++;
                    return n;
                } finally {
                    Files.deleteIfExists(file);
                }
            }

            public void close() {
                r.close();
            }
        };
    }
}
