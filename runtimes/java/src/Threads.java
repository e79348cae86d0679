import java.util.concurrent.Callable;

/** How a mechanism's threads start: platform threads (any JDK) or virtual threads (VirtualThreads, JDK >= 21). */
interface Threads {
    String kind();

    Thread start(Runnable r);

    /** Runs the driver (party A of every pair) on a thread of this kind and waits for it. */
    <T> T drive(Callable<T> c) throws Exception;

    /** Starts recording pinned-carrier events (virtual threads only; null otherwise). */
    default PinCounter pinCounter() throws Exception {
        return null;
    }

    interface PinCounter extends AutoCloseable {
        /** Stops recording: the number of jdk.VirtualThreadPinned events that started in [from, to]. */
        long count(java.time.Instant from, java.time.Instant to) throws Exception;

        /** Ends the recording and removes its file. */
        @Override
        void close() throws Exception;
    }

    final class Platform implements Threads {
        public String kind() {
            return "platform";
        }

        public Thread start(Runnable r) {
            Thread t = new Thread(r, "rt-java-b");
            t.setDaemon(true);
            t.start();
            return t;
        }

        public <T> T drive(Callable<T> c) throws Exception {
            return c.call(); // the main thread is party A
        }
    }
}
