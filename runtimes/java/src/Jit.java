import java.lang.management.ManagementFactory;
import javax.management.ObjectName;

/** Whether HotSpot's C2 has compiled a pair's hand-off loops: A's batch() and B's loop (a lambda),
 *  read from the Compiler.codelist diagnostic command (what `jcmd PID Compiler.codelist` prints:
 *  "id level state Class.method(sig) [...]", state 0 = in use). */
final class Jit {
    static final String METHOD = "C2 (tier 4) code in use for batch() and the partner's lambda, from Compiler.codelist";
    private static final int C2 = 4;

    static boolean optimised(Class<?> pair) {
        String list;
        try {
            list = (String) ManagementFactory.getPlatformMBeanServer()
                    .invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerCodelist", null, null);
        } catch (Exception | LinkageError e) {
            return true; // not HotSpot: stability alone decides (the warm-up method says which)
        }
        boolean batch = false, partner = false;
        String prefix = pair.getName() + ".";
        for (String line : list.split("\n")) {
            String[] f = line.trim().split(" ", 4);
            if (f.length < 4 || !f[3].startsWith(prefix) || !f[1].equals(String.valueOf(C2)) || !f[2].equals("0")) continue;
            String m = f[3].substring(prefix.length());
            batch |= m.startsWith("batch(");
            partner |= m.startsWith("lambda$");
        }
        return batch && partner;
    }

    private Jit() {}
}
