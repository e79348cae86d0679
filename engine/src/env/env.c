#include "env/env.h"
#include "env/build_libs.h"
#include "env/emulation.h"
#include "env/tlb_info.h"
#include "core/clock.h"
#include "core/sched_ctl.h"
#include "core/util.h"
#include "core/verify.h"
#include <dirent.h>
#include <inttypes.h>
#include <math.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#ifndef CTXBENCH_VERSION
#define CTXBENCH_VERSION "0.0.0-dev"
#endif
#ifndef CTXBENCH_CFLAGS
#define CTXBENCH_CFLAGS "unknown"
#endif

static void kfile(json_t *j, const char *key, const char *path)
{
    char buf[4096];
    if (read_file_str(path, buf, sizeof buf) == 0)
        json_kstr(j, key, buf);
    else
        json_kstr(j, key, NULL);
}

void tool_write(json_t *j)
{
    json_kstr(j, "name", "ctxbench-engine");
    json_kstr(j, "version", CTXBENCH_VERSION);
    json_key(j, "build");
    json_obj_begin(j);
#ifdef __clang__
    json_kstr(j, "compiler", "clang " __clang_version__);
#elif defined(__GNUC__)
    json_kstr(j, "compiler", "gcc " __VERSION__);
#endif
    json_kstr(j, "flags", CTXBENCH_CFLAGS);
#if defined(__x86_64__)
    json_kstr(j, "arch", "x86_64");
#elif defined(__aarch64__)
    json_kstr(j, "arch", "aarch64");
#elif defined(__arm__)
    json_kstr(j, "arch", "armv7");
#else
    json_kstr(j, "arch", "unknown");
#endif
#ifdef HAVE_HWLOC
    json_kstr(j, "hwloc", HWLOC_API_VERSION >= 0x20000 ? "2.x" : "1.x");
#else
    json_kstr(j, "hwloc", NULL);
#endif
    json_kbool(j, "static", CTXBENCH_STATIC);
    build_libs_write(j);
    json_obj_end(j);
}

/* ARM big.LITTLE: cores differ, so list "CPU part" for every processor in
 * /proc/cpuinfo order (the measured CPU's is the one that matters). */
static void per_cpu_parts(json_t *j)
{
    FILE *f = fopen("/proc/cpuinfo", "re");
    if (!f) return;
    char line[512];
    int any = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "CPU part", 8)) continue;
        char *p = strchr(line, ':');
        if (!p) continue;
        p++;
        while (*p == ' ' || *p == '\t') p++;
        p[strcspn(p, "\n")] = 0;
        if (!any) {
            json_key(j, "parts");
            json_arr_begin(j);
            any = 1;
        }
        json_str(j, p);
    }
    if (any) json_arr_end(j);
    fclose(f);
}

static void cpu_section(json_t *j)
{
    char buf[256];
    json_key(j, "cpu");
    json_obj_begin(j);
    if (read_keyed("/proc/cpuinfo", "model name", buf, sizeof buf) == 0)
        json_kstr(j, "model", buf);
    else if (read_keyed("/proc/cpuinfo", "Hardware", buf, sizeof buf) == 0)
        json_kstr(j, "model", buf);
    else
        json_kstr(j, "model", NULL);
    if (read_keyed("/proc/cpuinfo", "vendor_id", buf, sizeof buf) == 0) json_kstr(j, "vendor", buf);
    if (read_keyed("/proc/cpuinfo", "CPU implementer", buf, sizeof buf) == 0)
        json_kstr(j, "implementer", buf);
    if (read_keyed("/proc/cpuinfo", "CPU part", buf, sizeof buf) == 0) json_kstr(j, "part", buf);
    if (read_keyed("/proc/cpuinfo", "CPU variant", buf, sizeof buf) == 0) json_kstr(j, "variant", buf);
    if (read_keyed("/proc/cpuinfo", "CPU revision", buf, sizeof buf) == 0) json_kstr(j, "revision", buf);
    if (read_keyed("/proc/cpuinfo", "cpu family", buf, sizeof buf) == 0) json_kstr(j, "family", buf);
    if (read_keyed("/proc/cpuinfo", "model", buf, sizeof buf) == 0) json_kstr(j, "model_number", buf);
    if (read_keyed("/proc/cpuinfo", "stepping", buf, sizeof buf) == 0) json_kstr(j, "stepping", buf);
    if (read_keyed("/proc/cpuinfo", "microcode", buf, sizeof buf) == 0) json_kstr(j, "microcode", buf);
    char flags[8192];
    if (read_keyed("/proc/cpuinfo", "flags", flags, sizeof flags) == 0) {
        static const char *keep[] = {"constant_tsc", "nonstop_tsc", "tsc_known_freq", "hypervisor", "pcid",
                                     "invpcid",      "ibt",         "shstk",          "rdtscp",     NULL};
        json_key(j, "flags_of_interest");
        json_arr_begin(j);
        for (int i = 0; keep[i]; i++) {
            char pat[40];
            snprintf(pat, sizeof pat, " %s ", keep[i]);
            char padded[8200];
            snprintf(padded, sizeof padded, " %s ", flags);
            if (strstr(padded, pat)) json_str(j, keep[i]);
        }
        json_arr_end(j);
    }
    if (read_keyed("/proc/cpuinfo", "CPU architecture", buf, sizeof buf) == 0)
        json_kstr(j, "architecture", buf);
    per_cpu_parts(j);
    json_kint(j, "online", cpu_online_count());
    kfile(j, "online_list", "/sys/devices/system/cpu/online");
    json_obj_end(j);
}

