# issue 24, `ctxbench runtimes`: the Java harness (runtimes/java), compiled by
# javac into build/runtimes/java/classes beside its launcher. The JDK is the
# launcher's choice ($JAVA_HOME, else the newest under /usr/lib/jvm). The
# harness is compiled for 17 and its virtual-thread class for 21, loaded only
# on a JDK >= 21, so an older JDK runs the platform-thread rows and skips the rest.
# Debian 12 packages no JDK >= 21: without one, one line says so.
RT_JAVA := $(BUILD)/runtimes/java
.PHONY: runtimes runtimes-java
runtimes: runtimes-java
TEST_PREREQS += runtimes-java
runtimes-java:
	@set -- $$(runtimes/java/ctxbench-rt-java --jdk 2>/dev/null); jdk=$$1 v=$${2:-0}; \
	if [ -z "$$jdk" ] || [ ! -x "$$jdk/bin/javac" ]; then \
	  echo "java: no JDK found (JAVA_HOME or /usr/lib/jvm); install a JDK >= 21 (Debian 12 has only 17)"; exit 0; fi; \
	rm -rf $(RT_JAVA)/classes && mkdir -p $(RT_JAVA)/classes && cp runtimes/java/ctxbench-rt-java $(RT_JAVA)/ && \
	nice -n 10 $$jdk/bin/javac -Xlint:all,-try,-serial -Werror -d $(RT_JAVA)/classes --release 17 runtimes/java/src/*.java && \
	if [ "$$v" -ge 21 ]; then \
	  nice -n 10 $$jdk/bin/javac -Xlint:all -Werror -d $(RT_JAVA)/classes --release 21 -cp $(RT_JAVA)/classes runtimes/java/vt/*.java; \
	else echo "java: $$jdk is JDK $$v: virtual threads need JDK >= 21 and will be skipped"; fi
