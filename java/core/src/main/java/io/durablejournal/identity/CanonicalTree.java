package io.durablejournal.identity;

import io.durablejournal.JournalException;
import java.lang.reflect.Array;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Java values to the tagged tree (JSON) that the native library encodes and hashes; see
 * {@code docs/identity.md}. Nothing is hashed here.
 *
 * <table>
 *   <caption>Java type to tree tag</caption>
 *   <tr><td>null</td><td>null</td></tr>
 *   <tr><td>Boolean</td><td>true / false</td></tr>
 *   <tr><td>Byte, Short, Integer, Long, BigInteger</td><td>int</td></tr>
 *   <tr><td>Float, Double (a float is widened exactly)</td><td>float</td></tr>
 *   <tr><td>String, Character</td><td>str</td></tr>
 *   <tr><td>byte[]</td><td>bytes</td></tr>
 *   <tr><td>List, Object[] and other primitive arrays</td><td>list</td></tr>
 *   <tr><td>{@link Tuple}</td><td>tuple</td></tr>
 *   <tr><td>Map</td><td>dict</td></tr>
 *   <tr><td>Set</td><td>set</td></tr>
 *   <tr><td>{@link CanonicalObject}</td><td>object</td></tr>
 *   <tr><td>Enum constant</td><td>object of its enum class with field {@code name}</td></tr>
 * </table>
 *
 * <p>Anything else (BigDecimal, arbitrary beans, ...) has no canonical form: a {@link
 * JournalException} with code {@code NON_CANONICAL_ARGUMENT} names where it sits ({@code
 * kwargs['cfg'].client}) and suggests naming the call explicitly ({@code durableId} of {@link
 * DurableIds#durableIdentityForCall}). Internal to the identity package: users reach it through
 * {@link DurableIds}.
 */
final class CanonicalTree {
    /** The same bound as {@code MAX_NESTING} in rust/identity/canonical.rs. */
    static final int MAX_NESTING = 32;

    private final StringBuilder json = new StringBuilder();
    // Containers on the current path: meeting one again is a cycle.
    private final Set<Object> open = Collections.newSetFromMap(new IdentityHashMap<>());

    private CanonicalTree() {}

    /** The call tree {@code {"args": [...], "kwargs": {...}}} as UTF-8 JSON. */
    static byte[] callTreeJson(List<?> args, Map<String, ?> kwargs) {
        Objects.requireNonNull(args, "args");
        Objects.requireNonNull(kwargs, "kwargs");
        CanonicalTree tree = new CanonicalTree();
        tree.json.append("{\"args\":[");
        for (int i = 0; i < args.size(); i++) {
            if (i > 0) {
                tree.json.append(',');
            }
            tree.value(args.get(i), "args[" + i + "]", 1);
        }
        tree.json.append("],\"kwargs\":{");
        boolean first = true;
        for (Map.Entry<String, ?> entry : kwargs.entrySet()) {
            Object name = entry.getKey();
            String path = "kwargs[" + keyRepr(name) + "]";
            if (!(name instanceof String)) {
                throw nonCanonical(path, "keyword argument names must be strings");
            }
            if (!first) {
                tree.json.append(',');
            }
            first = false;
            tree.string((String) name, path);
            tree.json.append(':');
            tree.value(entry.getValue(), path, 1);
        }
        tree.json.append("}}");
        return tree.json.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The tree of a single value, as JSON text (for tests and debugging). */
    static String valueTreeJson(Object value) {
        CanonicalTree tree = new CanonicalTree();
        tree.value(value, "value", 1);
        return tree.json.toString();
    }

    private void value(Object value, String path, int depth) {
        if (value == null) {
            json.append("null");
        } else if (value instanceof Boolean) {
            json.append(((Boolean) value) ? "true" : "false");
        } else if (value instanceof Byte || value instanceof Short || value instanceof Integer
                || value instanceof Long || value instanceof BigInteger) {
            tagged("int").append('"').append(value).append("\"}");
        } else if (value instanceof Double || value instanceof Float) {
            long bits = Double.doubleToRawLongBits(((Number) value).doubleValue());
            tagged("float").append('"').append(String.format("%016x", bits)).append("\"}");
        } else if (value instanceof String || value instanceof Character) {
            tagged("str");
            string(value.toString(), path);
            json.append('}');
        } else if (value instanceof byte[]) {
            tagged("bytes").append('"').append(Base64.getEncoder().encodeToString((byte[]) value)).append("\"}");
        } else if (value instanceof Enum<?>) {
            Enum<?> constant = (Enum<?>) value;
            Map<String, Object> fields = Collections.singletonMap("name", constant.name());
            object(value, typeName(constant.getDeclaringClass()), fields, path, depth);
        } else if (value instanceof CanonicalObject) {
            CanonicalObject object = (CanonicalObject) value;
            object(value, object.type(), object.fields(), path, depth);
        } else if (value instanceof Tuple) {
            sequence("tuple", value, ((Tuple) value).items(), path, depth);
        } else if (value instanceof List<?>) {
            sequence("list", value, (List<?>) value, path, depth);
        } else if (value.getClass().isArray()) {
            sequence("list", value, arrayItems(value), path, depth);
        } else if (value instanceof Set<?>) {
            set((Set<?>) value, path, depth);
        } else if (value instanceof Map<?, ?>) {
            dict((Map<?, ?>) value, path, depth);
        } else {
            throw nonCanonical(path, "values of type " + value.getClass().getName() + " have no canonical form");
        }
    }

    private StringBuilder tagged(String tag) {
        return json.append("{\"").append(tag).append("\":");
    }

    private void enter(Object container, String path, int depth) {
        if (depth > MAX_NESTING) {
            throw nonCanonical(path, "containers are nested more than " + MAX_NESTING + " deep");
        }
        if (!open.add(container)) {
            throw nonCanonical(path, "the value contains itself (a cyclic reference)");
        }
    }

    private void sequence(String tag, Object container, List<?> items, String path, int depth) {
        enter(container, path, depth);
        tagged(tag).append('[');
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) {
                json.append(',');
            }
            value(items.get(i), path + "[" + i + "]", depth + 1);
        }
        json.append("]}");
        open.remove(container);
    }

    private void set(Set<?> set, String path, int depth) {
        enter(set, path, depth);
        tagged("set").append('[');
        int i = 0;
        for (Object item : set) {
            if (i > 0) {
                json.append(',');
            }
            value(item, path + ".<element #" + i + ">", depth + 1);
            i++;
        }
        json.append("]}");
        open.remove(set);
    }

    private void dict(Map<?, ?> map, String path, int depth) {
        enter(map, path, depth);
        tagged("dict").append('[');
        int i = 0;
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            if (i > 0) {
                json.append(',');
            }
            json.append('[');
            value(entry.getKey(), path + ".<key #" + i + ">", depth + 1);
            json.append(',');
            value(entry.getValue(), path + "[" + keyRepr(entry.getKey()) + "]", depth + 1);
            json.append(']');
            i++;
        }
        json.append("]}");
        open.remove(map);
    }

    private void object(Object owner, String type, Map<String, ?> fields, String path, int depth) {
        enter(owner, path, depth);
        tagged("object").append("{\"type\":");
        string(type, path);
        json.append(",\"fields\":{");
        boolean first = true;
        for (Map.Entry<String, ?> field : fields.entrySet()) {
            if (!first) {
                json.append(',');
            }
            first = false;
            String fieldPath = path + "." + field.getKey();
            string(field.getKey(), fieldPath);
            json.append(':');
            value(field.getValue(), fieldPath, depth + 1);
        }
        json.append("}}}");
        open.remove(owner);
    }

    /**
     * A JSON string literal. Everything outside printable ASCII is escaped as UTF-16 units, so
     * supplementary characters travel as valid surrogate-pair escapes; a lone surrogate has no
     * UTF-8 form and is refused with its path.
     */
    private void string(String s, String path) {
        int lone = Text.loneSurrogateAt(s);
        if (lone >= 0) {
            throw nonCanonical(path, "the string has no UTF-8 form (lone surrogate at index " + lone + ")");
        }
        json.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                json.append('\\').append(c);
            } else if (c >= 0x20 && c < 0x7f) {
                json.append(c);
            } else {
                json.append(String.format("\\u%04x", (int) c));
            }
        }
        json.append('"');
    }

    private static List<?> arrayItems(Object array) {
        int length = Array.getLength(array);
        Object[] items = new Object[length];
        for (int i = 0; i < length; i++) {
            items[i] = Array.get(array, i);
        }
        return java.util.Arrays.asList(items);
    }

    /** {@code package.Outer.Inner}, the Java reading of Python's module.qualname. */
    private static String typeName(Class<?> type) {
        String canonical = type.getCanonicalName();
        return canonical != null ? canonical : type.getName();
    }

    /** A key as Python would print it in a path: {@code ['name']}, {@code [3]}, {@code [True]}. */
    private static String keyRepr(Object key) {
        if (key == null) {
            return "None";
        }
        if (key instanceof Boolean) {
            return ((Boolean) key) ? "True" : "False";
        }
        if (key instanceof Integer || key instanceof Long || key instanceof Short || key instanceof Byte
                || key instanceof BigInteger) {
            return key.toString();
        }
        if (key instanceof String) {
            return "'" + ((String) key).replace("\\", "\\\\").replace("'", "\\'") + "'";
        }
        return "<key>";
    }

    private static JournalException nonCanonical(String path, String reason) {
        return new JournalException(JournalException.Code.NON_CANONICAL_ARGUMENT,
                "argument " + path + " has no canonical encoding: " + reason
                        + "; pass durable_id= (Python) or durableId (Java) to name the call explicitly",
                null);
    }
}