/* Topology and caches: hwloc when built with it, sysfs otherwise. */
static void topology_section(json_t *j)
{
    json_key(j, "topology");
    json_obj_begin(j);
#ifdef HAVE_HWLOC
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) == 0 && hwloc_topology_load(t) == 0) {
        json_kstr(j, "source", "hwloc");
        int pk = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
        int co = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
        int pu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
        json_kint(j, "packages", pk);
        json_kint(j, "cores", co);
        json_kint(j, "pus", pu);
        json_kint(j, "threads_per_core", co > 0 ? pu / co : 1);
        json_key(j, "smt_siblings");
        json_arr_begin(j);
        for (int i = 0; i < co; i++) {
            hwloc_obj_t c = hwloc_get_obj_by_type(t, HWLOC_OBJ_CORE, i);
            json_arr_begin(j);
            int id;
            hwloc_bitmap_foreach_begin(id, c->cpuset) json_int(j, id);
            hwloc_bitmap_foreach_end();
            json_arr_end(j);
        }
        json_arr_end(j);
        json_key(j, "caches");
        json_arr_begin(j);
        for (hwloc_obj_type_t ty = HWLOC_OBJ_L1CACHE; ty <= HWLOC_OBJ_L3CACHE; ty++) {
            for (int pass = 0; pass < 3; pass++) {
                hwloc_obj_type_t tt = ty;
                if (ty == HWLOC_OBJ_L1CACHE && pass == 1)
                    tt = HWLOC_OBJ_L1ICACHE;
                else if (pass)
                    continue;
                hwloc_obj_t o = hwloc_get_obj_by_type(t, tt, 0);
                if (!o) continue;
                json_obj_begin(j);
                json_kint(j, "level", o->attr->cache.depth);
                json_kstr(j, "type",
                          o->attr->cache.type == HWLOC_OBJ_CACHE_DATA          ? "data"
                          : o->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION ? "instruction"
                                                                               : "unified");
                json_kint(j, "size", (int64_t)o->attr->cache.size);
                json_kint(j, "line", o->attr->cache.linesize);
                json_kint(j, "ways", o->attr->cache.associativity);
                json_kint(j, "shared_by_pus", hwloc_bitmap_weight(o->cpuset));
                json_kint(j, "count", hwloc_get_nbobjs_by_type(t, tt));
                json_obj_end(j);
            }
        }
        json_arr_end(j);
        hwloc_topology_destroy(t);
        json_obj_end(j);
        return;
    }
#endif
    /* sysfs fallback */
    json_kstr(j, "source", "sysfs");
    json_kint(j, "pus", cpu_online_count());
    char buf[256];
    if (read_file_str("/sys/devices/system/cpu/cpu0/topology/thread_siblings_list", buf, sizeof buf) == 0)
        json_kstr(j, "cpu0_smt_siblings", buf);
    json_key(j, "caches");
    json_arr_begin(j);
    for (int i = 0; i < 8; i++) {
        char p[128], lvl[16], type[32], size[32], line[16], ways[16], shared[128];
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (read_file_str(p, lvl, sizeof lvl)) break;
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        read_file_str(p, type, sizeof type);
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        uint64_t sz = 0;
        if (read_file_str(p, size, sizeof size) == 0) parse_size(size, &sz);
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu0/cache/index%d/coherency_line_size", i);
        if (read_file_str(p, line, sizeof line)) strcpy(line, "0");
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu0/cache/index%d/ways_of_associativity", i);
        if (read_file_str(p, ways, sizeof ways)) strcpy(ways, "0");
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu0/cache/index%d/shared_cpu_list", i);
        if (read_file_str(p, shared, sizeof shared)) shared[0] = 0;
        json_obj_begin(j);
        json_kint(j, "level", atoi(lvl));
        json_kstr(j, "type",
                  !strcmp(type, "Data")          ? "data"
                  : !strcmp(type, "Instruction") ? "instruction"
                                                 : "unified");
        json_kint(j, "size", (int64_t)sz);
        json_kint(j, "line", atoi(line));
        json_kint(j, "ways", atoi(ways));
        json_kstr(j, "shared_cpu_list", shared);
        json_obj_end(j);
    }
    json_arr_end(j);
    json_obj_end(j);
}

