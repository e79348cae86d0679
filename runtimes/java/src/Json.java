import java.util.List;
import java.util.Map;

/** JSON text of maps, lists, strings, numbers and booleans. The JDK has no JSON writer, and
 *  a library would need Maven in the build for these few lines. */
final class Json {
    static String of(Object v) {
        StringBuilder b = new StringBuilder();
        write(b, v);
        return b.toString();
    }

    private static void write(StringBuilder b, Object v) {
        if (v == null) b.append("null");
        else if (v instanceof String s) string(b, s);
        else if (v instanceof Double d) b.append(d.isNaN() || d.isInfinite() ? "null" : d.toString());
        else if (v instanceof Number || v instanceof Boolean) b.append(v);
        else if (v instanceof Map<?, ?> m) {
            b.append('{');
            String sep = "";
            for (Map.Entry<?, ?> e : m.entrySet()) {
                b.append(sep);
                string(b, String.valueOf(e.getKey()));
                b.append(": ");
                write(b, e.getValue());
                sep = ", ";
            }
            b.append('}');
        } else if (v instanceof List<?> l) {
            b.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) b.append(", ");
                write(b, l.get(i));
            }
            b.append(']');
        } else string(b, v.toString());
    }

    private static void string(StringBuilder b, String s) {
        b.append('"');
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        b.append('"');
    }

    private Json() {}
}
