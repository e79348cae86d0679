"""Java: virtual and platform threads, each with LockSupport park/unpark and SynchronousQueue.

The launcher (runtimes/java/ctxbench-rt-java) picks the JDK: $JAVA_HOME, else the
newest under /usr/lib/jvm; so the version is the one the harness's header reports.
A JDK older than 21 runs the platform-thread rows and skips the virtual-thread ones.
"""

from ctxbench.runtimes.harness import Runtime

RUNTIME = Runtime(
    name="java",
    mechanisms=("vt-park", "vt-queue", "platform-park", "platform-queue"),
    version_cmd=None,
    harness=("build/runtimes/java/ctxbench-rt-java",),
    pinned_env={},
    # one carrier thread for the virtual threads (JVM options: the launcher passes leading -D/-X on)
    pinned_args=("-Djdk.virtualThreadScheduler.parallelism=1", "-Djdk.virtualThreadScheduler.maxPoolSize=1"),
    jit=True,
    missing="java: no JDK >= 21 found (JAVA_HOME or /usr/lib/jvm); install one, then `make runtimes` builds the harness",
)