static void kernel_section(json_t *j)
{
    struct utsname u;
    uname(&u);
    json_key(j, "kernel");
    json_obj_begin(j);
    json_kstr(j, "release", u.release);
    json_kstr(j, "version", u.version);
    json_kstr(j, "machine", u.machine);
    /* preemption model: the debugfs knob when mounted, else the uname banner */
    char buf[256];
    if (read_file_str("/sys/kernel/debug/sched/preempt", buf, sizeof buf) == 0)
        json_kstr(j, "preempt", buf);
    else
        json_kstr(j, "preempt", NULL);
    json_kstr(j, "preempt_banner",
              strstr(u.version, "PREEMPT_RT")        ? "PREEMPT_RT"
              : strstr(u.version, "PREEMPT_DYNAMIC") ? "PREEMPT_DYNAMIC"
              : strstr(u.version, "PREEMPT")         ? "PREEMPT"
                                                     : "none");
    kfile(j, "cmdline", "/proc/cmdline");
    kfile(j, "isolated", "/sys/devices/system/cpu/isolated");
    kfile(j, "nohz_full", "/sys/devices/system/cpu/nohz_full");
    kfile(j, "clocksource", "/sys/devices/system/clocksource/clocksource0/current_clocksource");
    kfile(j, "clocksources_available", "/sys/devices/system/clocksource/clocksource0/available_clocksource");
    kfile(j, "sched_rt_runtime_us", "/proc/sys/kernel/sched_rt_runtime_us");
    kfile(j, "sched_rt_period_us", "/proc/sys/kernel/sched_rt_period_us");
    kfile(j, "perf_event_paranoid", "/proc/sys/kernel/perf_event_paranoid");
    kfile(j, "transparent_hugepage", "/sys/kernel/mm/transparent_hugepage/enabled");
    json_kstr(j, "switch_counts_from", verify_source());
    json_obj_end(j);
}

