package io.durablejournal.identity;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A record compared by field values, encoded as an {@code object} node: the Java counterpart of a
 * Python dataclass or pydantic model. {@code type} is the name the Python side would use,
 * {@code module.qualname}, so a Java caller can derive the same digest as its Python twin.
 */
public final class CanonicalObject {
    private final String type;
    private final Map<String, Object> fields;

    private CanonicalObject(String type, Map<String, Object> fields) {
        this.type = type;
        this.fields = Collections.unmodifiableMap(fields);
    }

    /** Field order does not matter; the fields are copied. */
    public static CanonicalObject of(String type, Map<String, ?> fields) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(fields, "fields");
        if (type.isEmpty()) {
            throw new IllegalArgumentException("type must not be empty (module.qualname)");
        }
        return new CanonicalObject(type, new LinkedHashMap<>(fields));
    }

    public String type() {
        return type;
    }

    public Map<String, Object> fields() {
        return fields;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof CanonicalObject)) {
            return false;
        }
        CanonicalObject that = (CanonicalObject) other;
        return type.equals(that.type) && fields.equals(that.fields);
    }

    @Override
    public int hashCode() {
        return type.hashCode() * 31 + fields.hashCode();
    }

    @Override
    public String toString() {
        return type + fields;
    }
}
