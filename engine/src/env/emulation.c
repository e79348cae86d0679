/* qemu-user intercepts /proc/self/exe and friends but not the kernel's own
 * view of the process, so three independent signs are checked:
 *  - /proc/thread-self/exe points at the emulator binary (qemu-<arch>);
 *  - the task name in /proc/self/status is the emulator's;
 *  - /proc/cpuinfo describes a CPU of another architecture than the one
 *    this binary was built for (e.g. x86 fields under an ARM build). */
#include "env/emulation.h"
#include "core/util.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int starts_qemu(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return !strncmp(base, "qemu-", 5);
}

static void add(char *ev, size_t len, const char *what)
{
    size_t n = strlen(ev);
    if (n + 3 >= len) return;
    snprintf(ev + n, len - n, "%s%s", n ? "; " : "", what);
}

int emulation_detect(char *ev, size_t len)
{
    char buf[512], msg[600];
    ev[0] = 0;
    ssize_t n = readlink("/proc/thread-self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = 0;
        if (starts_qemu(buf)) {
            snprintf(msg, sizeof msg, "/proc/thread-self/exe is %s", buf);
            add(ev, len, msg);
        }
    }
    if (read_keyed("/proc/self/status", "Name", buf, sizeof buf) == 0 && starts_qemu(buf)) {
        snprintf(msg, sizeof msg, "task name is %s", buf);
        add(ev, len, msg);
    }
#if defined(__arm__) || defined(__aarch64__)
    /* an ARM kernel's cpuinfo has "CPU implementer"; x86's has vendor_id */
    if (read_keyed("/proc/cpuinfo", "vendor_id", buf, sizeof buf) == 0) {
        snprintf(msg, sizeof msg, "ARM build but /proc/cpuinfo shows an x86 CPU (vendor_id %s)", buf);
        add(ev, len, msg);
    }
#elif defined(__x86_64__) || defined(__i386__)
    if (read_keyed("/proc/cpuinfo", "CPU implementer", buf, sizeof buf) == 0) {
        snprintf(msg, sizeof msg, "x86 build but /proc/cpuinfo shows an ARM CPU (implementer %s)", buf);
        add(ev, len, msg);
    }
#endif
    return ev[0] != 0;
}