static void freq_section(json_t *j)
{
    json_key(j, "frequency");
    json_obj_begin(j);
    json_key(j, "governors");
    json_obj_begin(j);
    int n = cpu_online_count();
    for (int c = 0; c < n && c < 1024; c++) {
        char p[128], buf[64], k[16];
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", c);
        snprintf(k, sizeof k, "%d", c);
        if (read_file_str(p, buf, sizeof buf) == 0)
            json_kstr(j, k, buf);
        else
            json_kstr(j, k, NULL); /* not readable: no cpufreq (VM) or no permission */
    }
    json_obj_end(j);
    kfile(j, "driver", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver");
    kfile(j, "intel_no_turbo", "/sys/devices/system/cpu/intel_pstate/no_turbo");
    kfile(j, "boost", "/sys/devices/system/cpu/cpufreq/boost");
    json_obj_end(j);
}

static void idle_section(json_t *j, const env_run_t *run)
{
    json_key(j, "idle");
    json_obj_begin(j);
    kfile(j, "driver", "/sys/devices/system/cpu/cpuidle/current_driver");
    kfile(j, "governor", "/sys/devices/system/cpu/cpuidle/current_governor_ro");
    json_key(j, "states");
    json_arr_begin(j);
    for (int s = 0; s < 16; s++) {
        char p[128], name[64], lat[32];
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu0/cpuidle/state%d/name", s);
        if (read_file_str(p, name, sizeof name)) break;
        snprintf(p, sizeof p, "/sys/devices/system/cpu/cpu0/cpuidle/state%d/latency", s);
        if (read_file_str(p, lat, sizeof lat)) strcpy(lat, "-1");
        json_obj_begin(j);
        json_kstr(j, "name", name);
        json_kint(j, "exit_latency_us", atoi(lat));
        json_obj_end(j);
    }
    json_arr_end(j);
    json_kbool(j, "no_idle_requested", run ? run->no_idle_requested : 0);
    json_kbool(j, "cpu_dma_latency_held_at_0", run ? run->no_idle_held : 0);
    if (run && run->no_idle_error[0]) json_kstr(j, "no_idle_error", run->no_idle_error);
    json_obj_end(j);
}

static void mitigations_section(json_t *j)
{
    json_key(j, "mitigations");
    json_obj_begin(j);
    DIR *d = opendir("/sys/devices/system/cpu/vulnerabilities");
    if (d) {
        struct dirent *e;
        char names[64][256];
        int n = 0;
        while ((e = readdir(d)) && n < 64)
            if (e->d_name[0] != '.') snprintf(names[n++], 256, "%s", e->d_name);
        closedir(d);
        for (int a = 0; a < n; a++)
            for (int b = a + 1; b < n; b++)
                if (strcmp(names[b], names[a]) < 0) {
                    char t[256];
                    memcpy(t, names[a], 256);
                    memcpy(names[a], names[b], 256);
                    memcpy(names[b], t, 256);
                }
        for (int i = 0; i < n; i++) {
            char p[300];
            if (strlen(names[i]) > 200) continue;
            snprintf(p, sizeof p, "/sys/devices/system/cpu/vulnerabilities/%s", names[i]);
            kfile(j, names[i], p);
        }
    }
    json_obj_end(j);
}

static void virt_section(json_t *j)
{
    json_key(j, "virtualization");
    json_obj_begin(j);
    int hv = 0;
#if defined(__x86_64__) || defined(__i386__)
    char vendor[13] = "";
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d)) hv = (c >> 31) & 1;
    if (hv) {
        __cpuid(0x40000000, a, b, c, d);
        memcpy(vendor, &b, 4);
        memcpy(vendor + 4, &c, 4);
        memcpy(vendor + 8, &d, 4);
        vendor[12] = 0;
    }
    json_kbool(j, "cpuid_hypervisor_bit", hv);
    json_kstr(j, "hypervisor_vendor", hv ? vendor : NULL);
#endif
    kfile(j, "dmi_sys_vendor", "/sys/class/dmi/id/sys_vendor");
    kfile(j, "dmi_product_name", "/sys/class/dmi/id/product_name");
    kfile(j, "sys_hypervisor_type", "/sys/hypervisor/type");
    char buf[256];
    int dt_hv = read_file_str("/proc/device-tree/hypervisor/compatible", buf, sizeof buf) == 0;
    char prod[256] = "", sysv[256] = "";
    read_file_str("/sys/class/dmi/id/product_name", prod, sizeof prod);
    read_file_str("/sys/class/dmi/id/sys_vendor", sysv, sizeof sysv);
    int dmi_vm = strstr(prod, "KVM") || strstr(prod, "VirtualBox") || strstr(prod, "VMware") ||
                 strstr(sysv, "QEMU") || strstr(sysv, "Xen") || strstr(sysv, "Microsoft") ||
                 strstr(prod, "Virtual Machine") || strstr(sysv, "Amazon EC2") ||
                 strstr(prod, "Google Compute");
    json_kbool(j, "is_vm", hv || dt_hv || dmi_vm);
    char ev[1024];
    int emu = emulation_detect(ev, sizeof ev);
    json_kbool(j, "emulated", emu);
    json_kstr(j, "emulator", emu ? "qemu-user" : NULL);
    json_kstr(j, "emulation_evidence", emu ? ev : NULL);
    json_obj_end(j);
}

static int try_perf(uint32_t type, uint64_t config)
{
    struct perf_event_attr pe;
    memset(&pe, 0, sizeof pe);
    pe.type = type;
    pe.size = sizeof pe;
    pe.config = config;
    pe.disabled = 1;
    pe.exclude_kernel = 1;
    pe.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &pe, 0, -1, -1, 0);
    if (fd < 0) return -errno;
    close(fd);
    return 0;
}

static void perf_section(json_t *j)
{
    json_key(j, "perf");
    json_obj_begin(j);
    int hw = try_perf(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
    int sw = try_perf(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
    json_kbool(j, "hardware_counters", hw == 0);
    json_kstr(j, "hardware_error", hw ? strerror(-hw) : NULL);
    json_kbool(j, "software_counters", sw == 0);
    json_kstr(j, "software_error", sw ? strerror(-sw) : NULL);
    json_obj_end(j);
}

/* What memory a run may hold here, as the front end checks before measuring
 * (src/ctxbench/core/memory.py reads the same three locally): it reads them
 * from this record when the engine runs on another host (--host). */
static void memory_facts(json_t *j)
{
    char buf[64];
    uint64_t kb;
    if (read_keyed("/proc/meminfo", "MemAvailable", buf, sizeof buf) == 0 &&
        sscanf(buf, "%" SCNu64, &kb) == 1)
        json_kint(j, "mem_available", (int64_t)(kb * 1024));
    else
        json_knull(j, "mem_available");
    struct rlimit as;
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
        json_kint(j, "rlimit_as", (int64_t)as.rlim_cur);
    else
        json_knull(j, "rlimit_as");
    /* cgroup v2: memory.max - memory.current of this process's cgroup; null when unlimited or unknown */
    char line[4096], path[4300], max[64], cur[64];
    int64_t room = -1;
    int known = 0;
    FILE *f = fopen("/proc/self/cgroup", "r");
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "0::", 3) != 0) continue;
        line[strcspn(line, "\n")] = 0;
        snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", line + 3);
        if (read_file_str(path, max, sizeof max) == 0 && strcmp(max, "max") != 0) {
            snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.current", line + 3);
            if (read_file_str(path, cur, sizeof cur) == 0) {
                room = strtoll(max, NULL, 10) - strtoll(cur, NULL, 10);
                known = 1;
            }
        }
        break;
    }
    if (f) fclose(f);
    if (known)
        json_kint(j, "cgroup_memory_room", room);
    else
        json_knull(j, "cgroup_memory_room");
}

static void process_section(json_t *j, const env_run_t *run)
{
    json_key(j, "process");
    json_obj_begin(j);
    json_kbool(j, "root", geteuid() == 0);
    struct rlimit rl;
    if (getrlimit(RLIMIT_RTPRIO, &rl) == 0)
        json_kint(j, "rlimit_rtprio", rl.rlim_cur == RLIM_INFINITY ? -1 : (int64_t)rl.rlim_cur);
    /* Can this process get SCHED_FIFO? Try and restore. */
    char err[200] = "";
    int fifo = set_policy_self(POLICY_FIFO, 1, err, sizeof err) == 0;
    if (fifo) set_policy_self(POLICY_OTHER, 0, NULL, 0);
    json_kbool(j, "sched_fifo_allowed", fifo);
    json_kstr(j, "sched_fifo_error", fifo ? NULL : err);
    json_kbool(j, "mlockall", run ? run->mlocked : 0);
    if (run && run->mlock_error[0]) json_kstr(j, "mlockall_error", run->mlock_error);
    cpu_set_t s;
    CPU_ZERO(&s);
    sched_getaffinity(0, sizeof s, &s);
    json_key(j, "allowed_cpus");
    json_arr_begin(j);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &s)) json_int(j, c);
    json_arr_end(j);
    memory_facts(j);
    json_obj_end(j);
}

static void timers_section(json_t *j)
{
    json_key(j, "timers");
    json_obj_begin(j);
    json_kstr(j, "cycle_counter", cycle_counter_name());
    json_knum(j, "cycle_hz", cycle_hz());
    json_knum(j, "cycle_hz_spread", cycle_hz_spread());
#if defined(CTXBENCH_HAVE_CNTVCT)
    /* the architected rate next to the calibrated one: they should agree */
    double frq = (double)cntfrq();
    json_knum(j, "cntfrq_el0", frq);
    json_knum(j, "cntfrq_vs_calibrated", frq > 0 && cycle_hz() > 0 ? cycle_hz() / frq - 1 : NAN);
#endif
#if defined(CTXBENCH_HAVE_PMCCNTR)
    const char *why;
    json_kbool(j, "pmccntr_usable", pmccntr_usable(&why));
    json_kstr(j, "pmccntr_probe", why);
#endif
    json_key(j, "sources");
    json_arr_begin(j);
    for (const timer_source_t *const *t = timer_sources(); *t; t++) json_str(j, (*t)->name);
    json_arr_end(j);
    json_kstr(j, "event_timer", event_timer()->name);
    json_kstr(j, "sample_clock", "CLOCK_MONOTONIC_RAW");
    json_obj_end(j);
}

void env_write(json_t *j, const env_run_t *run)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    json_kstr(j, "hostname", host);
    cpu_section(j);
    topology_section(j);
    tlb_section(j);
    kernel_section(j);
    freq_section(j);
    idle_section(j, run);
    mitigations_section(j);
    virt_section(j);
    perf_section(j);
    process_section(j, run);
    timers_section(j);
}
